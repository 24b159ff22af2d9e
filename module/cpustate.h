/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which context each CPU is in: a small stack of the contexts entered and
 * not yet left, kept by the hooks (hooks.c) and read by the accounting
 * (account.c). Also the per-CPU counts of interrupts taken from task
 * context, by kind, from which the accounting estimates what interrupts
 * left in the task's count.
 *
 * Everything here is per CPU and touched only by that CPU, with interrupts
 * disabled and the CPU claimed against NMIs (ctx_cpu_claim()).
 */
#ifndef _CTXCOUNT_CPUSTATE_H
#define _CTXCOUNT_CPUSTATE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/ctxcount.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/types.h>

/*
 * Task, softirq, hardirq, NMI, plus slack for nested hardirq entries and
 * the handler windows of sources sessions (at most three deep: an IPI or
 * vector, a demultiplexed irq in it, an NMI).
 */
#define CTX_MAX_NESTING	8

/*
 * The pseudo-context of an interrupt handler's window (sources.h): not a
 * UAPI bucket. What is counted in it goes to a row of its own in every
 * session's sums (&struct ctx_acct_sums.buckets), which the handler's exit
 * moves to the handler's source row, or to the hardirq bucket for a
 * session without sources.
 */
#define CTX_SRC		(CTXCOUNT_BUCKET_SOFTIRQ_RCU + 1)

/**
 * enum ctx_excursion - how a CPU left task context and came back
 * @CTX_EXC_HARDIRQ: a hardirq, and back to the task
 * @CTX_EXC_HARDIRQ_SOFTIRQ: a hardirq that ran softirqs on its way out,
 *	its exit read skipped (the softirq entry closed its interval)
 * @CTX_EXC_HARDIRQ_THEN_SOFTIRQ: the same with the exit read done (the
 *	kernel did not let the hook know a softirq would follow)
 * @CTX_EXC_SOFTIRQ: softirqs run from task context (local_bh_enable(), a
 *	softirq-serving thread); always in kernel mode
 * @CTX_EXC_USER: added to the first three when the hardirq interrupted
 *	user mode: the architecture's entry and exit code differ
 * @CTX_NR_EXC: number of kinds
 *
 * Each kind leaves its own fixed amount of code on the task's side of the
 * counter reads (the architecture's entry and exit code, ftrace's dispatch,
 * the reads themselves): calib.c measures it.
 */
enum ctx_excursion {
	CTX_EXC_HARDIRQ,
	CTX_EXC_HARDIRQ_SOFTIRQ,
	CTX_EXC_HARDIRQ_THEN_SOFTIRQ,
	CTX_EXC_SOFTIRQ,
	CTX_EXC_USER,
	CTX_NR_EXC = CTX_EXC_USER + CTX_EXC_SOFTIRQ
};

/*
 * The path an excursion's boundaries took, which decides how much of the
 * hooks lies on the task's side of the reads (calib.c): the irq
 * callbacks' inline path (every open interval read from the registers)
 * or the out-of-line one. &struct ctx_cpu_state.excursions holds the
 * counts of both, kind + CTX_EXC_SLOW for the second.
 */
#define CTX_EXC_SLOW	CTX_NR_EXC
#define CTX_NR_EXC_ALL	(2 * CTX_NR_EXC)

/*
 * What the last boundary left for the next one to settle (&struct
 * ctx_cpu_state.after): 0 nothing; 1 + a softirq vector whose exit at the
 * stack's bottom it was (softirqs of one run come in rising vector order,
 * so a vector not above it starts a new run); CTX_AFTER_DEFER a hardirq
 * exit that left its read to the softirqs that run next;
 * CTX_AFTER_MAYBE + its kind a hardirq exit counted as CTX_EXC_HARDIRQ
 * (+ CTX_EXC_USER) though softirqs may run right after it: if they do, it
 * was CTX_EXC_HARDIRQ_THEN_SOFTIRQ.
 */
#define CTX_AFTER_MAYBE	0x40
#define CTX_AFTER_DEFER	0x80

/*
 * &struct ctx_cpu_state.walk's low bits, each sending the irq callbacks to
 * their out-of-line path: not every interval can be read inline; the
 * intervals of the task on the CPU are to be found (a switch-in, START);
 * the context stack is to be rebuilt (the hooks were off). The CPU itself
 * and START set them, so every change is atomic.
 */
#define CTX_WALK_SLOW		1UL
#define CTX_WALK_RESOLVE	2UL
#define CTX_WALK_RESET		4UL
#define CTX_WALK_BITS		(CTX_WALK_SLOW | CTX_WALK_RESOLVE | CTX_WALK_RESET)

/**
 * struct ctx_cpu_state - which context a CPU is in
 * @active: the sessions with an interval open on this CPU (struct
 *	ctx_acct_cpu, account.c): what a boundary reads
 * @walk: what the irq callbacks walk: @active's first node, with
 *	CTX_WALK_SLOW set when an interval there has a counter that is not
 *	read from its register, or an event without a counter: then they take
 *	the path that calls the driver's read (account.c keeps it with
 *	@active); CTX_WALK_RESOLVE and CTX_WALK_RESET (above) send them there
 *	too. One load tells all.
 * @others: counters read from their registers at a boundary, over every
 *	open interval, less one (0 when none): what lies on the task's side
 *	of each one's read besides the hooks themselves (account.c keeps it
 *	with @walk)
 * @stack: contexts entered and not yet left (enum ctxcount_bucket, or
 *	CTX_SRC)
 * @depth: entries in @stack; task context when 0
 * @top: the context the counts since the last boundary belong to: the top
 *	of @stack (task context when empty) or, after a hardirq whose exit
 *	left its read to the softirqs that run next, that hardirq
 * @busy: a hook or accounting IPI is running; an NMI that finds it set does
 *	nothing, so its counts fold into the interrupted context
 * @after: what the last boundary left to the next (CTX_AFTER_*)
 * @noskip: calib.c: exits read even when softirqs follow
 * @bh_bucket: PREEMPT_RT only: the vector @bh_task was switched out in
 * @exit_depth: kernel stack in use when the last hardirq that returned to
 *	task context reached the exit hook (calib.c)
 * @user_limit: a hardirq returning to task context that reaches the exit
 *	hook with less kernel stack in use than this interrupted user mode
 *	(0: not known yet, every hardirq counts as from kernel mode); the
 *	same on every CPU, set by calib.c
 * @bh_task: PREEMPT_RT only: the task switched out in the middle of a
 *	softirq vector's handler on this CPU (compared, never dereferenced)
 * @switched_in: the task the last switch hook let in (compared, never
 *	dereferenced): an NMI finds intervals only for it, never between that
 *	hook and the switch itself, where current is still the task leaving
 * @excursions: excursions from task context taken on this CPU, by kind
 *	(enum ctx_excursion, + CTX_EXC_SLOW on the out-of-line path); only
 *	counted while the hooks are live. A hardirq is counted at its exit,
 *	a run of softirqs at its first entry.
 * @exc_reads: per excursion counted in @excursions, @others then
 * @src_key: for each CTX_SRC entry of @stack, its source's key
 *	(sources.h); meaningless for other entries
 * @src_name: the same entries' handler names (the irqaction's, valid
 *	while the handler runs), for a claim before the handler's exit
 *
 * One structure, so that a hook computes one per-CPU address.
 */
struct ctx_cpu_state {
	struct hlist_head active;
	atomic_long_t walk;
	unsigned int others;
	u8 stack[CTX_MAX_NESTING];
	u8 depth;
	u8 top;
	bool busy;
	u8 after;
	bool noskip;
	u8 bh_bucket;
	unsigned long exit_depth;
	unsigned long user_limit;
	const struct task_struct *bh_task;
	const struct task_struct *switched_in;
	u64 excursions[CTX_NR_EXC_ALL];
	u64 exc_reads[CTX_NR_EXC_ALL];
	u32 src_key[CTX_MAX_NESTING];
	const char *src_name[CTX_MAX_NESTING];
};

DECLARE_PER_CPU(struct ctx_cpu_state, ctx_cpu_state);

/*
 * Per CPU, its entry in the estimate's measured CPU types (calib_est.h),
 * or -1 (not seen at load). Here, not with the estimate: the per-thread
 * rows tag each settle with it, below the estimate (scripts/layers).
 */
/* CPU types the estimate tells apart (big.LITTLE and the like). */
#define CTX_CALIB_CPU_TYPES	4

DECLARE_PER_CPU(int, ctx_cpu_calib);

/**
 * ctx_calib_cpu_type() - which measured CPU type @cpu is
 * @cpu: a CPU
 *
 * Inline: the hooks' files are built without ftrace instrumentation.
 *
 * Return: 0 to CTX_CALIB_CPU_TYPES - 1, or -1 when @cpu was not seen at
 * load.
 */
static inline int ctx_calib_cpu_type(int cpu)
{
	return per_cpu(ctx_cpu_calib, cpu);
}

#ifdef CONFIG_X86
/**
 * __ctx_cpu_claim() - take this CPU's context state
 * @st: this CPU's state
 *
 * Everything else that runs on the CPU is excluded by disabled interrupts;
 * this excludes NMIs, which cannot be masked and have hooks of their own
 * on x86 (nmi_x86.c). Elsewhere no hook runs in an NMI and this is free.
 *
 * Context: interrupts disabled, or NMI.
 * Return: false if the CPU is already claimed (only possible in an NMI).
 */
static __always_inline bool __ctx_cpu_claim(struct ctx_cpu_state *st)
{
	if (READ_ONCE(st->busy))
		return false;
	WRITE_ONCE(st->busy, true);
	/* An NMI is on this CPU: a compiler barrier orders against it. */
	barrier();
	return true;
}

/**
 * __ctx_cpu_release() - release what __ctx_cpu_claim() took
 * @st: this CPU's state
 */
static __always_inline void __ctx_cpu_release(struct ctx_cpu_state *st)
{
	barrier();
	WRITE_ONCE(st->busy, false);
}
#else
static __always_inline bool __ctx_cpu_claim(struct ctx_cpu_state *st)
{
	return true;
}

static __always_inline void __ctx_cpu_release(struct ctx_cpu_state *st)
{
}
#endif /* CONFIG_X86 */

/**
 * ctx_cpu_claim() - __ctx_cpu_claim() of this CPU
 *
 * Context: interrupts disabled, or NMI.
 * Return: false if the CPU is already claimed (only possible in an NMI).
 */
static __always_inline bool ctx_cpu_claim(void)
{
	return __ctx_cpu_claim(this_cpu_ptr(&ctx_cpu_state));
}

/**
 * ctx_cpu_release() - release what ctx_cpu_claim() took
 */
static __always_inline void ctx_cpu_release(void)
{
	__ctx_cpu_release(this_cpu_ptr(&ctx_cpu_state));
}

/**
 * ctx_cpu_push() - a context is entered
 * @st: this CPU's state
 * @bucket: the context (enum ctxcount_bucket)
 */
static __always_inline void ctx_cpu_push(struct ctx_cpu_state *st,
					 unsigned int bucket)
{
	unsigned int d = st->depth;

	/* Deeper than any real nesting: the entry was stale, drop this one. */
	if (likely(d < CTX_MAX_NESTING)) {
		st->stack[d] = bucket;
		st->depth = d + 1;
	}
	st->top = bucket;
}

/**
 * ctx_cpu_pop() - a context is left
 * @st: this CPU's state
 * @bucket: the context (enum ctxcount_bucket)
 *
 * Pops down to its matching entry, dropping entries whose exit was missed;
 * without a matching entry the stack is left alone.
 */
static __always_inline void ctx_cpu_pop(struct ctx_cpu_state *st,
					unsigned int bucket)
{
	unsigned int d = st->depth;

	/* Usually the entry on top; else look further down. */
	if (likely(d && st->stack[d - 1] == bucket)) {
		d--;
	} else {
		for (; d > 0; d--) {
			if (st->stack[d - 1] == bucket)
				break;
		}
		if (!d) {
			d = st->depth;
			goto out;
		}
		d--;
	}
	st->depth = d;
out:
	st->top = d ? st->stack[d - 1] : CTXCOUNT_BUCKET_TASK;
}

/**
 * ctx_cpu_push_src() - a handler window is entered
 * @st: this CPU's state
 * @key: its source's key (sources.h)
 * @name: the handler's name, valid until its exit
 *
 * Unlike ctx_cpu_push(), a window that finds the stack full is not
 * entered at all: its counts stay with the context below.
 */
static __always_inline void ctx_cpu_push_src(struct ctx_cpu_state *st,
					     u32 key, const char *name)
{
	unsigned int d = st->depth;

	if (likely(d < CTX_MAX_NESTING)) {
		st->stack[d] = CTX_SRC;
		st->src_key[d] = key;
		st->src_name[d] = name;
		st->depth = d + 1;
		st->top = CTX_SRC;
	}
}

/**
 * ctx_cpu_pop_src() - a handler window is left
 * @st: this CPU's state
 * @key: its source's key
 *
 * Pops down to the window's entry, dropping entries whose exit was
 * missed; without one the stack is left alone.
 *
 * Return: true if the window's entry was there.
 */
static __always_inline bool ctx_cpu_pop_src(struct ctx_cpu_state *st, u32 key)
{
	unsigned int d;

	for (d = st->depth; d > 0; d--) {
		if (st->stack[d - 1] == CTX_SRC && st->src_key[d - 1] == key)
			break;
	}
	if (!d)
		return false;
	d--;
	st->depth = d;
	st->top = d ? st->stack[d - 1] : CTXCOUNT_BUCKET_TASK;
	return true;
}

/**
 * ctx_cpu_src_top() - the handler window the CPU is in, if any
 * @st: this CPU's state
 * @name: set to its handler's name
 *
 * Return: its source's key, or 0 when the counts belong to no window.
 */
static __always_inline u32 ctx_cpu_src_top(const struct ctx_cpu_state *st,
					   const char **name)
{
	unsigned int d = st->depth;

	if (st->top != CTX_SRC || !d || st->stack[d - 1] != CTX_SRC)
		return 0;
	*name = st->src_name[d - 1];
	return st->src_key[d - 1];
}

/**
 * ctx_cpu_context() - the context this CPU's counts belong to right now
 *
 * Context: CPU claimed.
 * Return: an enum ctxcount_bucket value.
 */
static __always_inline unsigned int ctx_cpu_context(void)
{
	return this_cpu_ptr(&ctx_cpu_state)->top;
}

/**
 * ctx_cpu_reset() - rebuild this CPU's stack after the hooks were off
 *
 * Nothing was kept while they were off (CTX_WALK_RESET). Inside a hardirq
 * (the one whose hook runs now, or one it nests in) the stack is that
 * hardirq, else task context. A softirq it interrupted is not known; its
 * exit still attributes to it (an exit charges the context it leaves).
 *
 * Context: CPU claimed, hooks on.
 */
static inline void ctx_cpu_reset(void)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);

	st->depth = 0;
	st->top = CTXCOUNT_BUCKET_TASK;
	st->after = 0;
	st->bh_task = NULL;
	if (hardirq_count())
		ctx_cpu_push(st, CTXCOUNT_BUCKET_HARDIRQ);
}

/**
 * ctx_cpu_excursions() - this CPU's excursion counts
 *
 * Context: CPU claimed.
 * Return: CTX_NR_EXC_ALL counts (&struct ctx_cpu_state.excursions).
 */
static __always_inline const u64 *ctx_cpu_excursions(void)
{
	return this_cpu_ptr(&ctx_cpu_state)->excursions;
}

#endif /* _CTXCOUNT_CPUSTATE_H */
