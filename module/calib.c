// SPDX-License-Identifier: GPL-2.0
/*
 * What an excursion from task context leaves on the task's side of the
 * counter reads, measured on this machine, per event of a session and per
 * kind of excursion (cpustate.h): the architecture's entry and exit code,
 * ftrace's dispatch to the hooks and the hooks up to (from) their reads
 * run in the task's interval and cannot be hooked. account.c moves that
 * many counts per excursion out of the task bucket into
 * CTXCOUNT_BUCKET_IRQ_ENTRY_EST.
 *
 * Kernel mode, at START: the calling task, counted for the session on its
 * CPU (ctx_account_probe_*(); migration disabled, but preemptible like
 * the code interrupts usually land in), runs a fixed loop (as long as
 * takes about 25 of the timer's interrupts here) once quiet and once with
 * an hrtimer firing at it every few microseconds, its handler doing
 * nothing (a hardirq), scheduling a tasklet (a hardirq and its softirqs,
 * with the exit read skipped or, forced, done), or with the loop run in
 * slices under local_bh_disable() (softirqs from task context). The task
 * bucket's growth over the quiet run's, less what the other kinds in the
 * run are known to leave, over the number of excursions of the kind, is
 * its residual. The median of five rounds is kept.
 *
 * User mode can only be measured with a user-mode loop, which the module
 * has not got: the client runs one (CTXCOUNT_CMD_SESSION_CALIBRATE,
 * ctx_calib_user_*()). Until then hardirqs from user mode are given the
 * kernel-mode figures; the difference is the architecture's user-mode
 * entry and exit code (about 60 instructions on arm64).
 *
 * Results are kept per set of events (type, config, flags), so a session
 * with the same events as an earlier one starts at once.
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "account.h"
#include "calib.h"
#include "compat.h"
#include "cpustate.h"

#define CTX_CALIB_CHUNK		1000	/* loop iterations, a run's unit */
#define CTX_CALIB_FIRES		25	/* storm interrupts a run should take */
#define CTX_CALIB_MAX_NS	(2 * NSEC_PER_MSEC)	/* to get them */
#define CTX_CALIB_BUDGET_NS	(100 * NSEC_PER_MSEC)	/* a calibration */
#define CTX_CALIB_BH_SLICES	25	/* local_bh_disable() slices per run */
#define CTX_CALIB_PERIOD_NS	5000	/* between two timer interrupts */
#define CTX_CALIB_ROUNDS	5
#define CTX_CALIB_TRIES		5	/* per run, while foreign kinds land */
#define CTX_CALIB_CACHE		8

/**
 * struct ctx_calib_run - one run of the loop
 * @storm: the timer fires at the task during the loop
 * @tasklet: its handler schedules a tasklet
 * @noskip: hardirq exits read even when softirqs follow
 * @bh: the loop runs in slices under local_bh_disable()
 * @kind: the excursion kind it measures (enum ctx_excursion), -1: none
 */
struct ctx_calib_run {
	bool storm, tasklet, noskip, bh;
	int kind;
};

/* Quiet runs first: each storm run is compared with the quiet run before. */
static const struct ctx_calib_run ctx_calib_runs[] = {
	{ .kind = -1 },
	{ .storm = true, .kind = CTX_EXC_HARDIRQ },
	{ .storm = true, .tasklet = true, .kind = CTX_EXC_HARDIRQ_SOFTIRQ },
	{ .storm = true, .tasklet = true, .noskip = true,
	  .kind = CTX_EXC_HARDIRQ_THEN_SOFTIRQ },
	{ .bh = true, .kind = -1 },
	{ .bh = true, .storm = true, .tasklet = true, .kind = CTX_EXC_SOFTIRQ },
};

/**
 * struct ctx_calib_entry - the residuals of one set of events
 * @nr_events: number of events (0: unused entry)
 * @spec: the events
 * @residual: per kind and event
 * @user_done: the user-mode kinds were measured (ctx_calib_user_end())
 * @age: for replacement, the oldest first
 */
struct ctx_calib_entry {
	unsigned int nr_events;
	struct ctx_event_spec spec[CTXCOUNT_MAX_EVENTS];
	u64 residual[CTX_NR_EXC][CTXCOUNT_MAX_EVENTS];
	bool user_done;
	unsigned long age;
};

/* Calibrations are serialized by the session mutex (START holds it). */
static struct ctx_calib_entry ctx_calib_cache[CTX_CALIB_CACHE];
static unsigned long ctx_calib_clock;
/**
 * struct ctx_calib_storm - a timer firing at one CPU every CTX_CALIB_PERIOD_NS
 * @timer: the pinned hrtimer
 * @stop: local_clock() past which the handler does not re-arm it
 */
struct ctx_calib_storm {
	struct hrtimer timer;
	u64 stop;
};

static struct ctx_calib_storm ctx_calib_storm;	/* kernel-mode runs */
static struct ctx_calib_storm ctx_user_storm;	/* CALIBRATE's runs */
static bool ctx_calib_timer_ready;
static bool ctx_calib_tasklet_on;
static unsigned int ctx_calib_fired;	/* timer interrupts, ever */
static unsigned long ctx_calib_iters;	/* per run: ctx_calib_size() */
/* &struct ctx_cpu_state.user_limit, the least found so far; 0: none */
static unsigned long ctx_calib_user_limit;

static void ctx_calib_tasklet_fn(struct tasklet_struct *t)
{
}

static DECLARE_TASKLET(ctx_calib_tasklet, ctx_calib_tasklet_fn);

static enum hrtimer_restart ctx_calib_fire(struct hrtimer *t)
{
	struct ctx_calib_storm *storm = container_of(t, struct ctx_calib_storm,
						     timer);

	/*
	 * Not when the timer interrupted the softirqs of the last one: they
	 * would run the tasklet again in the same run, which counts as one
	 * more run of softirqs from task context.
	 */
	if (READ_ONCE(ctx_calib_tasklet_on) && !in_serving_softirq())
		tasklet_schedule(&ctx_calib_tasklet);
	WRITE_ONCE(ctx_calib_fired, ctx_calib_fired + 1);
	/*
	 * Where one interrupt takes longer than the period (a slow or
	 * emulated CPU: QEMU -icount with the other vCPU busy) or the client
	 * stops between CALIBRATE's begin and end, the storm would leave its
	 * CPU nothing else to run, for ever. It ends at its deadline; the
	 * run then counts fewer interrupts, or fails.
	 */
	if (local_clock() > READ_ONCE(storm->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(CTX_CALIB_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* @storm fires every CTX_CALIB_PERIOD_NS at this CPU for at most @ns. */
static void ctx_calib_storm_start(struct ctx_calib_storm *storm, u64 ns)
{
	WRITE_ONCE(storm->stop, local_clock() + ns);
	hrtimer_start(&storm->timer, ns_to_ktime(CTX_CALIB_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* The same instructions every iteration, whatever the compiler does. */
static noinline void ctx_calib_loop(unsigned long n)
{
#if defined(CONFIG_ARM64)
	asm volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r" (n) : : "cc");
#elif defined(CONFIG_X86)
	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
#else
	while (n--)
		barrier();
#endif
}

static void ctx_calib_loop_run(const struct ctx_calib_run *run)
{
	unsigned int i;

	if (!run->bh) {
		ctx_calib_loop(ctx_calib_iters);
		return;
	}
	for (i = 0; i < CTX_CALIB_BH_SLICES; i++) {
		local_bh_disable();
		ctx_calib_loop(ctx_calib_iters / CTX_CALIB_BH_SLICES);
		local_bh_enable();
	}
}

/*
 * A run's length: as many loop iterations as take about CTX_CALIB_FIRES
 * storm interrupts on this CPU. How fast the loop runs and how finely the
 * timer fires differ by orders of magnitude between machines (a few
 * microseconds of a fast CPU take only two or three). Return: false if
 * the timer did not fire that often within CTX_CALIB_MAX_NS.
 */
static bool ctx_calib_size(void)
{
	unsigned int fired = READ_ONCE(ctx_calib_fired);
	u64 t0 = local_clock();
	unsigned long n = 0;
	bool enough;

	ctx_calib_storm_start(&ctx_calib_storm, CTX_CALIB_MAX_NS);
	do {
		ctx_calib_loop(CTX_CALIB_CHUNK);
		n += CTX_CALIB_CHUNK;
		enough = READ_ONCE(ctx_calib_fired) - fired >= CTX_CALIB_FIRES;
	} while (!enough && local_clock() - t0 < CTX_CALIB_MAX_NS);
	hrtimer_cancel(&ctx_calib_storm.timer);
	ctx_calib_iters = n;
	return enough;
}

/*
 * A hardirq from user mode reaches the exit hook with the user registers
 * and the interrupt path's frames on the task's stack; one from this loop
 * with the same (its own registers) plus the loop's frames, which end at
 * @sp. Anything deeper than that plus another register frame is kernel
 * mode.
 */
static void ctx_calib_user_depth(struct ctx_cpu_state *st, unsigned long sp)
{
	unsigned long loop = (unsigned long)task_stack_page(current) +
			     THREAD_SIZE - sp;
	unsigned long limit;
	int cpu;

	if (st->exit_depth <= loop)
		return;
	limit = st->exit_depth - loop + sizeof(struct pt_regs);
	if (ctx_calib_user_limit && limit >= ctx_calib_user_limit)
		return;
	ctx_calib_user_limit = limit;
	/* Each CPU's hooks read their own copy. */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&ctx_cpu_state, cpu)->user_limit, limit);
}

/*
 * One run on this CPU: the task bucket's growth per event into @dt, the
 * excursions by kind into @dexc. The timer is started before the first
 * sample and cancelled after the last, so that a quiet and a storm run
 * execute the same instructions between them. Return: false if a context
 * switch closed the interval meanwhile.
 */
static bool ctx_calib_one(struct ctx_acct *a, const struct ctx_calib_run *run,
			  s64 *dt, s64 *dexc)
{
	u64 t0[CTXCOUNT_MAX_EVENTS], t1[CTXCOUNT_MAX_EVENTS];
	struct ctx_cpu_state *st;
	u64 e0[CTX_NR_EXC], e1[CTX_NR_EXC];
	unsigned long sp = current_stack_pointer;
	unsigned int i;
	bool ok;

	/*
	 * Preemptible, as the code hardirqs interrupt usually is (the exit
	 * path checks for preemption); a context switch closes the interval
	 * and the run is repeated.
	 */
	ctx_account_probe_open(a);
	st = this_cpu_ptr(&ctx_cpu_state);
	st->noskip = run->noskip;
	WRITE_ONCE(ctx_calib_tasklet_on, run->tasklet);
	if (run->storm)
		ctx_calib_storm_start(&ctx_calib_storm, CTX_CALIB_BUDGET_NS);
	ctx_account_probe_sample(a, t0, e0);
	ctx_calib_loop_run(run);
	ctx_account_probe_sample(a, t1, e1);
	hrtimer_cancel(&ctx_calib_storm.timer);
	WRITE_ONCE(ctx_calib_tasklet_on, false);
	st->noskip = false;
	ok = ctx_account_probe_close(a);
	if (run->storm && !run->bh)
		ctx_calib_user_depth(st, sp);
	for (i = 0; i < a->nr_events; i++)
		dt[i] = t1[i] - t0[i];
	/* The loop is kernel mode, whatever the hooks took it for. */
	for (i = 0; i < CTX_NR_EXC; i++)
		dexc[i] = e1[i] - e0[i];
	for (i = 0; i < CTX_EXC_SOFTIRQ; i++) {
		dexc[i] += dexc[CTX_EXC_USER + i];
		dexc[CTX_EXC_USER + i] = 0;
	}
	return ok;
}

/*
 * A storm run is clean when besides its own kind only kinds measured by
 * the runs before it in the round landed (their residuals are taken off),
 * and some of its own; a quiet run when nothing landed.
 */
static bool ctx_calib_clean(unsigned int r, const s64 *dexc)
{
	const struct ctx_calib_run *run = &ctx_calib_runs[r];
	unsigned int j;
	int k;

	for (k = 0; k < CTX_NR_EXC; k++) {
		if (!dexc[k] || k == run->kind)
			continue;
		if (run->kind < 0)
			return false;
		for (j = 0; j < r; j++)
			if (ctx_calib_runs[j].kind == k)
				break;
		if (j == r)
			return false;
	}
	return run->kind < 0 || dexc[run->kind] > 0;
}

/*
 * One round of every run: per kind and event, the residual. A storm run
 * is compared with the quiet run before it; what its other excursions
 * (ticks, plain hardirqs of a bh run) are known to leave is taken off.
 */
static bool ctx_calib_round(struct ctx_acct *a, s64 res[][CTXCOUNT_MAX_EVENTS],
			    u64 deadline)
{
	s64 quiet[CTXCOUNT_MAX_EVENTS], dt[CTXCOUNT_MAX_EVENTS];
	s64 dexc[CTX_NR_EXC], sum;
	const struct ctx_calib_run *run;
	unsigned int r, t, i, k;

	for (r = 0; r < ARRAY_SIZE(ctx_calib_runs); r++) {
		run = &ctx_calib_runs[r];
		/* No softirq on a hardirq's way out, none under a held BH. */
		if (IS_ENABLED(CONFIG_PREEMPT_RT) && (run->tasklet || run->bh))
			continue;
		for (t = 0; t < CTX_CALIB_TRIES; t++) {
			if (ctx_calib_one(a, run, dt, dexc) &&
			    ctx_calib_clean(r, dexc))
				break;
		}
		/* START waits, and every other client with it: not for long. */
		if (t == CTX_CALIB_TRIES || local_clock() > deadline)
			return false;
		if (run->kind < 0) {
			memcpy(quiet, dt, sizeof(quiet));
			continue;
		}
		if (!dexc[run->kind])
			continue;
		for (i = 0; i < a->nr_events; i++) {
			sum = dt[i] - quiet[i];
			for (k = 0; k < CTX_NR_EXC; k++)
				if (k != run->kind)
					sum -= dexc[k] * res[k][i];
			res[run->kind][i] = max_t(s64, 0, sum / dexc[run->kind]);
		}
	}
	return true;
}

static int ctx_calib_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static struct ctx_calib_entry *ctx_calib_find(const struct ctx_event_spec *spec,
					      unsigned int nr_events)
{
	struct ctx_calib_entry *e, *oldest = &ctx_calib_cache[0];

	for (e = ctx_calib_cache; e < ctx_calib_cache + CTX_CALIB_CACHE; e++) {
		if (e->nr_events == nr_events &&
		    !memcmp(e->spec, spec, nr_events * sizeof(*spec)))
			return e;
		if (e->age < oldest->age)
			oldest = e;
	}
	memset(oldest, 0, sizeof(*oldest));
	return oldest;
}

/* Measure on the current CPU; the median of the rounds into @e. */
static int ctx_calib_measure(struct ctx_acct *a, struct ctx_calib_entry *e)
{
	static s64 res[CTX_CALIB_ROUNDS][CTX_NR_EXC][CTXCOUNT_MAX_EVENTS];
	u64 deadline = local_clock() + CTX_CALIB_BUDGET_NS;
	s64 v[CTX_CALIB_ROUNDS];
	unsigned int r, k, i;
	int err;

	memset(res, 0, sizeof(res));
	if (!ctx_calib_size())
		return -EAGAIN;
	err = ctx_account_probe_begin(a);
	if (err)
		return err;
	for (r = 0; r < CTX_CALIB_ROUNDS && !err; r++) {
		if (r)
			memcpy(res[r], res[r - 1], sizeof(res[r]));
		if (!ctx_calib_round(a, res[r], deadline))
			err = -EAGAIN;
	}
	ctx_account_probe_end(a);
	if (err)
		return err;
	for (k = 0; k < CTX_EXC_USER; k++) {
		for (i = 0; i < a->nr_events; i++) {
			for (r = 0; r < CTX_CALIB_ROUNDS; r++)
				v[r] = res[r][k][i];
			sort(v, CTX_CALIB_ROUNDS, sizeof(*v), ctx_calib_cmp, NULL);
			e->residual[k][i] = v[CTX_CALIB_ROUNDS / 2];
			/* User mode: see the head comment. */
			if (k < CTX_EXC_SOFTIRQ)
				e->residual[CTX_EXC_USER + k][i] = e->residual[k][i];
		}
	}
	return 0;
}

/* The entry for @spec, measured now if it was not yet; NULL on failure. */
static struct ctx_calib_entry *ctx_calib_entry(struct ctx_acct *a,
					       const struct ctx_event_spec *spec)
{
	struct ctx_calib_entry *e;
	int err;

	if (!ctx_calib_timer_ready) {
		ctx_hrtimer_setup(&ctx_calib_storm.timer, ctx_calib_fire,
				  CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		ctx_hrtimer_setup(&ctx_user_storm.timer, ctx_calib_fire,
				  CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		ctx_calib_timer_ready = true;
	}
	e = ctx_calib_find(spec, a->nr_events);
	if (!e->nr_events) {
		cpus_read_lock();
		migrate_disable();
		err = ctx_calib_measure(a, e);
		migrate_enable();
		cpus_read_unlock();
		if (err) {
			pr_info_ratelimited("calibration failed (%d): no estimate\n",
					    err);
			return NULL;
		}
		e->nr_events = a->nr_events;
		memcpy(e->spec, spec, a->nr_events * sizeof(*spec));
	}
	e->age = ++ctx_calib_clock;
	return e;
}

/**
 * ctx_calib_session() - give @a the residuals of its events
 * @a: halted (or never started), with counters on the current CPU
 * @spec: its events
 *
 * Measured on the current CPU unless an earlier session had the same
 * events. On failure (the task was switched out in every try, no memory)
 * @a keeps what it had; the estimate is then zero for a new session.
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_calib_session(struct ctx_acct *a, const struct ctx_event_spec *spec)
{
	struct ctx_calib_entry *e;

	if (!a->estimate)
		return;
	e = ctx_calib_entry(a, spec);
	if (e)
		memcpy(a->residual, e->residual, sizeof(a->residual));
}

/*
 * User mode: the caller's thread runs a fixed user-mode loop between
 * ctx_calib_user_begin() and ctx_calib_user_end(), once quiet and once
 * with ctx_user_storm firing at its CPU; what the hardirqs that
 * interrupted it left in its task bucket, less what kernel-mode hardirqs
 * leave, is what the architecture's user-mode entry and exit add, the
 * same for every kind of hardirq excursion. One calibration at a time.
 */
static struct {
	struct ctx_acct *a;		/* between begin and end */
	struct ctx_acct *owner;		/* whose runs @have are */
	bool storm;
	u64 t0[CTXCOUNT_MAX_EVENTS], e0[CTX_NR_EXC];
	bool have[2];
	s64 dt[2][CTXCOUNT_MAX_EVENTS], dexc[2][CTX_NR_EXC];
} ctx_user;

/**
 * ctx_calib_user_begin() - start a user-mode run for @a
 * @a: halted (or never started), with counters on the current CPU
 * @spec: its events
 * @storm: fire the timer at this CPU until ctx_calib_user_end()
 *
 * Context: process context, may sleep, session mutex held.
 * Return: 0; -EEXIST when sessions of these events were calibrated
 * already (the run is not needed), -EBUSY when another session is
 * between its begin and end, -ENOMEM, -ENODEV when @a does not count on
 * this CPU (a CPU list), -EAGAIN when kernel mode could not
 * be measured first.
 */
int ctx_calib_user_begin(struct ctx_acct *a, const struct ctx_event_spec *spec,
			 bool storm)
{
	struct ctx_calib_entry *e;
	int err;

	if (ctx_user.a)
		return -EBUSY;
	/* A hint (the caller may move): ctx_account_probe_begin() decides. */
	if (!ctx_account_cpu_listed(a, raw_smp_processor_id()))
		return -ENODEV;
	e = ctx_calib_entry(a, spec);
	if (!e)
		return -EAGAIN;
	if (e->user_done)
		return -EEXIST;
	if (ctx_user.owner != a) {
		memset(ctx_user.have, 0, sizeof(ctx_user.have));
		ctx_user.owner = a;
	}
	cpus_read_lock();
	migrate_disable();
	err = ctx_account_probe_begin(a);
	if (!err) {
		preempt_disable();
		if (storm)
			ctx_calib_storm_start(&ctx_user_storm,
					      CTX_CALIB_BUDGET_NS);
		ctx_account_probe_open(a);
		ctx_account_probe_sample(a, ctx_user.t0, ctx_user.e0);
		preempt_enable();
		ctx_user.a = a;
		ctx_user.storm = storm;
	}
	migrate_enable();
	cpus_read_unlock();
	return err;
}

/* Both runs are in: the user-mode kinds of @e and @a. */
static void ctx_calib_user_apply(struct ctx_acct *a, struct ctx_calib_entry *e)
{
	const int uh = CTX_EXC_USER + CTX_EXC_HARDIRQ;
	s64 n = ctx_user.dexc[1][uh] - ctx_user.dexc[0][uh];
	s64 sum, extra;
	unsigned int i, k;

	if (n <= 0)
		return;
	for (i = 0; i < a->nr_events; i++) {
		sum = ctx_user.dt[1][i] - ctx_user.dt[0][i];
		for (k = 0; k < CTX_NR_EXC; k++)
			if (k != uh)
				sum -= (ctx_user.dexc[1][k] - ctx_user.dexc[0][k]) *
				       (s64)e->residual[k][i];
		extra = sum / n - (s64)e->residual[CTX_EXC_HARDIRQ][i];
		for (k = 0; k < CTX_EXC_SOFTIRQ; k++)
			e->residual[CTX_EXC_USER + k][i] =
				max_t(s64, 0, (s64)e->residual[k][i] + extra);
	}
	e->user_done = true;
	memcpy(a->residual, e->residual, sizeof(a->residual));
}

/**
 * ctx_calib_user_end() - end @a's user-mode run
 * @a: the session of the last ctx_calib_user_begin()
 * @spec: its events
 *
 * After a quiet and a storm run, @a (and later sessions of the same
 * events) gets the user-mode kinds' residuals.
 *
 * Context: process context, may sleep, session mutex held.
 * Return: 0; -EINVAL without a begin; -EAGAIN when the caller changed CPU
 * or was switched out meanwhile (the run does not count: run it again).
 */
int ctx_calib_user_end(struct ctx_acct *a, const struct ctx_event_spec *spec)
{
	u64 t1[CTXCOUNT_MAX_EVENTS], e1[CTX_NR_EXC];
	int run = ctx_user.storm;
	struct ctx_calib_entry *e;
	unsigned int i;
	bool ok;

	if (ctx_user.a != a)
		return -EINVAL;
	cpus_read_lock();
	migrate_disable();
	ok = smp_processor_id() == a->probe_cpu;
	if (ok) {
		preempt_disable();
		ctx_account_probe_sample(a, t1, e1);
		ok = ctx_account_probe_close(a);
		preempt_enable();
	}
	hrtimer_cancel(&ctx_user_storm.timer);
	ctx_account_probe_end(a);
	migrate_enable();
	cpus_read_unlock();
	ctx_user.a = NULL;
	if (!ok)
		return -EAGAIN;
	/*
	 * Whatever else lands in a quiet run only adds to it (a page fault,
	 * a slow path): of several, the least counts.
	 */
	if (!run && ctx_user.have[0] &&
	    t1[0] - ctx_user.t0[0] >= ctx_user.dt[0][0])
		return 0;
	for (i = 0; i < a->nr_events; i++)
		ctx_user.dt[run][i] = t1[i] - ctx_user.t0[i];
	for (i = 0; i < CTX_NR_EXC; i++)
		ctx_user.dexc[run][i] = e1[i] - ctx_user.e0[i];
	ctx_user.have[run] = true;
	e = ctx_calib_find(spec, a->nr_events);
	if (ctx_user.have[0] && ctx_user.have[1] && e->nr_events)
		ctx_calib_user_apply(a, e);
	return 0;
}

/**
 * ctx_calib_user_abort() - @a is going away: drop its user-mode run
 * @a: a session being destroyed
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_calib_user_abort(struct ctx_acct *a)
{
	if (ctx_user.owner == a)
		ctx_user.owner = NULL;
	if (ctx_user.a != a)
		return;
	hrtimer_cancel(&ctx_user_storm.timer);
	cpus_read_lock();
	ctx_account_probe_end(a);
	cpus_read_unlock();
	ctx_user.a = NULL;
}

/**
 * ctx_calib_exit() - stop what calibration may have left behind
 *
 * Context: module exit.
 */
void ctx_calib_exit(void)
{
	if (ctx_calib_timer_ready) {
		hrtimer_cancel(&ctx_calib_storm.timer);
		hrtimer_cancel(&ctx_user_storm.timer);
	}
	tasklet_kill(&ctx_calib_tasklet);
}
