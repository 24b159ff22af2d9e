// SPDX-License-Identifier: GPL-2.0
/*
 * ctxcount: attribute perf counter deltas of monitored tasks to the context
 * they occurred in (task, hardirq, NMI, each softirq vector), so that a
 * task-only count excludes every interrupt. Userspace talks to it over the
 * "ctxcount" generic netlink family, include/uapi/linux/ctxcount.h.
 *
 * This file only loads and unloads; see docs/DESIGN.md for the rest.
 */
#include <linux/ctxcount.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include "calib.h"
#include "compat.h"
#include "cpuhp.h"
#include "hooks.h"
#include "irqsrc.h"
#include "netlink.h"
#include "session.h"

static const struct ctx_task_hooks ctx_session_task_hooks = {
	.fork		= ctx_session_fork,
	.exit		= ctx_session_exit,
	.exec		= ctx_session_exec,
	.perf_exit	= ctx_session_perf_exit,
};

static int __init ctx_init(void)
{
	int err;

	err = ctx_hooks_register(&ctx_session_task_hooks);
	if (err)
		return err;
	ctx_irqsrc_init();
	err = ctx_cpuhp_init();
	if (err)
		goto err_hooks;
	/* Before any session: the estimate's figures, measured here. */
	ctx_calib_user_init();
	ctx_calib_init();
	err = ctx_session_workers_init();
	if (err)
		goto err_calib;
	err = ctx_netlink_register();
	if (err)
		goto err_session;
	return 0;

err_session:
	ctx_session_workers_exit();
err_calib:
	ctx_calib_user_exit();
	ctx_calib_exit();
	ctx_cpuhp_exit();
err_hooks:
	ctx_hooks_unregister();
	return err;
}

static void __exit ctx_exit(void)
{
	/* No more requests or socket releases, then nothing to count for. */
	ctx_netlink_unregister();
	ctx_session_destroy_all();
	ctx_session_workers_exit();
	ctx_calib_user_exit();
	ctx_calib_exit();
	ctx_cpuhp_exit();
	ctx_hooks_unregister();
}

module_init(ctx_init);
module_exit(ctx_exit);

MODULE_DESCRIPTION("Per-context (task, hardirq, softirq, NMI) perf counting");
MODULE_LICENSE("GPL");
/* From dkms.conf's PACKAGE_VERSION, through module/Kbuild. */
MODULE_VERSION(CTXCOUNT_VERSION);
