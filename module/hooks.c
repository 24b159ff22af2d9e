// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks: ftrace callbacks on irq_enter_rcu() and irq_exit_rcu()/irq_exit()
 * and on where perf starts and stops counting a task, probes on the softirq
 * and scheduler tracepoints, and the NMI hook where there is one; what is
 * attached where is listed here, and attached by hooks_attach.c.
 *
 * Each CPU keeps a small stack of the contexts it is in. At a boundary the
 * counts since the previous one are attributed to the context on top (entry)
 * or to the context being left (exit). The stack tolerates hooks that were
 * missed (attached mid-interrupt, ftrace recursion protection): an exit pops
 * down to its matching entry if there is one, and sched_switch, which only
 * runs in task context, empties it (keeping, on PREEMPT_RT, the softirq
 * vector a task is switched out in, for when it resumes).
 *
 * Built without ftrace instrumentation: this code runs in ftrace callbacks.
 */
#include <linux/ctxcount.h>
#include <linux/ftrace.h>
#include <linux/interrupt.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>

#include "account.h"
#include "compat.h"
#include "cpustate.h"
#include "hooks.h"
#include "hooks_int.h"

/*
 * Softirqs raised in a hardirq run on its way out, in the interrupted
 * task's context: not with forced interrupt threading ("threadirqs", or
 * PREEMPT_RT), where ksoftirqd runs them. The kernel does not export that
 * setting; ctx_probe_softirq_inline() finds it out at load.
 */
bool ctx_softirq_inline __read_mostly;

static __always_inline bool ctx_is_softirq(unsigned int bucket)
{
	return bucket >= CTXCOUNT_BUCKET_SOFTIRQ_FIRST &&
	       bucket < CTXCOUNT_BUCKET_SOFTIRQ_FIRST + NR_SOFTIRQS;
}

/*
 * The exit of a hardirq that returns to task context: will softirqs run
 * before anything else, so that the softirq entry's read can close the
 * hardirq's interval? __irq_exit_rcu() runs them when nothing but this
 * hardirq is in the preempt count and some are pending, unless they are
 * threaded (ctx_softirq_inline) or, before 6.5, ksoftirqd is running
 * (ctx_softirq_runs_inline() in compat.h). @pending: the CPU's pending
 * softirqs. Return: 0 no, 1 maybe (only ksoftirqd's state, or calib.c's
 * noskip, is unknown), 2 certainly.
 */
static __always_inline int ctx_softirq_follows(struct ctx_cpu_state *st,
					       u32 pending)
{
	if (!pending || !ctx_softirq_inline ||
	    (preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK)) !=
	    HARDIRQ_OFFSET)
		return 0;
	return ctx_softirq_runs_inline(pending) && !st->noskip ? 2 : 1;
}

/* Where an excursion's count goes: its kind on the path it took. */
static __always_inline void ctx_count_excursion(struct ctx_cpu_state *st,
						unsigned int idx)
{
	st->excursions[idx]++;
	st->exc_reads[idx] += st->others;
}

/*
 * A softirq vector is entered (@bucket): settle what the boundary before
 * it left open (CTX_AFTER_*). Hardirqs are counted at their exit, where
 * their kind is known, except that one counted as a plain hardirq turns
 * out to have run softirqs after its read; softirqs are counted once per
 * run from task context, on the path their intervals take.
 */
static __always_inline void ctx_softirq_begins(struct ctx_cpu_state *st,
					       unsigned int bucket)
{
	unsigned int after = st->after;

	st->after = 0;
	/* The softirqs a deferred hardirq exit left its read to are its own. */
	if (after == CTX_AFTER_DEFER)
		return;
	if (after >= CTX_AFTER_MAYBE) {
		after -= CTX_AFTER_MAYBE;
		st->excursions[after]--;
		st->exc_reads[after] -= st->others;
		ctx_count_excursion(st, after + CTX_EXC_HARDIRQ_THEN_SOFTIRQ -
				    CTX_EXC_HARDIRQ);
		return;
	}
	if (!st->depth && (!after || after >= bucket + 1))
		ctx_count_excursion(st, CTX_EXC_SOFTIRQ +
				    (atomic_long_read(&st->walk) & CTX_WALK_SLOW ?
				     CTX_EXC_SLOW : 0));
}

/* Does this CPU have intervals to find or a stack to rebuild? */
static __always_inline bool ctx_walk_asks_resolve(struct ctx_cpu_state *st)
{
	return atomic_long_read(&st->walk) & (CTX_WALK_RESOLVE | CTX_WALK_RESET);
}

/*
 * Did the hardirq returning to task context interrupt user mode
 * (compat.h's ctx_irq_from_user(), from the callback's stack pointer
 * @sp, the same on its inline and its out-of-line path)?
 * Return: CTX_EXC_USER if it did, else 0.
 */
static __always_inline unsigned int ctx_from_user(struct ctx_cpu_state *st,
						  unsigned long sp)
{
	unsigned long depth = (unsigned long)task_stack_page(current) +
			      THREAD_SIZE - sp;

	st->exit_depth = depth;
	return ctx_irq_from_user(depth, READ_ONCE(st->user_limit)) ?
	       CTX_EXC_USER : 0;
}

/*
 * What a hook runs before the counter read at an entry, and after it at an
 * exit, is counted in the context outside the boundary (for an interrupt,
 * the task's :t). So the bodies are inlined into the callbacks, an entry
 * reads before it does its bookkeeping, and an exit does it before it
 * reads. With no session started, the static branch sends them straight
 * back. @fast: nothing on this CPU needs the out-of-line path
 * (&struct ctx_cpu_state.walk), so the boundary calls nothing and the
 * irq callbacks need no frame; they leave the other case to an
 * out-of-line copy, which first finds the current task's intervals or
 * rebuilds the stack if asked to.
 */
static __always_inline void __ctx_hook_enter(struct ctx_cpu_state *st,
					     unsigned int bucket, bool fast,
					     unsigned long walk)
{
	if (!__ctx_cpu_claim(st))
		return;
	if (!fast && ctx_walk_asks_resolve(st) && !in_nmi())
		ctx_account_resolve(st);
	ctx_account_boundary(st, st->top, fast, true, walk);
	/*
	 * Only a softirq settles what the last boundary left: a hardirq's
	 * exit sets it anew, and an NMI nests anywhere, even between a
	 * deferral and its end.
	 */
	if (ctx_is_softirq(bucket))
		ctx_softirq_begins(st, bucket);
	/* Usually a hardirq from task context. */
	if (bucket == CTXCOUNT_BUCKET_HARDIRQ && likely(!st->depth)) {
		st->stack[0] = bucket;
		st->depth = 1;
		st->top = bucket;
	} else {
		ctx_cpu_push(st, bucket);
	}
	__ctx_cpu_release(st);
}

static __always_inline void __ctx_hook_exit(struct ctx_cpu_state *st,
					    unsigned int bucket)
{
	if (!__ctx_cpu_claim(st))
		return;
	if (ctx_walk_asks_resolve(st) && !in_nmi())
		ctx_account_resolve(st);
	ctx_cpu_pop(st, bucket);
	ctx_account_boundary(st, bucket, false, false, 0);
	if (ctx_is_softirq(bucket) && !st->depth)
		st->after = bucket + 1;
	__ctx_cpu_release(st);
}

/*
 * A hardirq's exit: when softirqs run next, leave the read to the first
 * softirq's entry (one read less, and the code in between is the
 * hardirq's). Back in task context, count the excursion by its kind and
 * path.
 */
static __always_inline void ctx_hook_irq_exit(struct ctx_cpu_state *st,
					      bool fast, unsigned long walk,
					      unsigned long sp)
{
	/* Read before the stores below: one per-CPU offset for both. */
	u32 pending = local_softirq_pending();
	unsigned int kind;
	int follows;

	if (!__ctx_cpu_claim(st))
		return;
	if (!fast && ctx_walk_asks_resolve(st))
		ctx_account_resolve(st);
	/* Usually this hardirq alone on the stack: back to task context. */
	if (likely(st->depth == 1 && st->stack[0] == CTXCOUNT_BUCKET_HARDIRQ)) {
		st->depth = 0;
		st->top = CTXCOUNT_BUCKET_TASK;
	} else {
		ctx_cpu_pop(st, CTXCOUNT_BUCKET_HARDIRQ);
	}
	st->after = 0;
	if (!st->depth) {
		follows = ctx_softirq_follows(st, pending);
		kind = ctx_from_user(st, sp) + (fast ? 0 : CTX_EXC_SLOW);
		if (likely(!follows)) {
			ctx_count_excursion(st, kind + CTX_EXC_HARDIRQ);
		} else if (follows == 2) {
			ctx_count_excursion(st, kind + CTX_EXC_HARDIRQ_SOFTIRQ);
			st->top = CTXCOUNT_BUCKET_HARDIRQ;
			st->after = CTX_AFTER_DEFER;
			goto out;
		} else {
			ctx_count_excursion(st, kind + CTX_EXC_HARDIRQ);
			st->after = CTX_AFTER_MAYBE + kind + CTX_EXC_HARDIRQ;
		}
	}
	ctx_account_boundary(st, CTXCOUNT_BUCKET_HARDIRQ, fast, false, walk);
out:
	__ctx_cpu_release(st);
}

/**
 * ctx_hook_nmi_enter() - this CPU enters an NMI
 *
 * Context: NMI.
 */
void ctx_hook_nmi_enter(void)
{
	struct ctx_cpu_state *st;

	if (!ctx_account_live())
		return;
	st = this_cpu_ptr(&ctx_cpu_state);
	if (!__ctx_cpu_claim(st))
		return;
	ctx_account_resolve_nmi(st);
	ctx_account_boundary_nmi(st, st->top);
	ctx_cpu_push(st, CTXCOUNT_BUCKET_NMI);
	__ctx_cpu_release(st);
}

/**
 * ctx_hook_nmi_exit() - this CPU leaves an NMI
 *
 * Counts since the last boundary go to the NMI even when its entry was
 * missed.
 *
 * Context: NMI.
 */
void ctx_hook_nmi_exit(void)
{
	struct ctx_cpu_state *st;

	if (!ctx_account_live())
		return;
	st = this_cpu_ptr(&ctx_cpu_state);
	if (!__ctx_cpu_claim(st))
		return;
	ctx_cpu_pop(st, CTXCOUNT_BUCKET_NMI);
	ctx_account_boundary_nmi(st, CTXCOUNT_BUCKET_NMI);
	__ctx_cpu_release(st);
}

/* The irq callbacks' case with an interval that needs the driver's read. */
static noinline void ctx_irq_enter_slow(struct ctx_cpu_state *st)
{
	__ctx_hook_enter(st, CTXCOUNT_BUCKET_HARDIRQ, false, 0);
}

static noinline void ctx_irq_exit_slow(struct ctx_cpu_state *st,
				       unsigned long sp)
{
	ctx_hook_irq_exit(st, false, 0, sp);
}

/*
 * ftrace: hardirq entry and exit (device irqs, local timer, most IPIs)
 *
 * No ftrace_test_recursion_trylock(): these callbacks cannot recurse. The
 * hooked functions run with interrupts disabled and the callbacks call
 * nothing that enters or leaves a hardirq; an NMI that lands in one finds
 * the CPU claimed (ctx_cpu_claim()) and does nothing. The lock would only
 * add instructions before the counter read at an entry and after it at an
 * exit, which the task's count keeps. Nor FTRACE_OPS_FL_RECURSION: where
 * ftrace can call an ops directly (x86's per-ops trampolines, arm64's
 * CALL_OPS from 6.3), that flag makes it go through ftrace_ops_assist_func
 * or the list function instead. Where it cannot (arm64 before 6.3: a
 * module's ops is dynamic), ftrace_ops_list_func takes its own lock anyway.
 */

static void ctx_ftrace_irq_enter(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	struct ctx_cpu_state *st;
	unsigned long walk;

	if (!ctx_account_live())
		return;
	st = this_cpu_ptr(&ctx_cpu_state);
	/* One load: START may set bits in it from another CPU meanwhile. */
	walk = atomic_long_read(&st->walk);
	if (unlikely(walk & CTX_WALK_BITS))
		ctx_irq_enter_slow(st);
	else
		__ctx_hook_enter(st, CTXCOUNT_BUCKET_HARDIRQ, true, walk);
}

static void ctx_ftrace_irq_exit(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	struct ctx_cpu_state *st;
	unsigned long walk;

	if (!ctx_account_live())
		return;
	st = this_cpu_ptr(&ctx_cpu_state);
	walk = atomic_long_read(&st->walk);
	if (unlikely(walk & CTX_WALK_BITS))
		ctx_irq_exit_slow(st, current_stack_pointer);
	else
		ctx_hook_irq_exit(st, true, walk, current_stack_pointer);
}

static struct ftrace_ops ctx_irq_enter_ops = {
	.func = ctx_ftrace_irq_enter,
};

static struct ftrace_ops ctx_irq_exit_ops = {
	.func = ctx_ftrace_irq_exit,
};

/*
 * irq_exit() does not call irq_exit_rcu() (both inline __irq_exit_rcu()),
 * but irq_enter() does call irq_enter_rcu(): both exits are hooked so that
 * every hooked entry has a hooked exit.
 */
static const char * const ctx_irq_enter_funcs[] = { "irq_enter_rcu" };
static const char * const ctx_irq_exit_funcs[] = { "irq_exit_rcu", "irq_exit" };

/*
 * ftrace: where perf starts and stops counting a task. perf_event_exec(),
 * in begin_new_exec(), enables enable_on_exec events. perf_event_exit_task()
 * detaches every per-task event of a task: in do_exit() (before exit_mm(),
 * so the exit's teardown is not counted) and in begin_new_exec() when the
 * new image is not SUID_DUMP_USER, once commit_creds() has made that
 * final. Both callers pass current (checked in 6.1 and 6.12); both
 * functions are in available_filter_functions on every target. Not on the
 * hot path: these ops leave recursion protection to ftrace.
 */

/* Who keeps the task sets: the sessions (main.c wires them in). */
const struct ctx_task_hooks *ctx_task_hooks __read_mostly;

static void ctx_ftrace_exec(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ctx_task_hooks->exec(current);
}

static void ctx_ftrace_perf_exit(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	ctx_task_hooks->perf_exit(current);
	ctx_account_drop_current();
}

static struct ftrace_ops ctx_exec_ops = {
	.func = ctx_ftrace_exec,
};

static struct ftrace_ops ctx_perf_exit_ops = {
	.func = ctx_ftrace_perf_exit,
};

static const char * const ctx_exec_funcs[] = { "perf_event_exec" };
static const char * const ctx_perf_exit_funcs[] = { "perf_event_exit_task" };

/*
 * In the order they are registered: exit first, entry last. Where ftrace
 * calls every ops from its list function (arm64 before 6.3), the ops
 * registered last is tested and called first: at an irq entry the entry
 * callback runs before every other ops' filter test, at an irq exit the
 * exit callback after all of them, so no test runs on the task's side of
 * a read (the exec and exit ops, in between, cost each hardirq two tests
 * there, on its own side).
 */
const struct ctx_ftrace_hook ctx_ftrace_hooks[CTX_NR_FTRACE_HOOKS] = {
	{ &ctx_irq_exit_ops, ctx_irq_exit_funcs, ARRAY_SIZE(ctx_irq_exit_funcs) },
	{ &ctx_perf_exit_ops, ctx_perf_exit_funcs, ARRAY_SIZE(ctx_perf_exit_funcs) },
	{ &ctx_exec_ops, ctx_exec_funcs, ARRAY_SIZE(ctx_exec_funcs) },
	{ &ctx_irq_enter_ops, ctx_irq_enter_funcs, ARRAY_SIZE(ctx_irq_enter_funcs) },
};

/* tracepoints */

static void ctx_probe_softirq_entry(void *data, unsigned int vec_nr)
{
	struct ctx_cpu_state *st;
	unsigned long flags;

	if (!ctx_account_live() || vec_nr >= NR_SOFTIRQS)
		return;
	/* Softirq tracepoints run with interrupts enabled. */
	local_irq_save(flags);
	st = this_cpu_ptr(&ctx_cpu_state);
	__ctx_hook_enter(st, CTXCOUNT_BUCKET_SOFTIRQ_FIRST + vec_nr, false, 0);
	local_irq_restore(flags);
}

static void ctx_probe_softirq_exit(void *data, unsigned int vec_nr)
{
	struct ctx_cpu_state *st;
	unsigned long flags;

	if (!ctx_account_live() || vec_nr >= NR_SOFTIRQS)
		return;
	local_irq_save(flags);
	st = this_cpu_ptr(&ctx_cpu_state);
	__ctx_hook_exit(st, CTXCOUNT_BUCKET_SOFTIRQ_FIRST + vec_nr);
	local_irq_restore(flags);
}

/*
 * A task switched out in the middle of a softirq vector's handler (only on
 * PREEMPT_RT, where softirqs run preemptible in task context under the
 * per-CPU BH lock, see compat.h) resumes it later, on the same CPU: the
 * BH lock disables migration. The same lock lets only one task per CPU
 * run softirq handlers at a time, so one slot per CPU is enough to
 * remember the task and its vector. Everything else stacked at a switch
 * is stale: hardirqs and NMIs never schedule.
 */

/* @prev leaves: empty the stack; return the context it was in. */
static unsigned int ctx_switch_out(struct ctx_cpu_state *st,
				   const struct task_struct *prev)
{
	unsigned int d = st->depth;

	st->depth = 0;
	if (!ctx_task_serving_softirq(prev))
		return CTXCOUNT_BUCKET_TASK;
	while (d--) {
		if (ctx_is_softirq(st->stack[d])) {
			st->bh_task = prev;
			st->bh_bucket = st->stack[d];
			return st->bh_bucket;
		}
	}
	/* Between two vectors, or the entry was missed: task context. */
	return CTXCOUNT_BUCKET_TASK;
}

/* @next arrives: give it back the vector it was switched out in. */
static void ctx_switch_in(struct ctx_cpu_state *st,
			  const struct task_struct *next)
{
	if (st->bh_task != next)
		return;
	st->bh_task = NULL;
	if (ctx_task_serving_softirq(next))
		ctx_cpu_push(st, st->bh_bucket);
}

static void ctx_probe_sched_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);
	unsigned int bucket;

	/* Interrupts are disabled and this is no NMI: cannot fail. */
	if (!ctx_account_live() || !ctx_cpu_claim())
		return;
	/* With nothing stacked, maybe a hardirq that deferred its read. */
	bucket = st->depth ? ctx_switch_out(st, prev) : st->top;
	st->depth = 0;
	st->top = CTXCOUNT_BUCKET_TASK;
	st->after = 0;
	ctx_account_switch(prev, next, bucket);
	ctx_switch_in(st, next);
	ctx_cpu_release();
}

static void ctx_probe_sched_process_fork(void *data,
					 struct task_struct *parent,
					 struct task_struct *child)
{
	ctx_task_hooks->fork(parent, child);
}

static void ctx_probe_sched_process_exit(void *data,
					 CTX_SCHED_PROCESS_EXIT_ARGS(p))
{
	ctx_task_hooks->exit(p);
}

/*
 * Exits before entries: while the hooks come up one at a time, an exit
 * without its entry is harmless, an entry without its exit is not.
 *
 * A session may count the softirq tracepoints themselves
 * (irq:softirq_entry): perf's probe, registered when the first perf event
 * of that tracepoint is opened, counts it. Probes of equal priority run
 * in the order they were registered, which would put the count of
 * softirq_entry in the softirq's bucket or in the interrupted context's
 * depending on whether the user's proof or the module's hooks came
 * first. So the entry probe runs before every default-priority probe and
 * the exit probe after them: both events count inside the vector.
 */
struct ctx_tracepoint ctx_tracepoints[CTX_NR_TRACEPOINTS] = {
	{ .name = "sched_process_fork", .probe = ctx_probe_sched_process_fork,
	  .prio = TRACEPOINT_DEFAULT_PRIO },
	{ .name = "sched_process_exit", .probe = ctx_probe_sched_process_exit,
	  .prio = TRACEPOINT_DEFAULT_PRIO },
	{ .name = "sched_switch", .probe = ctx_probe_sched_switch,
	  .prio = TRACEPOINT_DEFAULT_PRIO },
	{ .name = "softirq_exit", .probe = ctx_probe_softirq_exit,
	  .prio = TRACEPOINT_DEFAULT_PRIO - 1 },
	{ .name = "softirq_entry", .probe = ctx_probe_softirq_entry,
	  .prio = TRACEPOINT_DEFAULT_PRIO + 1 },
};

/* The probes above must match the kernel's prototypes: checked here. */
static void __maybe_unused ctx_check_probe_types(void)
{
	check_trace_callback_type_softirq_entry(ctx_probe_softirq_entry);
	check_trace_callback_type_softirq_exit(ctx_probe_softirq_exit);
	check_trace_callback_type_sched_switch(ctx_probe_sched_switch);
	check_trace_callback_type_sched_process_fork(ctx_probe_sched_process_fork);
	check_trace_callback_type_sched_process_exit(ctx_probe_sched_process_exit);
}
