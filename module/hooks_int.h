/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What hooks.c (the callbacks, and where each is attached) hands to
 * hooks_attach.c (attaching them, and when).
 */
#ifndef _CTXCOUNT_HOOKS_INT_H
#define _CTXCOUNT_HOOKS_INT_H

#include <linux/ftrace.h>
#include <linux/tracepoint.h>
#include <linux/types.h>

#include "hooks.h"

/**
 * struct ctx_ftrace_hook - an ftrace ops and the functions it hooks
 * @ops: the ops
 * @funcs: the functions' names
 * @nr: how many
 */
struct ctx_ftrace_hook {
	struct ftrace_ops *ops;
	const char * const *funcs;
	unsigned int nr;
};

#define CTX_NR_FTRACE_HOOKS	4
extern const struct ctx_ftrace_hook ctx_ftrace_hooks[CTX_NR_FTRACE_HOOKS];

/**
 * struct ctx_tracepoint - a tracepoint to attach to
 * @name: its name
 * @probe: the probe
 * @prio: its place among the tracepoint's probes (higher runs first)
 * @tp: the tracepoint, once found
 */
struct ctx_tracepoint {
	const char *name;
	void *probe;
	int prio;
	struct tracepoint *tp;
};

#define CTX_NR_TRACEPOINTS	5
extern struct ctx_tracepoint ctx_tracepoints[CTX_NR_TRACEPOINTS];

/* Set at load (hooks_attach.c), read by the callbacks. */
extern bool ctx_softirq_inline;
extern const struct ctx_task_hooks *ctx_task_hooks;

#endif /* _CTXCOUNT_HOOKS_INT_H */
