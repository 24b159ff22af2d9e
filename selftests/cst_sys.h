/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_sys: the system the selftests run on: the module and its
 * parameters, where the programs are, CPUs going off- and online, and
 * perf_event_open()'s own count as an independent check.
 */
#ifndef CST_SYS_H
#define CST_SYS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

bool cst_module_loaded(void);
int cst_param_get(const char *name, long *val);
int cst_param_set(const char *name, long val);
/* A bool parameter (Y/N) is set; false when it is not or is not there. */
bool cst_param_is_set(const char *name);
const char *cst_ko_path(void);		/* $CTXCOUNT_KO or /ctx/module/ctxcount.ko */
const char *cst_ctxstat_path(void);	/* $CTXSTAT or /ctx/bin/ctxstat */
const char *cst_ctxload_path(void);	/* $CTXLOAD or /ctx/bin/ctxload */
const char *cst_self_dir(void);		/* directory of this test program */
/* $dir/ctx_workload */
const char *cst_workload_path(void);
/*
 * A copy of ctx_workload in a new directory under /tmp (tmpfs in the
 * guest), for tests that compare instruction counts between runs: run
 * from /ctx, each exec pages the program in over 9p, which sleeps a varying
 * number of times. Returns the path, or NULL with errno set. Remove it with
 * cst_workload_copy_remove(path).
 */
const char *cst_workload_copy(void);
void cst_workload_copy_remove(const char *path);
/* delete_module("ctxcount") / finit_module(ko, params): 0 or -errno. */
int cst_rmmod(void);
int cst_insmod(const char *params);
/* "max_sessions=256 max_sessions_per_user=16 ..." of the loaded module */
void cst_current_params(char *buf, size_t len);
/*
 * Load the module anew (nothing calibrated, no session) with its current
 * parameters, irq_source_entry_reads as it was (@entry_reads -1), off (0)
 * or on (1): 0 or -errno.
 */
int cst_reload(int entry_reads);
/* Why the test program cannot run here, or NULL. */
const char *cst_cannot_run(void);
/*
 * Are ctxcount's interrupt hooks attached: 1 if irq_enter_rcu has an
 * ftrace callback (tracefs' enabled_functions, the kernel's own view),
 * 0 if not, -errno when tracefs cannot tell.
 */
int cst_irq_hooked(void);
/* Wait up to @ms for cst_irq_hooked() to be @want; its last answer. */
int cst_irq_hooked_wait(int want, int ms);

/* kernel.perf_event_paranoid: 0 or -errno. */
int cst_paranoid_get(long *val);
int cst_paranoid_set(long val);
/* 1 if @cpu is online, 0 if not, -errno when sysfs cannot tell. */
int cst_cpu_is_online(int cpu);
/*
 * The start of the file at @path into @buf, NUL-terminated: the bytes
 * read, or -1 (errno set).
 */
ssize_t cst_read_text(const char *path, char *buf, size_t len);
/* Take @cpu offline (@on 0) or online (@on 1) through sysfs; -errno. */
int cst_cpu_set_online(int cpu, int on);

/*
 * Count an event on this thread with perf_event_open() around fn(arg):
 * the kernel's own answer, independent of ctxcount. Returns the count or a
 * negative errno (-ENOENT etc.: no such event here).
 */
long long cst_perf_count(uint32_t type, uint64_t config, uint32_t flags,
			 void (*fn)(void *), void *arg);
/* perf binary in the guest (perf, perf_6.1, ...) or NULL */
const char *cst_perf_path(void);
/*
 * The first words of "perf stat -x, -e @event" (@perf, cst_perf_path())
 * or "ctxstat -x, -e @event" into @argv; returns how many.
 */
int cst_stat_argv(char **argv, bool perf, const char *event);
/* Why the hardware instruction counter does not count here (in buf), or NULL. */
const char *cst_no_insn_reason(char *buf, size_t len);

#endif /* CST_SYS_H */
