// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the hooks (hooks.c) to the kernel: ftrace filters set once at
 * load, the tracepoints found by name (they are not exported), whether
 * softirqs run on a hardirq's way out, and the hooks' lifetime: attached
 * while anything needs them, the NMI handlers from load to unload.
 *
 * Built without ftrace instrumentation, as hooks.c: the probe's tasklet
 * and irq_work run in the contexts the hooks watch.
 */
#include <linux/completion.h>
#include <linux/ctxcount.h>
#include <linux/ftrace.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cpustate.h"
#include "hooks.h"
#include "hooks_int.h"

static bool ctx_nmi_hooked;

/*
 * The filter is set once, at load, and kept while the ops comes and goes:
 * ftrace_free_filter() leaves the ops pointing at the hashes it frees,
 * so an ops is never filtered again after it.
 */
static int ctx_ftrace_filter(struct ftrace_ops *ops,
			     const char * const *funcs, unsigned int nr)
{
	char buf[32];
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		/* ftrace_set_filter() wants a writable buffer. */
		strscpy(buf, funcs[i], sizeof(buf));
		/* Fails when nothing matched: never register an empty filter. */
		err = ftrace_set_filter(ops, buf, strlen(buf), 0);
		if (err) {
			pr_err("cannot hook %s: %d\n", funcs[i], err);
			return err;
		}
	}
	return 0;
}

static void ctx_ftrace_unregister(unsigned int nr)
{
	while (nr--)
		unregister_ftrace_function(ctx_ftrace_hooks[nr].ops);
}

static int ctx_ftrace_register(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < CTX_NR_FTRACE_HOOKS; i++) {
		err = register_ftrace_function(ctx_ftrace_hooks[i].ops);
		if (err) {
			pr_err("cannot register ftrace hook on %s: %d\n",
			       ctx_ftrace_hooks[i].funcs[0], err);
			ctx_ftrace_unregister(i);
			return err;
		}
	}
	return 0;
}

static void ctx_ftrace_unfilter(void)
{
	unsigned int i;

	for (i = 0; i < CTX_NR_FTRACE_HOOKS; i++)
		ftrace_free_filter(ctx_ftrace_hooks[i].ops);
}

static int ctx_ftrace_filter_all(void)
{
	const struct ctx_ftrace_hook *h;
	unsigned int i;
	int err;

	for (i = 0; i < CTX_NR_FTRACE_HOOKS; i++) {
		h = &ctx_ftrace_hooks[i];
		err = ctx_ftrace_filter(h->ops, h->funcs, h->nr);
		if (err) {
			ctx_ftrace_unfilter();
			return err;
		}
	}
	return 0;
}

static void ctx_tracepoint_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < CTX_NR_TRACEPOINTS; i++) {
		if (!strcmp(tp->name, ctx_tracepoints[i].name))
			ctx_tracepoints[i].tp = tp;
	}
}

static void ctx_tracepoints_detach(unsigned int nr)
{
	while (nr--)
		tracepoint_probe_unregister(ctx_tracepoints[nr].tp,
					    ctx_tracepoints[nr].probe, NULL);
	/* No probe may still run when the module text goes away. */
	tracepoint_synchronize_unregister();
}

static int ctx_tracepoints_attach(void)
{
	struct ctx_tracepoint *t;
	unsigned int i;
	int err;

	for_each_kernel_tracepoint(ctx_tracepoint_lookup, NULL);
	for (i = 0; i < CTX_NR_TRACEPOINTS; i++) {
		t = &ctx_tracepoints[i];
		if (!t->tp) {
			pr_err("tracepoint %s not found\n", t->name);
			err = -ENOENT;
			goto err_detach;
		}
		err = tracepoint_probe_register_prio(t->tp, t->probe, NULL,
						     t->prio);
		if (err) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       t->name, err);
			goto err_detach;
		}
	}
	return 0;

err_detach:
	ctx_tracepoints_detach(i);
	return err;
}

/*
 * Do softirqs raised in a hardirq run on its way out, in the interrupted
 * task? A tasklet scheduled from an irq_work (a self-IPI, or the next
 * tick) tells: it runs in this task unless ksoftirqd runs it (forced
 * threading). TASKLET is one of the vectors that run there even when
 * ksoftirqd is running (compat.h), so nothing else decides it.
 */
static struct task_struct *ctx_probe_task;
static bool ctx_probe_inline;
static bool ctx_probe_irq_ran;
static DECLARE_COMPLETION(ctx_probe_done);

static void ctx_probe_tasklet_fn(struct tasklet_struct *t)
{
	ctx_probe_inline = current == ctx_probe_task;
	complete(&ctx_probe_done);
}

static DECLARE_TASKLET(ctx_probe_tasklet, ctx_probe_tasklet_fn);

static void ctx_probe_irq_work_fn(struct irq_work *work)
{
	tasklet_schedule(&ctx_probe_tasklet);
	WRITE_ONCE(ctx_probe_irq_ran, true);
}

static struct irq_work ctx_probe_work =
	IRQ_WORK_INIT_HARD(ctx_probe_irq_work_fn);

static void ctx_probe_softirq_inline(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	ctx_probe_task = current;
	/* This task is the one interrupted, not another one on this CPU. */
	preempt_disable();
	irq_work_queue(&ctx_probe_work);
	while (!READ_ONCE(ctx_probe_irq_ran))
		cpu_relax();
	preempt_enable();
	wait_for_completion(&ctx_probe_done);
	ctx_softirq_inline = ctx_probe_inline;
}

/*
 * Attached while anything needs them (ctx_hooks_get()): loaded and idle,
 * the module costs interrupts nothing (6.1 calls every module's ftrace
 * ops through ftrace_ops_list_func, about 550 instructions per hardirq on
 * arm64). Detached 10 s after the last user: attaching and detaching
 * start RCU-tasks grace periods that cost each hardirq 150 to 200
 * instructions for a few seconds, which a series of runs a second apart
 * would carry in its counts (precision's default set on arm64 6.1: :t
 * 0.050 % against the full count's 0.034 % with 1 s).
 */
#define CTX_HOOKS_LINGER	(10 * HZ)

static DEFINE_MUTEX(ctx_hooks_lock);
static unsigned int ctx_hooks_users;
static bool ctx_hooks_attached;

/*
 * Every hook but the NMI handlers, or none; under ctx_hooks_lock. A CPU
 * inside an interrupt meanwhile is harmless: no session is started, and
 * the first START has every CPU rebuild its context stack.
 */
static int ctx_hooks_attach(void)
{
	int err;

	err = ctx_ftrace_register();
	if (err)
		return err;
	err = ctx_tracepoints_attach();
	if (err)
		ctx_ftrace_unregister(CTX_NR_FTRACE_HOOKS);
	return err;
}

/* Detach and wait until no hook runs; under ctx_hooks_lock. */
static void ctx_hooks_detach(void)
{
	ctx_tracepoints_detach(CTX_NR_TRACEPOINTS);
	ctx_ftrace_unregister(CTX_NR_FTRACE_HOOKS);
}

static void ctx_hooks_linger_fn(struct work_struct *work)
{
	mutex_lock(&ctx_hooks_lock);
	if (!ctx_hooks_users && ctx_hooks_attached) {
		ctx_hooks_detach();
		ctx_hooks_attached = false;
	}
	mutex_unlock(&ctx_hooks_lock);
}

static DECLARE_DELAYED_WORK(ctx_hooks_linger, ctx_hooks_linger_fn);

/**
 * ctx_hooks_get() - the hooks are needed (a session exists, a calibration)
 *
 * The first user attaches them.
 *
 * Context: process context, may sleep; no session lock, not the CPU
 * hotplug lock.
 * Return: 0, or a negative errno (nothing attached, not counted).
 */
int ctx_hooks_get(void)
{
	int err = 0;

	mutex_lock(&ctx_hooks_lock);
	if (!ctx_hooks_attached) {
		err = ctx_hooks_attach();
		ctx_hooks_attached = !err;
	}
	if (!err)
		ctx_hooks_users++;
	mutex_unlock(&ctx_hooks_lock);
	return err;
}

/**
 * ctx_hooks_put() - what ctx_hooks_get() took
 *
 * The last user has them detached CTX_HOOKS_LINGER later, unless another
 * comes.
 *
 * Context: process context.
 */
void ctx_hooks_put(void)
{
	mutex_lock(&ctx_hooks_lock);
	if (!--ctx_hooks_users)
		mod_delayed_work(ctx_system_dfl_wq, &ctx_hooks_linger,
				 CTX_HOOKS_LINGER);
	mutex_unlock(&ctx_hooks_lock);
}

/**
 * ctx_hooks_register() - prepare the hooks, attach the NMI handlers
 * @task_hooks: what keeps the task sets, called at forks, exits and execs
 *
 * The rest is attached by ctx_hooks_get(). The NMI handlers stay: they
 * cost nothing per hardirq, and STATS says from load on whether NMIs are
 * told apart.
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int ctx_hooks_register(const struct ctx_task_hooks *task_hooks)
{
	int cpu, err;

	BUILD_BUG_ON(NR_SOFTIRQS != CTXCOUNT_NR_SOFTIRQ_BUCKETS);
	BUILD_BUG_ON(CTXCOUNT_BUCKET_SOFTIRQ_FIRST + NET_RX_SOFTIRQ !=
		     CTXCOUNT_BUCKET_SOFTIRQ_NET_RX);
	BUILD_BUG_ON(CTXCOUNT_BUCKET_SOFTIRQ_FIRST + RCU_SOFTIRQ !=
		     CTXCOUNT_BUCKET_SOFTIRQ_RCU);
	BUILD_BUG_ON(CTXCOUNT_BUCKET_MAX > U8_MAX);

	err = ctx_ftrace_filter_all();
	if (err)
		return err;
	ctx_task_hooks = task_hooks;
	for_each_possible_cpu(cpu) {
		per_cpu_ptr(&ctx_cpu_state, cpu)->top = CTXCOUNT_BUCKET_TASK;
		atomic_long_set(&per_cpu_ptr(&ctx_cpu_state, cpu)->walk, 0);
	}
	ctx_probe_softirq_inline();
	/* Optional: without it NMI counts fold into the interrupted context. */
	ctx_nmi_hooked = !ctx_nmi_hooks_register();
	return 0;
}

/**
 * ctx_hooks_unregister() - detach every hook and wait until none runs
 *
 * Context: module exit, after every session and calibration is gone.
 */
void ctx_hooks_unregister(void)
{
	cancel_delayed_work_sync(&ctx_hooks_linger);
	mutex_lock(&ctx_hooks_lock);
	if (ctx_hooks_attached)
		ctx_hooks_detach();
	ctx_hooks_attached = false;
	mutex_unlock(&ctx_hooks_lock);
	ctx_ftrace_unfilter();
	if (ctx_nmi_hooked)
		ctx_nmi_hooks_unregister();
}

/**
 * ctx_hooks_features() - what the hooks can tell apart here
 *
 * Return: enum ctxcount_feature bits.
 */
u32 ctx_hooks_features(void)
{
	return ctx_nmi_hooked ? CTXCOUNT_FEATURE_NMI : 0;
}
