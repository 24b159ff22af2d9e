// SPDX-License-Identifier: GPL-2.0
/*
 * What an excursion from task context leaves on the task's side of the
 * counter reads, measured by the module itself: the architecture's entry
 * and exit code, ftrace's dispatch to the hooks and the hooks up to (from)
 * their reads run in the task's interval and cannot be hooked. READ moves
 * that many counts per excursion out of the task bucket into
 * CTXCOUNT_BUCKET_IRQ_ENTRY_EST.
 *
 * The model (docs/design/estimate.md): registers are read
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
 * The figures live in calib_est.c; user mode is measured by calib_user.c.
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
#include "account_cpu.h"
#include "account_ctl.h"
#include "account_probe.h"
#include "calib_int.h"
#include "compat.h"
#include "cpustate.h"
#include "hooks.h"

#define CTX_CALIB_CHUNK		1000	/* loop iterations, a run's unit */
#define CTX_CALIB_FIRES		25	/* storm interrupts a run should take */
#define CTX_CALIB_MAX_NS	(2 * NSEC_PER_MSEC)	/* to get them */
#define CTX_CALIB_CONFIG_NS	(NSEC_PER_SEC)	/* a configuration */
#define CTX_CALIB_BH_SLICES	25	/* local_bh_disable() slices per run */
#define CTX_CALIB_PERIOD_NS	5000	/* between two timer interrupts */
#define CTX_CALIB_ROUNDS	5
#define CTX_CALIB_TRIES		5	/* per run, while foreign kinds land */
/* A type is measured well when its rounds agree within this (counts, %). */
#define CTX_CALIB_STABLE_ABS	2
#define CTX_CALIB_STABLE_PCT	2

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

static struct ctx_calib_storm ctx_calib_storm;	/* kernel-mode runs */
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

/* @storm's timer, set up once before its first start. */
void ctx_calib_storm_setup(struct ctx_calib_storm *storm)
{
	ctx_hrtimer_setup(&storm->timer, ctx_calib_fire, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_HARD);
}

/* @storm fires every CTX_CALIB_PERIOD_NS at this CPU for at most @ns. */
void ctx_calib_storm_start(struct ctx_calib_storm *storm, u64 ns)
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
void ctx_calib_kinds(s64 *dexc, const u64 *e0, const u64 *e1)
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
struct ctx_acct *ctx_calib_acct_new(const struct ctx_event_spec *spec,
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

void ctx_calib_acct_free(struct ctx_acct *a)
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
	ctx_calib_fit_user_as_kernel(f, path);
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
long ctx_calib_cputype_fn(void *arg)
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

	ctx_calib_storm_setup(&ctx_calib_storm);
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

/**
 * ctx_calib_exit() - stop what the kernel-mode measurement may have left
 *
 * Context: module exit, after ctx_calib_user_exit().
 */
void ctx_calib_exit(void)
{
	hrtimer_cancel(&ctx_calib_storm.timer);
	tasklet_kill(&ctx_calib_tasklet);
}
