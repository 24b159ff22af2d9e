// SPDX-License-Identifier: GPL-2.0
/*
 * What an excursion from task context leaves on the task's side of the
 * counter reads, measured by the module itself: the architecture's entry
 * and exit code, ftrace's dispatch to the hooks and the hooks up to (from)
 * their reads run in the task's interval and cannot be hooked. READ moves
 * that many counts per excursion out of the task bucket into
 * CTXCOUNT_BUCKET_IRQ_ENTRY_EST.
 *
 * The model (docs/proposals/per-task-counters.md): registers are read
 * first at an entry and last at an exit, the reads through a driver in
 * between, so for an event read from its register
 *
 *	residual = a[path][kind] + c[path][kind] x (other registers read)
 *
 * path being the irq callbacks' inline path or their out-of-line one
 * (cpustate.h's CTX_EXC_SLOW). The hooks count, per CPU, the excursions and
 * the other registers read at each (cpustate.h).
 *
 * Kernel mode, at module load, from a worker on one CPU of each CPU type,
 * with the module's own counters of each event type below that the PMU
 * has: a fixed loop (as long as takes about 25 of the timer's interrupts
 * there) once quiet and once with an hrtimer firing at it every few
 * microseconds, its handler doing nothing (a hardirq), scheduling a
 * tasklet (a hardirq and its softirqs, with the exit read skipped or,
 * forced, done), or with the loop run in slices under local_bh_disable()
 * (softirqs from task context). The task bucket's growth over the quiet
 * run's, less what the other kinds in the run are known to leave, over the
 * number of excursions of the kind, is its residual; the median of five
 * rounds is kept, and the rounds' spread tells whether the event type is
 * measured well enough to apply (cycles of a real CPU are not). Four
 * configurations give a and c of both paths: one and two registers,
 * without and with a counter read through its driver (cpu-clock).
 *
 * User mode needs a user-mode loop, which the module has not got: a
 * privileged client runs one (CTXCOUNT_CMD_SESSION_CALIBRATE,
 * ctx_calib_user_*()); the module measures it with its own counters. Until
 * then hardirqs from user mode are given the kernel-mode figures (READ's
 * feature bits say so). Nothing a client sends is a figure: it only runs
 * the loop.
 */
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "account.h"
#include "calib.h"
#include "compat.h"
#include "cpustate.h"
#include "hooks.h"

#define CTX_CALIB_CHUNK		1000	/* loop iterations, a run's unit */
#define CTX_CALIB_FIRES		25	/* storm interrupts a run should take */
#define CTX_CALIB_MAX_NS	(2 * NSEC_PER_MSEC)	/* to get them */
#define CTX_CALIB_BUDGET_NS	(100 * NSEC_PER_MSEC)	/* a storm, at most */
#define CTX_CALIB_CONFIG_NS	(NSEC_PER_SEC)	/* a configuration */
#define CTX_CALIB_BH_SLICES	25	/* local_bh_disable() slices per run */
#define CTX_CALIB_PERIOD_NS	5000	/* between two timer interrupts */
#define CTX_CALIB_ROUNDS	5
#define CTX_CALIB_TRIES		5	/* per run, while foreign kinds land */
#define CTX_CALIB_CPU_TYPES	4
/* A type is measured well when its rounds agree within this (counts, %). */
#define CTX_CALIB_STABLE_ABS	2
#define CTX_CALIB_STABLE_PCT	2

/* The event types measured, each on its own (config A), twice (B). */
static const struct ctx_event_spec ctx_calib_types[CTX_CALIB_NR_TYPES] = {
	{ .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES },
};

/* A counter read through its driver, for the out-of-line path. */
static const struct ctx_event_spec ctx_calib_driver = {
	.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
};

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
 * struct ctx_calib_fit - the model of one event type on one CPU type
 * @measured: a and c are known (the type's counter is read from its
 *	register there)
 * @stable: the rounds agreed: applied
 * @a: per path and kind (user-mode kinds included), the residual with no
 *	other register read
 * @c: per path and kind, what each other register read adds
 * @spread: per path and kind, the rounds' interquartile range
 * @user: the user-mode kinds were measured (ctx_calib_user_end())
 */
struct ctx_calib_fit {
	bool measured;
	bool stable;
	s64 a[2][CTX_NR_EXC];
	s64 c[2][CTX_NR_EXC];
	u64 spread[2][CTX_NR_EXC];
	bool user;
};

/**
 * struct ctx_calib_cputype - what was measured on one type of CPU
 * @id: the type (compat.h's ctx_cpu_type_id())
 * @fit: per event type
 */
struct ctx_calib_cputype {
	u32 id;
	struct ctx_calib_fit fit[CTX_CALIB_NR_TYPES];
};

/* Written at load (and by a user-mode calibration) under ctx_calib_lock. */
static DEFINE_MUTEX(ctx_calib_lock);
static struct ctx_calib_cputype ctx_cputypes[CTX_CALIB_CPU_TYPES];
static unsigned int ctx_nr_cputypes;
/* Per CPU, its entry in ctx_cputypes, or -1 (not seen at load). */
static DEFINE_PER_CPU(int, ctx_cpu_calib) = -1;
static bool ctx_calib_kernel_done;
static bool ctx_calib_user_done;

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
	 * emulated CPU: QEMU -icount with the other vCPU busy) or a client
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
 * mode. (x86 does not need it: compat.h.)
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

/* Excursions by kind, both paths together (the run decides the path). */
static void ctx_calib_kinds(s64 *dexc, const u64 *e0, const u64 *e1)
{
	unsigned int k;

	for (k = 0; k < CTX_NR_EXC; k++)
		dexc[k] = (e1[k] - e0[k]) +
			  (e1[k + CTX_EXC_SLOW] - e0[k + CTX_EXC_SLOW]);
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
	u64 e0[2 * CTX_NR_EXC_ALL], e1[2 * CTX_NR_EXC_ALL];
	unsigned long sp = current_stack_pointer;
	struct ctx_cpu_state *st;
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
	ctx_calib_kinds(dexc, e0, e1);
	/* The loop is kernel mode, whatever the hooks took it for. */
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

/**
 * struct ctx_calib_result - one configuration measured
 * @med: per kind and event, the median of the rounds
 * @spread: per kind and event, their interquartile range
 */
struct ctx_calib_result {
	s64 med[CTX_NR_EXC][CTXCOUNT_MAX_EVENTS];
	u64 spread[CTX_NR_EXC][CTXCOUNT_MAX_EVENTS];
};

/* Measure @a on the current CPU: the medians of the rounds into @out. */
static int ctx_calib_measure(struct ctx_acct *a, struct ctx_calib_result *out)
{
	static s64 res[CTX_CALIB_ROUNDS][CTX_NR_EXC][CTXCOUNT_MAX_EVENTS];
	u64 deadline = local_clock() + CTX_CALIB_CONFIG_NS;
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
			out->med[k][i] = v[CTX_CALIB_ROUNDS / 2];
			out->spread[k][i] = v[CTX_CALIB_ROUNDS * 3 / 4] -
					    v[CTX_CALIB_ROUNDS / 4];
		}
	}
	return 0;
}

/*
 * The module's own accounting of @nr counters of @spec on @cpu (the
 * current CPU), as a system-wide session's of one CPU; NULL on failure or
 * when the first counter is not read from its register here.
 */
static struct ctx_acct *ctx_calib_acct_new(const struct ctx_event_spec *spec,
					   unsigned int nr, int cpu)
{
	struct perf_event *event[CTXCOUNT_MAX_EVENTS] = { };
	struct perf_event *old[2 * CTXCOUNT_MAX_EVENTS];
	struct ctx_acct *a;
	unsigned int i, gen;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return NULL;
	if (ctx_account_init(a, nr, spec, true, cpumask_of(cpu), false, 0))
		goto err_free;
	for (i = 0; i < nr; i++) {
		event[i] = ctx_counter_create(&spec[i], cpu, NULL, 0, NULL);
		if (IS_ERR(event[i])) {
			event[i] = NULL;
			goto err_events;
		}
	}
	ctx_account_cpu_filled(a, cpu, &gen);
	if (ctx_account_swap_events(a, cpu, event, old, gen))
		goto err_events;
	return a;

err_events:
	for (i = 0; i < nr; i++)
		ctx_counter_release(event[i]);
	ctx_account_destroy(a);
err_free:
	kfree(a);
	return NULL;
}

static void ctx_calib_acct_free(struct ctx_acct *a)
{
	if (!a)
		return;
	ctx_account_destroy(a);
	kfree(a);
}

/* Is event @i of @a read from its register on the current CPU. */
static bool ctx_calib_direct(struct ctx_acct *a, unsigned int i)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(a->cpu);

	return (ac->checked & BIT(i)) && (ac->direct & BIT(i));
}

/*
 * One configuration of type @t on this CPU: @twice its counter, and with
 * the driver's counter (@slow). Return: 0, or -ENODEV when the type's
 * counter is not read from its register here.
 */
static int ctx_calib_config(unsigned int t, bool twice, bool slow,
			    struct ctx_calib_result *out)
{
	struct ctx_event_spec spec[3];
	unsigned int nr = 0;
	struct ctx_acct *a;
	int err;

	spec[nr++] = ctx_calib_types[t];
	if (twice)
		spec[nr++] = ctx_calib_types[t];
	if (slow)
		spec[nr++] = ctx_calib_driver;
	a = ctx_calib_acct_new(spec, nr, smp_processor_id());
	if (!a)
		return -ENODEV;
	err = ctx_calib_measure(a, out);
	if (!err && !ctx_calib_direct(a, 0))
		err = -ENODEV;
	ctx_calib_acct_free(a);
	return err;
}

/* a, c and their spreads of one path, from its one- and two-register runs. */
static void ctx_calib_fit_path(struct ctx_calib_fit *f, unsigned int path,
			       const struct ctx_calib_result *one,
			       const struct ctx_calib_result *two)
{
	unsigned int k;

	for (k = 0; k < CTX_EXC_USER; k++) {
		f->a[path][k] = one->med[k][0];
		f->c[path][k] = two->med[k][0] - one->med[k][0];
		f->spread[path][k] = max(one->spread[k][0], two->spread[k][0]);
	}
	/* Until a user-mode calibration, kernel mode's figures. */
	for (k = 0; k < CTX_EXC_SOFTIRQ; k++) {
		f->a[path][CTX_EXC_USER + k] = f->a[path][k];
		f->c[path][CTX_EXC_USER + k] = f->c[path][k];
		f->spread[path][CTX_EXC_USER + k] = f->spread[path][k];
	}
}

static bool ctx_calib_stable(const struct ctx_calib_fit *f)
{
	unsigned int p;
	u64 tol;

	for (p = 0; p < 2; p++) {
		tol = max_t(u64, CTX_CALIB_STABLE_ABS,
			    abs(f->a[p][CTX_EXC_HARDIRQ]) *
			    CTX_CALIB_STABLE_PCT / 100);
		if (f->spread[p][CTX_EXC_HARDIRQ] > tol)
			return false;
	}
	return true;
}

/* Every event type on this CPU, into @ct. */
static long ctx_calib_cputype_fn(void *arg)
{
	static struct ctx_calib_result r[4];
	struct ctx_calib_cputype *ct = arg;
	struct ctx_calib_fit *f;
	unsigned int t, i;
	int err = 0;

	for (t = 0; t < CTX_CALIB_NR_TYPES; t++) {
		f = &ct->fit[t];
		for (i = 0; i < 4; i++) {
			err = ctx_calib_config(t, i & 1, i & 2, &r[i]);
			if (err)
				break;
		}
		if (err) {
			pr_debug("calibration of event type %u on cpu%d: %d\n",
				 t, smp_processor_id(), err);
			continue;
		}
		ctx_calib_fit_path(f, 0, &r[0], &r[1]);
		ctx_calib_fit_path(f, 1, &r[2], &r[3]);
		f->stable = ctx_calib_stable(f);
		f->measured = true;
		pr_info("cpu%d: %s residual per hardirq %lld (+%lld per register read), %s\n",
			smp_processor_id(),
			t == 0 ? "instructions" : t == 1 ? "branches" : "cycles",
			f->a[0][CTX_EXC_HARDIRQ], f->c[0][CTX_EXC_HARDIRQ],
			f->stable ? "applied" : "not applied: rounds disagree");
	}
	return 0;
}

/*
 * Where hardirqs from user mode reach the exit hook (ctx_irq_from_user(),
 * where the architecture needs a limit): the storm at a kernel-mode loop
 * with the hooks on, no counter needed, so that the limit is known on a
 * machine without a PMU too. Measurements repeat it as they go.
 */
static long ctx_calib_depth_fn(void *arg)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);
	unsigned long sp = current_stack_pointer;
	unsigned int fired;
	u64 t0;

	ctx_account_live_get();
	fired = READ_ONCE(ctx_calib_fired);
	t0 = local_clock();
	ctx_calib_storm_start(&ctx_calib_storm, CTX_CALIB_MAX_NS);
	while (READ_ONCE(ctx_calib_fired) - fired < CTX_CALIB_FIRES &&
	       local_clock() - t0 < CTX_CALIB_MAX_NS)
		ctx_calib_loop(CTX_CALIB_CHUNK);
	hrtimer_cancel(&ctx_calib_storm.timer);
	ctx_calib_user_depth(st, sp);
	ctx_account_live_put();
	return 0;
}

/* The type of @cpu, read there. */
static void ctx_calib_read_type(void *info)
{
	*(u32 *)info = ctx_cpu_type_id();
}

/**
 * ctx_calib_init() - measure the kernel-mode residuals
 *
 * On one online CPU of each CPU type, from a worker bound to it. No
 * session exists yet and nothing global is held: a CPU that goes away
 * meanwhile only leaves its type unmeasured. Where the PMU has none of
 * the event types (x86 under QEMU) this costs nothing.
 *
 * Context: module init, process context, may sleep.
 */
void ctx_calib_init(void)
{
	struct ctx_calib_cputype *ct;
	unsigned int i;
	u32 id;
	int cpu;

	ctx_hrtimer_setup(&ctx_calib_storm.timer, ctx_calib_fire,
			  CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	ctx_hrtimer_setup(&ctx_user_storm.timer, ctx_calib_fire,
			  CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (smp_call_function_single(cpu, ctx_calib_read_type, &id, 1))
			continue;
		for (i = 0; i < ctx_nr_cputypes; i++)
			if (ctx_cputypes[i].id == id)
				break;
		if (i == ctx_nr_cputypes) {
			if (i == CTX_CALIB_CPU_TYPES)
				continue;
			ctx_cputypes[ctx_nr_cputypes++].id = id;
		}
		per_cpu(ctx_cpu_calib, cpu) = i;
	}
	cpus_read_unlock();
	/* The storm's hardirqs go through the hooks, as a session's would. */
	if (ctx_hooks_get())
		return;
	work_on_cpu(raw_smp_processor_id(), ctx_calib_depth_fn, NULL);
	for (i = 0; i < ctx_nr_cputypes; i++) {
		ct = &ctx_cputypes[i];
		for_each_online_cpu(cpu)
			if (per_cpu(ctx_cpu_calib, cpu) == i)
				break;
		if (cpu >= nr_cpu_ids)
			continue;
		mutex_lock(&ctx_calib_lock);
		work_on_cpu(cpu, ctx_calib_cputype_fn, ct);
		mutex_unlock(&ctx_calib_lock);
	}
	ctx_hooks_put();
	for (i = 0; i < ctx_nr_cputypes; i++)
		if (ctx_cputypes[i].fit[0].measured)
			WRITE_ONCE(ctx_calib_kernel_done, true);
}

/* The calibrated type of @spec, or -1. */
static int ctx_calib_type_of(const struct ctx_event_spec *spec)
{
	unsigned int t;

	for (t = 0; t < CTX_CALIB_NR_TYPES; t++)
		if (spec->type == ctx_calib_types[t].type &&
		    (spec->config & 0xffffffffULL) == ctx_calib_types[t].config)
			return t;
	return -1;
}

/**
 * ctx_calib_estimate() - what @cpu's excursions left in an event's task bucket
 * @cpu: the CPU
 * @spec: the event
 * @sum: what the session counted on @cpu
 * @direct: the event was read from its register on @cpu
 * @enabled: the session asked for the estimate
 * @est: set to the estimate (counts)
 * @err: set to its uncertainty (counts)
 * @state: set to enum ctxcount_est_state
 *
 * Context: any; the figures change only at load and at a user-mode
 * calibration, and a READ that races one takes old or new figures.
 */
void ctx_calib_estimate(int cpu, const struct ctx_event_spec *spec,
			const struct ctx_acct_sums *sum, bool direct,
			bool enabled, u64 *est, u64 *err, u32 *state)
{
	const struct ctx_calib_fit *f;
	int t = ctx_calib_type_of(spec), ti = per_cpu(ctx_cpu_calib, cpu);
	unsigned int p, k, i;
	s64 e = 0;
	u64 u = 0;

	*est = 0;
	*err = 0;
	if (!enabled) {
		*state = CTXCOUNT_EST_DISABLED;
		return;
	}
	if (spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL) {
		*state = CTXCOUNT_EST_NONE_NEEDED;
		return;
	}
	f = t >= 0 && ti >= 0 ? &ctx_cputypes[ti].fit[t] : NULL;
	if (!f || !READ_ONCE(f->measured)) {
		*state = CTXCOUNT_EST_NOT_MEASURED;
		return;
	}
	if (!f->stable) {
		*state = CTXCOUNT_EST_UNSTABLE;
		return;
	}
	if (!direct) {
		*state = CTXCOUNT_EST_DRIVER_READ;
		return;
	}
	for (p = 0; p < 2; p++) {
		for (k = 0; k < CTX_NR_EXC; k++) {
			i = k + p * CTX_EXC_SLOW;
			e += f->a[p][k] * (s64)sum->excursions[i] +
			     f->c[p][k] * (s64)sum->exc_reads[i];
			u += f->spread[p][k] * sum->excursions[i];
		}
	}
	*est = max_t(s64, e, 0);
	*err = u;
	*state = CTXCOUNT_EST_APPLIED;
}

/**
 * ctx_calib_features() - what the estimate knows here
 *
 * Return: CTXCOUNT_FEATURE_EST_KERNEL, CTXCOUNT_FEATURE_EST_USER bits.
 */
u32 ctx_calib_features(void)
{
	return (READ_ONCE(ctx_calib_kernel_done) ?
		CTXCOUNT_FEATURE_EST_KERNEL : 0) |
	       (READ_ONCE(ctx_calib_user_done) ? CTXCOUNT_FEATURE_EST_USER : 0);
}

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

/* Has anything been measured on CPU type @ti. */
static bool ctx_calib_measured(int ti)
{
	unsigned int t;

	for (t = 0; t < CTX_CALIB_NR_TYPES; t++)
		if (ctx_cputypes[ti].fit[t].measured)
			return true;
	return false;
}

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
 * kernel-mode one, added to the user-mode kinds of every path.
 */
static void ctx_calib_user_apply(void)
{
	const int uh = CTX_EXC_USER + CTX_EXC_HARDIRQ;
	s64 n = ctx_user.dexc[1][uh] - ctx_user.dexc[0][uh];
	int ti = per_cpu(ctx_cpu_calib, ctx_user.cpu);
	unsigned int i, k, p, others = ctx_user.nr - 1;
	struct ctx_calib_fit *f;
	s64 sum, extra;

	if (n <= 0 || ti < 0)
		return;
	for (i = 0; i < ctx_user.nr; i++) {
		f = &ctx_cputypes[ti].fit[ctx_user.type[i]];
		sum = ctx_user.dt[1][i] - ctx_user.dt[0][i];
		for (k = 0; k < CTX_NR_EXC; k++)
			if (k != uh)
				sum -= (ctx_user.dexc[1][k] - ctx_user.dexc[0][k]) *
				       (f->a[0][k] + f->c[0][k] * others);
		extra = sum / n - (f->a[0][CTX_EXC_HARDIRQ] +
				   f->c[0][CTX_EXC_HARDIRQ] * others);
		for (p = 0; p < 2; p++)
			for (k = 0; k < CTX_EXC_SOFTIRQ; k++)
				f->a[p][CTX_EXC_USER + k] =
					max_t(s64, 0, f->a[p][k] + extra);
		f->user = true;
		pr_info("cpu%d: user-mode hardirqs leave %lld more of event type %u\n",
			ctx_user.cpu, extra, ctx_user.type[i]);
	}
	WRITE_ONCE(ctx_calib_user_done, true);
}

/**
 * ctx_calib_user_end() - end the caller's user-mode run
 * @owner: the client that began it
 *
 * After a quiet and a storm run, user mode is measured for good (until
 * the module is unloaded).
 *
 * Context: process context of a privileged client, may sleep.
 * Return: 0; -EINVAL without a begin of @owner; -EAGAIN when the caller
 * changed CPU or was switched out meanwhile (run it again).
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
	if (ctx_user.have[0] && ctx_user.have[1])
		ctx_calib_user_apply();
out_unlock:
	mutex_unlock(&ctx_calib_lock);
	return err;
}

/**
 * ctx_calib_exit() - stop what calibration may have left behind
 *
 * Context: module exit, no client left.
 */
void ctx_calib_exit(void)
{
	cancel_delayed_work_sync(&ctx_user_expire);
	mutex_lock(&ctx_calib_lock);
	if (ctx_user.open)
		ctx_calib_user_close(NULL, NULL);
	mutex_unlock(&ctx_calib_lock);
	hrtimer_cancel(&ctx_calib_storm.timer);
	hrtimer_cancel(&ctx_user_storm.timer);
	tasklet_kill(&ctx_calib_tasklet);
}
