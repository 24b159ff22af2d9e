// SPDX-License-Identifier: GPL-2.0
/*
 * x86 NMI hook. The NMI entry code is noinstr and has no traceable function
 * with a matching exit, but nmi_handle() calls every NMI_LOCAL handler in
 * list order: a handler added first and one added last bracket all the
 * others (perf's overflow handler, the NMI backtrace, ...). What runs
 * before the first or after the last (the entry code, NMI_UNKNOWN handling,
 * handlers registered after this module) is counted in the interrupted
 * context.
 *
 * Built without ftrace instrumentation: this code runs in NMI context.
 */
#include <linux/ctxcount.h>
#include <asm/nmi.h>

#include "hooks.h"

#define CTX_NMI_FIRST	"ctxcount_first"
#define CTX_NMI_LAST	"ctxcount_last"

static int ctx_nmi_first(unsigned int type, struct pt_regs *regs)
{
	ctx_hook_nmi_enter();
	return NMI_DONE;
}

static int ctx_nmi_last(unsigned int type, struct pt_regs *regs)
{
	ctx_hook_nmi_exit();
	return NMI_DONE;
}

/**
 * ctx_nmi_hooks_register() - bracket the NMI_LOCAL handlers
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int ctx_nmi_hooks_register(void)
{
	int err;

	/* Exit before entry, as in hooks.c. */
	err = register_nmi_handler(NMI_LOCAL, ctx_nmi_last, 0, CTX_NMI_LAST);
	if (err)
		return err;
	err = register_nmi_handler(NMI_LOCAL, ctx_nmi_first, NMI_FLAG_FIRST,
				   CTX_NMI_FIRST);
	if (err)
		goto err_last;
	return 0;

err_last:
	unregister_nmi_handler(NMI_LOCAL, CTX_NMI_LAST);
	return err;
}

/**
 * ctx_nmi_hooks_unregister() - remove the NMI handlers
 *
 * unregister_nmi_handler() waits for running handlers to finish.
 *
 * Context: module exit.
 */
void ctx_nmi_hooks_unregister(void)
{
	unregister_nmi_handler(NMI_LOCAL, CTX_NMI_FIRST);
	unregister_nmi_handler(NMI_LOCAL, CTX_NMI_LAST);
}
