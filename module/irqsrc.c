// SPDX-License-Identifier: GPL-2.0
/*
 * Handler windows for per-source hardirq rows (sources.h): probes on
 * irq_handler_entry/exit, which every flow handler fires around each
 * irqaction it runs (a shared line gives one window per action), and on
 * x86 on the system vectors' tracepoints (irq_vectors: local timer, IPIs,
 * irq_work, ...), which have no irqaction. None of them is exported: they
 * are found by name, as hooks.c finds the softirq tracepoints, and
 * attached only while a session with sources exists (ctx_irqsrc_get()).
 *
 * By default only the exit probes are attached: a handler's row is what
 * the hardirq counted from its previous boundary (its entry, or the exit
 * of the handler before) to the handler's exit, so the flow handler's
 * work before the handler is in the row, and a run costs one read. With
 * irq_source_entry_reads the entry probes read too: the row is the handler
 * alone and that work stays outside, for a second read per run. Either
 * way every count stays in the hardirq bucket: :t is the same.
 *
 * A window is split out only when the CPU's context is a hardirq or
 * another window: handlers that run elsewhere (the resend tasklet, irq
 * threads calling generic_handle_irq_safe(), NMI-mode handlers) stay in
 * the enclosing context's bucket. As at the other hooks, an entry reads
 * before its bookkeeping and an exit does its bookkeeping before the read:
 * what lies between the two reads is the handler's row.
 *
 * Built without ftrace instrumentation: the probes run inside hardirqs.
 */
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/trace/irq_vectors.h>
#endif

#include "account.h"
#include "cpustate.h"
#include "irqsrc.h"
#include "sources.h"

static bool irq_source_entry_reads;
module_param(irq_source_entry_reads, bool, 0444);
MODULE_PARM_DESC(irq_source_entry_reads,
		 "Per-source rows: read at each handler's entry too, a row is then the handler alone (default N: one read per handler run)");

static __always_inline void ctx_src_enter(u32 key, const char *name)
{
	struct ctx_cpu_state *st;
	const char *outer_name;
	unsigned int top;
	u32 outer;

	if (!ctx_src_is_live())
		return;
	st = this_cpu_ptr(&ctx_cpu_state);
	if (!__ctx_cpu_claim(st))
		return;
	top = st->top;
	if (top == CTXCOUNT_BUCKET_HARDIRQ) {
		ctx_account_boundary(st, CTXCOUNT_BUCKET_HARDIRQ, false, false, 0);
		ctx_cpu_push_src(st, key, name);
	} else if (top == CTX_SRC) {
		/* A window inside another one (a demultiplexed irq). */
		outer = ctx_cpu_src_top(st, &outer_name);
		if (outer)
			ctx_src_close(st, outer, outer_name, false);
		ctx_cpu_push_src(st, key, name);
	}
	__ctx_cpu_release(st);
}

static __always_inline void ctx_src_exit(u32 key, const char *name)
{
	struct ctx_cpu_state *st;

	if (!ctx_src_is_live())
		return;
	st = this_cpu_ptr(&ctx_cpu_state);
	if (!__ctx_cpu_claim(st))
		return;
	/*
	 * Without its entry (no entry probes, or sources came on inside the
	 * handler) the window is what the hardirq counted since its last
	 * boundary.
	 */
	if (ctx_cpu_pop_src(st, key) || st->top == CTXCOUNT_BUCKET_HARDIRQ)
		ctx_src_close(st, key, name, true);
	__ctx_cpu_release(st);
}

/* Handlers run with interrupts disabled; some in NMI mode (pseudo-NMI). */
static void ctx_probe_irq_handler_entry(void *data, int irq,
					struct irqaction *action)
{
	if (in_nmi())
		return;
	ctx_src_enter(irq + 1, action->name);
}

static void ctx_probe_irq_handler_exit(void *data, int irq,
				       struct irqaction *action, int ret)
{
	if (in_nmi())
		return;
	ctx_src_exit(irq + 1, action->name);
}

/**
 * struct ctx_src_tp - a tracepoint pair that opens and closes windows
 * @entry: the entry event's name
 * @exit: the exit event's name
 * @name: the source's name in READ (a vector's), NULL for irq handlers
 * @enter_probe: the entry probe
 * @exit_probe: the exit probe
 * @tp_entry: the entry tracepoint, once found
 * @tp_exit: the exit tracepoint, once found
 * @attached: the exit probe is attached, and with irq_source_entry_reads
 *	the entry probe
 */
struct ctx_src_tp {
	const char *entry;
	const char *exit;
	const char *name;
	void *enter_probe;
	void *exit_probe;
	struct tracepoint *tp_entry;
	struct tracepoint *tp_exit;
	bool attached;
};

#define CTX_SRC_IRQ_TP	0

#ifdef CONFIG_X86_LOCAL_APIC
/*
 * One probe pair for every vector, the vector's name as its data. Not
 * reschedule: it does not enter a hardirq for the hooks (no
 * irq_enter_rcu()), so its windows would never be split out anyway.
 */
static void ctx_probe_vector_entry(void *data, int vector)
{
	if (in_nmi())
		return;
	ctx_src_enter(CTX_SRC_KEY_VECTOR | vector, data);
}

static void ctx_probe_vector_exit(void *data, int vector)
{
	if (in_nmi())
		return;
	ctx_src_exit(CTX_SRC_KEY_VECTOR | vector, data);
}

#define CTX_SRC_VECTOR(v) {						\
	.entry = #v "_entry", .exit = #v "_exit", .name = #v,		\
	.enter_probe = ctx_probe_vector_entry,				\
	.exit_probe = ctx_probe_vector_exit,				\
}
#endif /* CONFIG_X86_LOCAL_APIC */

static struct ctx_src_tp ctx_src_tps[] = {
	[CTX_SRC_IRQ_TP] = {
		.entry = "irq_handler_entry", .exit = "irq_handler_exit",
		.enter_probe = ctx_probe_irq_handler_entry,
		.exit_probe = ctx_probe_irq_handler_exit,
	},
#ifdef CONFIG_X86_LOCAL_APIC
	/* The first vector decides CTXCOUNT_FEATURE_IRQ_VECTORS. */
	CTX_SRC_VECTOR(local_timer),
	CTX_SRC_VECTOR(irq_work),
	CTX_SRC_VECTOR(call_function),
	CTX_SRC_VECTOR(call_function_single),
	CTX_SRC_VECTOR(x86_platform_ipi),
	CTX_SRC_VECTOR(error_apic),
	CTX_SRC_VECTOR(spurious_apic),
	CTX_SRC_VECTOR(thermal_apic),
	CTX_SRC_VECTOR(threshold_apic),
	CTX_SRC_VECTOR(deferred_error_apic),
#endif
};

/* The probes above must match the kernel's prototypes: checked here. */
static void __maybe_unused ctx_irqsrc_check_types(void)
{
	check_trace_callback_type_irq_handler_entry(ctx_probe_irq_handler_entry);
	check_trace_callback_type_irq_handler_exit(ctx_probe_irq_handler_exit);
#ifdef CONFIG_X86_LOCAL_APIC
	/* Every vector event is of the class x86_irq_vector. */
	check_trace_callback_type_local_timer_entry(ctx_probe_vector_entry);
	check_trace_callback_type_local_timer_exit(ctx_probe_vector_exit);
#endif
}

static DEFINE_MUTEX(ctx_irqsrc_lock);
/* Sessions with sources; under ctx_irqsrc_lock. */
static unsigned int ctx_irqsrc_users;
/* Set at init from what exists; a vector pair that fails to attach clears its bit. */
static u32 ctx_irqsrc_feats;

static void ctx_irqsrc_lookup(struct tracepoint *tp, void *priv)
{
	struct ctx_src_tp *t;

	for (t = ctx_src_tps; t < ctx_src_tps + ARRAY_SIZE(ctx_src_tps); t++) {
		if (!strcmp(tp->name, t->entry))
			t->tp_entry = tp;
		else if (!strcmp(tp->name, t->exit))
			t->tp_exit = tp;
	}
}

/**
 * ctx_irqsrc_init() - find the tracepoints that sources need
 *
 * Context: module init.
 */
void ctx_irqsrc_init(void)
{
	for_each_kernel_tracepoint(ctx_irqsrc_lookup, NULL);
	if (ctx_src_tps[CTX_SRC_IRQ_TP].tp_entry &&
	    ctx_src_tps[CTX_SRC_IRQ_TP].tp_exit)
		ctx_irqsrc_feats |= CTXCOUNT_FEATURE_IRQ_SOURCES;
	if (ARRAY_SIZE(ctx_src_tps) > CTX_SRC_IRQ_TP + 1 &&
	    ctx_src_tps[CTX_SRC_IRQ_TP + 1].tp_entry &&
	    ctx_src_tps[CTX_SRC_IRQ_TP + 1].tp_exit)
		ctx_irqsrc_feats |= CTXCOUNT_FEATURE_IRQ_VECTORS;
}

/**
 * ctx_irqsrc_features() - what sources can tell apart here
 *
 * Return: CTXCOUNT_FEATURE_IRQ_SOURCES when device handlers are split,
 * with CTXCOUNT_FEATURE_IRQ_VECTORS when x86's system vectors are too.
 */
u32 ctx_irqsrc_features(void)
{
	return READ_ONCE(ctx_irqsrc_feats);
}

static void ctx_irqsrc_detach(void)
{
	struct ctx_src_tp *t;

	for (t = ctx_src_tps; t < ctx_src_tps + ARRAY_SIZE(ctx_src_tps); t++) {
		if (!t->attached)
			continue;
		if (irq_source_entry_reads)
			tracepoint_probe_unregister(t->tp_entry, t->enter_probe,
						    (void *)t->name);
		tracepoint_probe_unregister(t->tp_exit, t->exit_probe,
					    (void *)t->name);
		t->attached = false;
	}
	/* No probe may still run when the tables or the module go away. */
	tracepoint_synchronize_unregister();
}

/*
 * Exit before entry: an exit without its entry is harmless, an entry
 * without its exit is not. A vector pair that does not attach stays in
 * the outside row; the irq handler pair is needed.
 */
static int ctx_irqsrc_attach_one(struct ctx_src_tp *t)
{
	int err;

	if (!t->tp_entry || !t->tp_exit)
		return -ENOENT;
	err = tracepoint_probe_register(t->tp_exit, t->exit_probe,
					(void *)t->name);
	if (err)
		return err;
	if (irq_source_entry_reads) {
		err = tracepoint_probe_register(t->tp_entry, t->enter_probe,
						(void *)t->name);
		if (err) {
			tracepoint_probe_unregister(t->tp_exit, t->exit_probe,
						    (void *)t->name);
			return err;
		}
	}
	t->attached = true;
	return 0;
}

static int ctx_irqsrc_attach(void)
{
	unsigned int i;
	int err;

	err = ctx_irqsrc_attach_one(&ctx_src_tps[CTX_SRC_IRQ_TP]);
	if (err) {
		pr_err("cannot attach to irq_handler_entry/exit: %d\n", err);
		return err;
	}
	for (i = CTX_SRC_IRQ_TP + 1; i < ARRAY_SIZE(ctx_src_tps); i++) {
		if (!ctx_src_tps[i].tp_entry)
			continue;
		err = ctx_irqsrc_attach_one(&ctx_src_tps[i]);
		/* STATS says no more than what is attached. */
		if (err && i == CTX_SRC_IRQ_TP + 1) {
			pr_warn("cannot attach to %s: %d; system vectors stay outside\n",
				ctx_src_tps[i].entry, err);
			WRITE_ONCE(ctx_irqsrc_feats, ctx_irqsrc_feats &
				   ~CTXCOUNT_FEATURE_IRQ_VECTORS);
		}
	}
	return 0;
}

/**
 * ctx_irqsrc_get() - a session with sources is created: hooks on
 *
 * The first one attaches the probes.
 *
 * Context: process context, may sleep; no session lock held.
 * Return: 0, or a negative errno (nothing attached, not counted).
 */
int ctx_irqsrc_get(void)
{
	int err = 0;

	mutex_lock(&ctx_irqsrc_lock);
	if (!ctx_irqsrc_users)
		err = ctx_irqsrc_attach();
	if (!err)
		ctx_irqsrc_users++;
	mutex_unlock(&ctx_irqsrc_lock);
	return err;
}

/**
 * ctx_irqsrc_put() - a session with sources is gone
 *
 * The last one detaches the probes and waits until none runs.
 *
 * Context: process context, may sleep; no session lock held.
 */
void ctx_irqsrc_put(void)
{
	mutex_lock(&ctx_irqsrc_lock);
	if (!--ctx_irqsrc_users)
		ctx_irqsrc_detach();
	mutex_unlock(&ctx_irqsrc_lock);
}
