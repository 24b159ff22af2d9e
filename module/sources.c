// SPDX-License-Identifier: GPL-2.0
/*
 * Per-source hardirq rows: a session's table of sources and their rows
 * (sources.h). Rows are claimed in hard interrupt context, by the first
 * handler exit (or READ) that meets a key the session has not seen: the
 * lookup is lockless, a claim takes the table's raw spinlock once per
 * source and session. Nothing here allocates after the session is
 * created.
 *
 * Built without ftrace instrumentation: the hooks call it.
 */
#include <linux/hash.h>
#include <linux/irq.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sources.h"

DEFINE_STATIC_KEY_FALSE(ctx_src_live);

/* Started sessions with sources; under the session mutex. */
static unsigned int ctx_src_nr_started;

static unsigned int max_irq_sources = 32;
module_param(max_irq_sources, uint, 0644);
MODULE_PARM_DESC(max_irq_sources,
		 "Handler rows of a session with irq sources that does not say (1 to 64, default 32)");

/**
 * ctx_src_default_max() - handler rows of a session that does not say
 *
 * Return: the parameter max_irq_sources, brought into 1 to
 * CTXCOUNT_MAX_SOURCES.
 */
unsigned int ctx_src_default_max(void)
{
	return clamp_t(unsigned int, READ_ONCE(max_irq_sources), 1,
		       CTXCOUNT_MAX_SOURCES);
}

static u32 ctx_src_hash(const struct ctx_srctab *t, u32 key)
{
	return hash_32(key, t->bits);
}

/* The row of @key, or -1 if it has none (yet). */
static int ctx_src_lookup(const struct ctx_srctab *t, u32 key)
{
	u32 mask = (1U << t->bits) - 1;
	u32 i = ctx_src_hash(t, key);
	unsigned int n;
	u64 e;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		/* Pairs with ctx_src_claim()'s release: @info is filled. */
		e = smp_load_acquire(&t->ent[i]);
		if (!e)
			return -1;
		if ((u32)(e >> 32) == key)
			return (u32)e - 1;
	}
	return -1;
}

static void ctx_src_describe(struct ctx_src_info *in, u32 key,
			     const char *name)
{
	struct irq_data *d;

	if (key & CTX_SRC_KEY_VECTOR) {
		in->kind = CTXCOUNT_SOURCE_KIND_VECTOR;
		in->irq = key & ~CTX_SRC_KEY_VECTOR;
	} else {
		in->kind = CTXCOUNT_SOURCE_KIND_IRQ;
		in->irq = key - 1;
		/* The irq's handler is running: its descriptor is live. */
		d = irq_get_irq_data(in->irq);
		if (d) {
			in->hwirq = d->hwirq;
			in->has_hwirq = true;
		}
	}
	strscpy(in->name, name ?: "", sizeof(in->name));
}

static int ctx_src_claim(struct ctx_srctab *t, u32 key, const char *name)
{
	u32 mask = (1U << t->bits) - 1;
	unsigned long flags;
	unsigned int row;
	int found;
	u32 i;

	raw_spin_lock_irqsave(&t->lock, flags);
	found = ctx_src_lookup(t, key);
	if (found >= 0 || t->nr >= t->max)
		goto out;
	row = t->nr;
	ctx_src_describe(&t->info[row], key, name);
	/* At least @max + 1 free entries: the walk ends. */
	for (i = ctx_src_hash(t, key); t->ent[i]; i = (i + 1) & mask)
		;
	/* @info before the entry: pairs with ctx_src_lookup()'s acquire. */
	smp_store_release(&t->ent[i], (u64)key << 32 | (row + 1));
	/* @info before @nr: pairs with ctx_src_report_info()'s acquire. */
	smp_store_release(&t->nr, row + 1);
	found = row;
out:
	raw_spin_unlock_irqrestore(&t->lock, flags);
	return found;
}

/**
 * ctx_src_row() - the row of a source, claimed if need be
 * @t: a session's table
 * @key: the source (sources.h)
 * @name: its handler's name, kept if the row is claimed now
 *
 * Context: interrupts disabled, not NMI.
 * Return: the row, or @t->max (OTHER) when the table is full.
 */
unsigned int ctx_src_row(struct ctx_srctab *t, u32 key, const char *name)
{
	int row = ctx_src_lookup(t, key);

	if (likely(row >= 0))
		return row;
	/* Full: no lock for the sources that go to OTHER. */
	if (READ_ONCE(t->nr) >= t->max)
		return t->max;
	row = ctx_src_claim(t, key, name);
	return row >= 0 ? row : t->max;
}

/**
 * ctx_src_settle() - move @ac's handler window out of its CTX_SRC row
 * @ac: this CPU's accounting of a session, right after a boundary
 *
 * Before its sums are copied or its interval closes: to the row of the
 * window the CPU is in (counted as a run at its exit), or to the hardirq
 * bucket for a session without sources or outside any window.
 *
 * Context: interrupts disabled, CPU claimed.
 */
void ctx_src_settle(struct ctx_acct_cpu *ac)
{
	const struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);
	u64 *w = ac->sum.buckets[CTX_SRC];
	u64 *h = ac->sum.buckets[CTXCOUNT_BUCKET_HARDIRQ];
	const char *name = NULL;
	unsigned int i;
	u32 key;

	if (ac->src) {
		key = ctx_cpu_src_top(st, &name);
		if (key) {
			ctx_src_move(ac, ctx_src_row(ac->src, key, name),
				     false);
			return;
		}
	}
	for (i = 0; i < ac->nr_events; i++) {
		h[i] += w[i];
		w[i] = 0;
	}
}

/**
 * ctx_src_alloc() - a session's empty table
 * @max: handler rows, 1 to CTXCOUNT_MAX_SOURCES
 * @nr_events: the session's events
 *
 * Charged to the caller's memory cgroup, as the session is.
 *
 * Context: process context, may sleep.
 * Return: the table, or NULL.
 */
struct ctx_srctab *ctx_src_alloc(unsigned int max, unsigned int nr_events)
{
	struct ctx_srctab *t;
	size_t block;

	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	t->max = max;
	t->nr_events = nr_events;
	t->bits = ilog2(roundup_pow_of_two(2 * max + 2));
	raw_spin_lock_init(&t->lock);
	t->ent = kcalloc(1U << t->bits, sizeof(*t->ent), GFP_KERNEL_ACCOUNT);
	t->info = kcalloc(max, sizeof(*t->info), GFP_KERNEL_ACCOUNT);
	block = ctx_src_rows_size(t);
	t->rows = __alloc_percpu_gfp(block, sizeof(u64), GFP_KERNEL_ACCOUNT);
	t->snap = __alloc_percpu_gfp(block, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!t->ent || !t->info || !t->rows || !t->snap) {
		ctx_src_free(t);
		return NULL;
	}
	return t;
}

/**
 * ctx_src_free() - free a table
 * @t: NULL, or a table no hook can reach (its session freed after a
 *	grace period)
 */
void ctx_src_free(struct ctx_srctab *t)
{
	if (!t)
		return;
	free_percpu(t->snap);
	free_percpu(t->rows);
	kfree(t->info);
	kfree(t->ent);
	kfree(t);
}

/**
 * ctx_src_bind() - give a session's accounting on @cpu its rows
 * @t: the session's table, or NULL
 * @ac: the session's accounting on @cpu
 * @cpu: the CPU
 */
void ctx_src_bind(struct ctx_srctab *t, struct ctx_acct_cpu *ac, int cpu)
{
	ac->src = t;
	ac->src_rows = t ? per_cpu_ptr(t->rows, cpu) : NULL;
}

/**
 * ctx_src_started() - a session with sources starts or stops
 * @t: its table, or NULL (nothing to do)
 * @started: whether it starts
 *
 * Context: session mutex held, not the CPU hotplug lock.
 */
void ctx_src_started(struct ctx_srctab *t, bool started)
{
	if (!t)
		return;
	if (started) {
		if (!ctx_src_nr_started++)
			static_branch_enable(&ctx_src_live);
	} else if (!--ctx_src_nr_started) {
		static_branch_disable(&ctx_src_live);
	}
}

/**
 * ctx_src_snap() - READ's copy of a CPU's rows
 * @t: the table
 * @cpu: the CPU
 *
 * Return: the copy (ctx_src_block_len() u64s).
 */
u64 *ctx_src_snap(struct ctx_srctab *t, int cpu)
{
	return per_cpu_ptr(t->snap, cpu);
}

/**
 * ctx_src_rows_size() - bytes of one CPU's rows
 * @t: the table
 *
 * Return: the size of a block of rows.
 */
size_t ctx_src_rows_size(const struct ctx_srctab *t)
{
	return ctx_src_block_len(t->max, t->nr_events) * sizeof(u64);
}

/**
 * ctx_src_rows_copy() - copy a CPU's rows
 * @t: the table
 * @dst: where to (READ's copy, ctx_src_snap(), or a saved copy)
 * @rows: the rows
 */
void ctx_src_rows_copy(const struct ctx_srctab *t, u64 *dst, const u64 *rows)
{
	memcpy(dst, rows, ctx_src_rows_size(t));
}

/**
 * ctx_src_sum() - add a CPU's rows to a sum
 * @t: the table
 * @dst: the sum's rows, or NULL
 * @block: the CPU's rows
 * @sum: the sum's totals: the rows are part of its hardirq bucket (the
 *	CPU's sums hold the part outside every handler there)
 */
void ctx_src_sum(const struct ctx_srctab *t, u64 *dst, u64 *block,
		 struct ctx_totals *sum)
{
	size_t k, len = ctx_src_block_len(t->max, t->nr_events);
	unsigned int row, i;

	if (dst)
		for (k = 0; k < len; k++)
			dst[k] += block[k];
	for (row = 0; row <= t->max; row++)
		for (i = 0; i < t->nr_events; i++)
			sum->buckets[i][CTXCOUNT_BUCKET_HARDIRQ] +=
				*ctx_src_val(block, t->max, t->nr_events,
					     row, i);
}

/**
 * ctx_src_report_init() - room for a READ's sources
 * @r: the report's part, zeroed
 * @t: the session's table, or NULL (nothing to do)
 * @rows: NULL, or the per-CPU rows the READ may fill (each gets a block)
 * @nr_rows: their number
 *
 * Charged to the active memory cgroup: READ's worker makes it the
 * sender's.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM (free what was allocated with
 * ctx_src_report_free()).
 */
int ctx_src_report_init(struct ctx_src_report *r, const struct ctx_srctab *t,
			struct ctx_cpu_totals *rows, unsigned int nr_rows)
{
	size_t len;
	unsigned int k;

	if (!t)
		return 0;
	r->max = t->max;
	r->nr_events = t->nr_events;
	len = ctx_src_block_len(t->max, t->nr_events);
	r->info = kvcalloc(t->max, sizeof(*r->info), GFP_KERNEL_ACCOUNT);
	r->tot = kvcalloc(len, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!r->info || !r->tot)
		return -ENOMEM;
	if (!rows)
		return 0;
	r->cpus = kvcalloc(nr_rows * len, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!r->cpus)
		return -ENOMEM;
	for (k = 0; k < nr_rows; k++)
		rows[k].src = r->cpus + k * len;
	return 0;
}

/**
 * ctx_src_report_info() - copy what the rows read so far are
 * @r: the report's part
 * @t: the session's table, or NULL
 *
 * After the rows were read: any row with counts in them was claimed
 * before.
 */
void ctx_src_report_info(struct ctx_src_report *r, struct ctx_srctab *t)
{
	if (t) {
		/* Pairs with ctx_src_claim()'s release: @info is filled. */
		r->nr = smp_load_acquire(&t->nr);
		memcpy(r->info, t->info, r->nr * sizeof(*r->info));
	}
}

/**
 * ctx_src_report_free() - free what ctx_src_report_init() allocated
 * @r: the report's part
 */
void ctx_src_report_free(struct ctx_src_report *r)
{
	kvfree(r->cpus);
	kvfree(r->tot);
	kvfree(r->info);
}
