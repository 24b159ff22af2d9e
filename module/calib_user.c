// SPDX-License-Identifier: GPL-2.0
/*
 * User-mode calibration. The residuals of excursions from user mode need
 * a user-mode loop, which the module has not got: a privileged client
 * runs one (CTXCOUNT_CMD_SESSION_CALIBRATE, ctx_calib_user_*()); the
 * module measures it with its own counters. Until then hardirqs from user
 * mode are given the kernel-mode figures (READ's feature bits say so).
 * Nothing a client sends is a figure: it only runs the loop.
 */
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "account.h"
#include "account_probe.h"
#include "calib_int.h"
#include "compat.h"
#include "cpustate.h"
#include "hooks.h"

static struct ctx_calib_storm ctx_user_storm;	/* CALIBRATE's runs */

/*
 * What a user-mode hardirq may leave beyond a kernel-mode one: at most
 * this many times the kernel-mode figure the module measured itself at
 * load. The user-mode entry and exit (swapgs, page-table isolation,
 * speculation barriers) add to an entry the module measured whole (arm64
 * 6.1: 68 to 91 more against 348). More says that the two runs were not
 * the same loop, and would move other users' task counts into the
 * estimate of every session until the module is unloaded (issue 31).
 */
#define CTX_CALIB_USER_MAX_FACTOR	2

/*
 * User mode: a privileged client's thread runs a fixed user-mode loop
 * between ctx_calib_user_begin() and ctx_calib_user_end(), once quiet and
 * once with ctx_user_storm firing at its CPU, counted by the module's own
 * counters of every measured event type of that CPU's type; what the
 * hardirqs that interrupted it left, less what kernel-mode hardirqs
 * leave, is what the architecture's user-mode entry and exit add, the
 * same for every kind of hardirq excursion. One calibration at a time;
 * no lock is held between begin and end. The counters exist only from a
 * begin to its end: CPU counters outrank every task's, so kept they
 * would multiplex other users' events on that CPU. The storm ends at its
 * budget and the counters go shortly after, whatever the client does.
 */
static struct {
	const void *owner;		/* the client between its begin and end */
	struct ctx_acct *a;		/* its counters, on @cpu, while @open */
	unsigned int nr;		/* how many */
	int type[CTX_CALIB_NR_TYPES];	/* event type of each counter */
	struct ctx_event_spec spec[CTX_CALIB_NR_TYPES];
	int cpu;			/* of the runs in @have, -1: none */
	bool open;			/* between a begin and its end */
	u64 begun;			/* local_clock() at the begin */
	bool storm;
	u64 t0[CTXCOUNT_MAX_EVENTS], e0[2 * CTX_NR_EXC_ALL];
	bool have[2];
	s64 dt[2][CTXCOUNT_MAX_EVENTS], dexc[2][CTX_NR_EXC];
} ctx_user = { .cpu = -1 };

/* The counters of the user-mode runs, on this CPU; under ctx_calib_lock. */
static int ctx_calib_user_counters(void)
{
	int ti = per_cpu(ctx_cpu_calib, smp_processor_id());
	unsigned int t, nr = 0;

	/* A quiet and a storm run pair up on one CPU only. */
	if (ctx_user.cpu != smp_processor_id()) {
		memset(ctx_user.have, 0, sizeof(ctx_user.have));
		ctx_user.cpu = smp_processor_id();
	}
	if (ti < 0)
		return -ENODEV;
	for (t = 0; t < CTX_CALIB_NR_TYPES; t++) {
		if (!ctx_cputypes[ti].fit[t].measured)
			continue;
		ctx_user.type[nr] = t;
		ctx_user.spec[nr++] = ctx_calib_types[t];
	}
	if (!nr)
		return -ENODEV;
	ctx_user.a = ctx_calib_acct_new(ctx_user.spec, nr, smp_processor_id());
	if (!ctx_user.a)
		return -ENODEV;
	ctx_user.nr = nr;
	return 0;
}

/*
 * End the open run; under ctx_calib_lock. @t1, @e1: NULL to drop it.
 * Return: the run counted.
 */
static bool ctx_calib_user_close(u64 *t1, u64 *e1)
{
	bool ok;

	migrate_disable();
	ok = t1 && smp_processor_id() == ctx_user.cpu;
	if (ok) {
		preempt_disable();
		ctx_account_probe_sample(ctx_user.a, t1, e1);
		ok = ctx_account_probe_close(ctx_user.a);
		preempt_enable();
	}
	migrate_enable();
	hrtimer_cancel(&ctx_user_storm.timer);
	ctx_account_probe_end(ctx_user.a);
	ctx_calib_acct_free(ctx_user.a);
	ctx_user.a = NULL;
	ctx_user.open = false;
	ctx_user.owner = NULL;
	ctx_hooks_put();
	return ok;
}

/* A client that left its run open (it died, or never ended it). */
static void ctx_calib_user_expire(struct work_struct *work)
{
	mutex_lock(&ctx_calib_lock);
	if (ctx_user.open &&
	    local_clock() - ctx_user.begun >= CTX_CALIB_BUDGET_NS)
		ctx_calib_user_close(NULL, NULL);
	mutex_unlock(&ctx_calib_lock);
}

static DECLARE_DELAYED_WORK(ctx_user_expire, ctx_calib_user_expire);

/**
 * ctx_calib_user_begin() - start a user-mode run on the caller's CPU
 * @owner: the client (its socket), which must end the run
 * @storm: fire the timer at this CPU until ctx_calib_user_end()
 *
 * Where the module measured nothing for this CPU's type at load (busy
 * then), kernel mode is measured first.
 *
 * Context: process context of a privileged client, may sleep.
 * Return: 0; -EEXIST when user mode was measured already (no run is
 * needed), -EBUSY when another client is between its begin and end (for
 * at most a storm's budget: a client that never ends is replaced),
 * -ENODEV when nothing is measured on this CPU's type, -EAGAIN when the
 * caller moved meanwhile.
 */
int ctx_calib_user_begin(const void *owner, bool storm)
{
	int err, ti;

	mutex_lock(&ctx_calib_lock);
	err = -EEXIST;
	if (ctx_calib_user_done)
		goto out_unlock;
	err = -EBUSY;
	/* A client gone since its begin leaves no storm, nor the slot. */
	if (ctx_user.open && local_clock() - ctx_user.begun < CTX_CALIB_BUDGET_NS)
		goto out_unlock;
	if (ctx_user.open)
		ctx_calib_user_close(NULL, NULL);
	err = ctx_hooks_get();
	if (err)
		goto out_unlock;
	/*
	 * Kernel mode first, if the load's measurement failed on this CPU's
	 * type (the machine was busy then): a privileged request may fire
	 * the storm again.
	 */
	ti = per_cpu(ctx_cpu_calib, raw_smp_processor_id());
	if (ti >= 0 && !ctx_calib_measured(ti)) {
		work_on_cpu(raw_smp_processor_id(), ctx_calib_cputype_fn,
			    &ctx_cputypes[ti]);
		if (ctx_calib_measured(ti))
			WRITE_ONCE(ctx_calib_kernel_done, true);
	}
	migrate_disable();
	err = ctx_calib_user_counters();
	if (!err) {
		err = ctx_account_probe_begin(ctx_user.a);
		if (err) {
			ctx_calib_acct_free(ctx_user.a);
			ctx_user.a = NULL;
		}
	}
	if (!err) {
		preempt_disable();
		if (storm)
			ctx_calib_storm_start(&ctx_user_storm,
					      CTX_CALIB_BUDGET_NS);
		ctx_account_probe_open(ctx_user.a);
		ctx_account_probe_sample(ctx_user.a, ctx_user.t0, ctx_user.e0);
		preempt_enable();
		ctx_user.open = true;
		ctx_user.begun = local_clock();
		ctx_user.owner = owner;
		ctx_user.storm = storm;
		mod_delayed_work(ctx_system_dfl_wq, &ctx_user_expire,
				 nsecs_to_jiffies(CTX_CALIB_BUDGET_NS) + 1);
	}
	migrate_enable();
	/* An open run keeps them until its close. */
	if (err)
		ctx_hooks_put();
out_unlock:
	mutex_unlock(&ctx_calib_lock);
	return err;
}

/*
 * Both runs are in: per type, what a user-mode hardirq leaves beyond a
 * kernel-mode one, added to the user-mode kinds of every path. Nothing is
 * kept unless the storm run stayed in user mode (the begin's and end's
 * system calls take a few of its hardirqs, not most) and every type's
 * figure lies within what the kernel's own measurement allows
 * (CTX_CALIB_USER_MAX_FACTOR). The figure's uncertainty is its whole
 * distance from kernel mode's, on top of kernel mode's spread.
 *
 * Return: 0, or -ERANGE when the runs were not fit to keep.
 */
static int ctx_calib_user_apply(void)
{
	const int uh = CTX_EXC_USER + CTX_EXC_HARDIRQ;
	s64 n = ctx_user.dexc[1][uh] - ctx_user.dexc[0][uh];
	int ti = per_cpu(ctx_cpu_calib, ctx_user.cpu);
	unsigned int i, k, p, others = ctx_user.nr - 1;
	s64 sum, base, extra[CTX_CALIB_NR_TYPES];
	struct ctx_calib_fit *f;
	s64 kernel_mode = 0;

	if (n <= 0 || ti < 0)
		return -ERANGE;
	for (k = 0; k < CTX_EXC_SOFTIRQ; k++)
		kernel_mode += ctx_user.dexc[1][k] - ctx_user.dexc[0][k];
	if (kernel_mode > n) {
		pr_info("cpu%d: user-mode calibration refused: %lld of its storm's hardirqs came from kernel mode, %lld from user mode\n",
			ctx_user.cpu, kernel_mode, n);
		return -ERANGE;
	}
	for (i = 0; i < ctx_user.nr; i++) {
		f = &ctx_cputypes[ti].fit[ctx_user.type[i]];
		sum = ctx_user.dt[1][i] - ctx_user.dt[0][i];
		for (k = 0; k < CTX_NR_EXC; k++)
			if (k != uh)
				sum -= (ctx_user.dexc[1][k] - ctx_user.dexc[0][k]) *
				       (f->a[0][k] + f->c[0][k] * others);
		base = f->a[0][CTX_EXC_HARDIRQ] + f->c[0][CTX_EXC_HARDIRQ] * others;
		extra[i] = sum / n - base;
		if (extra[i] < -base ||
		    extra[i] > CTX_CALIB_USER_MAX_FACTOR * abs(base)) {
			pr_info("cpu%d: user-mode calibration refused: %lld more of event type %u than kernel mode's %lld\n",
				ctx_user.cpu, extra[i], ctx_user.type[i], base);
			return -ERANGE;
		}
	}
	for (i = 0; i < ctx_user.nr; i++) {
		f = &ctx_cputypes[ti].fit[ctx_user.type[i]];
		for (p = 0; p < 2; p++) {
			for (k = 0; k < CTX_EXC_SOFTIRQ; k++) {
				f->a[p][CTX_EXC_USER + k] =
					max_t(s64, 0, f->a[p][k] + extra[i]);
				f->spread[p][CTX_EXC_USER + k] =
					f->spread[p][k] + abs(extra[i]);
			}
		}
		f->user = true;
		pr_info("cpu%d: user-mode hardirqs leave %lld more of event type %u\n",
			ctx_user.cpu, extra[i], ctx_user.type[i]);
	}
	WRITE_ONCE(ctx_calib_user_done, true);
	return 0;
}

/**
 * ctx_calib_user_end() - end the caller's user-mode run
 * @owner: the client that began it
 *
 * After a quiet and a storm run, user mode is measured for good (until
 * the module is unloaded, or an administrator writes calib_user_reset).
 *
 * Context: process context of a privileged client, may sleep.
 * Return: 0; -EINVAL without a begin of @owner; -EAGAIN when the caller
 * changed CPU or was switched out meanwhile (run it again); -ERANGE when
 * the runs were not fit to keep (ctx_calib_user_apply(): the storm run is
 * dropped, run it again).
 */
int ctx_calib_user_end(const void *owner)
{
	u64 t1[CTXCOUNT_MAX_EVENTS], e1[2 * CTX_NR_EXC_ALL];
	s64 dexc[CTX_NR_EXC];
	unsigned int i;
	int run, err = 0;

	mutex_lock(&ctx_calib_lock);
	if (!ctx_user.open || ctx_user.owner != owner) {
		err = -EINVAL;
		goto out_unlock;
	}
	run = ctx_user.storm;
	if (!ctx_calib_user_close(t1, e1)) {
		err = -EAGAIN;
		goto out_unlock;
	}
	ctx_calib_kinds(dexc, ctx_user.e0, e1);
	/*
	 * Whatever else lands in a quiet run only adds to it (a page fault,
	 * a slow path): of several, the least counts.
	 */
	if (!run && ctx_user.have[0] &&
	    (s64)(t1[0] - ctx_user.t0[0]) >= ctx_user.dt[0][0])
		goto out_unlock;
	for (i = 0; i < ctx_user.nr; i++)
		ctx_user.dt[run][i] = t1[i] - ctx_user.t0[i];
	memcpy(ctx_user.dexc[run], dexc, sizeof(dexc));
	ctx_user.have[run] = true;
	if (ctx_user.have[0] && ctx_user.have[1]) {
		err = ctx_calib_user_apply();
		if (err)
			ctx_user.have[1] = false;
	}
out_unlock:
	mutex_unlock(&ctx_calib_lock);
	return err;
}

/*
 * calib_user_reset: an administrator's way back to kernel mode's figures
 * for hardirqs from user mode, until the next privileged calibration
 * (the next privileged ctxstat runs one).
 */
static int ctx_calib_user_reset_set(const char *val,
				    const struct kernel_param *kp)
{
	struct ctx_calib_fit *f;
	unsigned int ti, t;
	bool reset;
	int err;

	err = kstrtobool(val, &reset);
	if (err || !reset)
		return err;
	mutex_lock(&ctx_calib_lock);
	for (ti = 0; ti < ctx_nr_cputypes; ti++) {
		for (t = 0; t < CTX_CALIB_NR_TYPES; t++) {
			f = &ctx_cputypes[ti].fit[t];
			if (!f->user)
				continue;
			ctx_calib_fit_user_as_kernel(f, 0);
			ctx_calib_fit_user_as_kernel(f, 1);
			f->user = false;
		}
	}
	memset(ctx_user.have, 0, sizeof(ctx_user.have));
	WRITE_ONCE(ctx_calib_user_done, false);
	mutex_unlock(&ctx_calib_lock);
	pr_info("user-mode calibration reset: kernel mode's figures until the next one\n");
	return 0;
}

static const struct kernel_param_ops ctx_calib_user_reset_ops = {
	.set = ctx_calib_user_reset_set,
};

module_param_cb(calib_user_reset, &ctx_calib_user_reset_ops, NULL, 0200);
MODULE_PARM_DESC(calib_user_reset,
		 "Write 1: forget the user-mode calibration (kernel mode's figures until the next)");

/**
 * ctx_calib_user_init() - set up what a user-mode calibration uses
 *
 * Context: module init, before any client.
 */
void ctx_calib_user_init(void)
{
	ctx_calib_storm_setup(&ctx_user_storm);
}

/**
 * ctx_calib_user_exit() - end a user-mode run a client left open
 *
 * Context: module exit, no client left.
 */
void ctx_calib_user_exit(void)
{
	cancel_delayed_work_sync(&ctx_user_expire);
	mutex_lock(&ctx_calib_lock);
	if (ctx_user.open)
		ctx_calib_user_close(NULL, NULL);
	mutex_unlock(&ctx_calib_lock);
	hrtimer_cancel(&ctx_user_storm.timer);
}
