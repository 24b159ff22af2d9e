// SPDX-License-Identifier: GPL-2.0
/*
 * A unit test of ctxcount's READ reply builder (module/nlreply.c, linked
 * into this module by tests/Kbuild): a made-up report of cpus= CPUs
 * (default 512), 16 events and 64 sources, which as a single reply would
 * take several MiB, is cut into a READ dump's messages as ctxcount's
 * .dumpit cuts it, into skbs of NLMSG_GOODSIZE and of 32 KiB (the netlink
 * core's two sizes). Each message is parsed back with the kernel's own
 * nla_parse(): none is over NLMSG_GOODSIZE, and every value of the report
 * is found exactly once, a CPU's parts in order. The same builder's single
 * reply of a few CPUs is checked likewise.
 *
 * The result is in the kernel log ("nlreply_test: ok: ..." or
 * "nlreply_test: FAIL: ..."); a failure also fails the load (-EINVAL).
 * selftests/read_dump loads it.
 */
#include <linux/ctxcount.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "nlreply.h"
#include "session.h"
#include "sources.h"

static unsigned int cpus = 512;
module_param(cpus, uint, 0444);
MODULE_PARM_DESC(cpus, "CPU rows of the made-up report");

#define T_EVENTS	CTXCOUNT_MAX_EVENTS
#define T_SOURCES	CTXCOUNT_MAX_SOURCES

/* Every value of the report is a function of where it is. */
static u64 t_val(unsigned int cpu, unsigned int i, unsigned int what)
{
	return ((u64)cpu << 32) | (i << 16) | what;
}

/* Row @cpu (or the totals: cpus) in @block: runs and counts of each row. */
static void t_fill_src(u64 *block, unsigned int cpu)
{
	unsigned int row, i;

	for (row = 0; row <= T_SOURCES; row++) {
		*ctx_src_count(block, row) = t_val(cpu, 99, row);
		for (i = 0; i < T_EVENTS; i++)
			*ctx_src_val(block, T_SOURCES, T_EVENTS, row, i) =
				t_val(cpu, i, 1000 + row);
	}
}

/* @t's values for @cpu; hardirq is its source rows plus OUTSIDE's 7. */
static void t_fill_tot(struct ctx_totals *t, u64 *block, unsigned int cpu)
{
	unsigned int i, b, row;
	u64 hardirq;

	for (i = 0; i < CTX_NR_EXC; i++)
		t->excursions[i] = t_val(cpu, i, 2);
	for (i = 0; i < T_EVENTS; i++) {
		t->full[i] = t_val(cpu, i, 3);
		t->enabled[i] = t_val(cpu, i, 1);
		t->running[i] = t_val(cpu, i, 4);
		for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
			t->buckets[i][b] = t_val(cpu, i, 100 + b);
		hardirq = 7;
		for (row = 0; row <= T_SOURCES; row++)
			hardirq += *ctx_src_val(block, T_SOURCES, T_EVENTS, row, i);
		t->buckets[i][CTXCOUNT_BUCKET_HARDIRQ] = hardirq;
		t->direct_cpus[i] = i & 1;
	}
}

static void t_free(struct ctx_session_report *rep)
{
	if (!rep)
		return;
	kvfree(rep->src.cpus);
	kvfree(rep->src.tot);
	kvfree(rep->src.info);
	kvfree(rep->cpu);
	kfree(rep);
}

static struct ctx_session_report *t_report(unsigned int nr_cpus)
{
	size_t len = ctx_src_block_len(T_SOURCES, T_EVENTS);
	struct ctx_session_report *rep;
	unsigned int k, row;

	rep = kzalloc(sizeof(*rep), GFP_KERNEL);
	if (!rep)
		return NULL;
	rep->id = 42;
	rep->nr_events = T_EVENTS;
	rep->tasks_seen = 1000;
	rep->cpus_lost = 1;
	rep->nr_cpus = nr_cpus;
	rep->cpu = kvcalloc(nr_cpus, sizeof(*rep->cpu), GFP_KERNEL);
	rep->src.max = T_SOURCES;
	rep->src.nr = T_SOURCES;
	rep->src.nr_events = T_EVENTS;
	rep->src.info = kvcalloc(T_SOURCES, sizeof(*rep->src.info), GFP_KERNEL);
	rep->src.tot = kvcalloc(len, sizeof(u64), GFP_KERNEL);
	rep->src.cpus = kvcalloc(nr_cpus * len, sizeof(u64), GFP_KERNEL);
	if (!rep->cpu || !rep->src.info || !rep->src.tot || !rep->src.cpus) {
		t_free(rep);
		return NULL;
	}
	for (row = 0; row < T_SOURCES; row++) {
		rep->src.info[row].kind = CTXCOUNT_SOURCE_KIND_IRQ;
		rep->src.info[row].irq = row + 10;
		snprintf(rep->src.info[row].name, CTXCOUNT_SOURCE_NAME_LEN,
			 "t-source-%u", row);
	}
	t_fill_src(rep->src.tot, nr_cpus);
	t_fill_tot(&rep->tot, rep->src.tot, nr_cpus);
	for (k = 0; k < nr_cpus; k++) {
		rep->cpu[k].cpu = k;
		rep->cpu[k].src = rep->src.cpus + k * len;
		t_fill_src(rep->cpu[k].src, k);
		t_fill_tot(&rep->cpu[k].tot, rep->cpu[k].src, k);
	}
	return rep;
}

/*
 * What the parse found: per CPU row (and the totals, row @cpus) which
 * events, and whether its header came; the sources listed.
 */
struct t_seen {
	unsigned int nr_cpus;
	unsigned long *events;		/* (nr_cpus + 1) * T_EVENTS bits */
	unsigned long *heads;		/* nr_cpus + 1 bits */
	unsigned int sources;
	int last_cpu;			/* the CPU of the last CPU nest */
	unsigned int messages, max_len, cpu_nests;
	unsigned int errors;
	char first[160];
};

static __printf(2, 3) void t_fail(struct t_seen *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->errors++) {
		va_start(ap, fmt);
		vsnprintf(s->first, sizeof(s->first), fmt, ap);
		va_end(ap);
	}
}

static u64 t_u64(const struct nlattr *a)
{
	return a && nla_len(a) == sizeof(u64) ? nla_get_u64(a) : ~0ULL;
}

/* One event nest of CPU row @cpu (@cpus: the totals). */
static void t_event(struct t_seen *s, const struct nlattr *nest,
		    unsigned int cpu)
{
	struct nlattr *tb[CTXCOUNT_EVENT_A_MAX + 1], *a;
	unsigned int i, b, n = 0;
	int rem;

	if (nla_parse_nested_deprecated(tb, CTXCOUNT_EVENT_A_MAX, nest, NULL,
					NULL) || !tb[CTXCOUNT_EVENT_A_INDEX])
		return t_fail(s, "cpu %u: bad event nest", cpu);
	i = nla_get_u32(tb[CTXCOUNT_EVENT_A_INDEX]);
	if (i >= T_EVENTS || test_and_set_bit(cpu * T_EVENTS + i, s->events))
		return t_fail(s, "cpu %u: event %u again or out of range", cpu, i);
	if (t_u64(tb[CTXCOUNT_EVENT_A_FULL]) != t_val(cpu, i, 3) ||
	    t_u64(tb[CTXCOUNT_EVENT_A_TIME_RUNNING]) != t_val(cpu, i, 4) ||
	    t_u64(tb[CTXCOUNT_EVENT_A_TIME_ENABLED]) != t_val(cpu, i, 1))
		return t_fail(s, "cpu %u event %u: full or times", cpu, i);
	if (!tb[CTXCOUNT_EVENT_A_BUCKETS] || !tb[CTXCOUNT_EVENT_A_SOURCES])
		return t_fail(s, "cpu %u event %u: no buckets or sources", cpu, i);
	nla_for_each_nested(a, tb[CTXCOUNT_EVENT_A_BUCKETS], rem) {
		b = nla_type(a);
		if (b == CTXCOUNT_BUCKET_UNSPEC)
			continue;
		n++;
		if (b != CTXCOUNT_BUCKET_HARDIRQ && t_u64(a) != t_val(cpu, i, 100 + b))
			return t_fail(s, "cpu %u event %u: bucket %u", cpu, i, b);
	}
	if (n != CTXCOUNT_BUCKET_MAX)
		return t_fail(s, "cpu %u event %u: %u buckets", cpu, i, n);
	n = 0;
	nla_for_each_nested(a, tb[CTXCOUNT_EVENT_A_SOURCES], rem) {
		b = nla_type(a);
		if (b == CTXCOUNT_SOURCE_ID_UNSPEC)
			continue;
		n++;
		if (b == CTXCOUNT_SOURCE_ID_OUTSIDE ? t_u64(a) != 7 :
		    b == CTXCOUNT_SOURCE_ID_OTHER ?
		    t_u64(a) != t_val(cpu, i, 1000 + T_SOURCES) :
		    t_u64(a) != t_val(cpu, i, 1000 + b - CTXCOUNT_SOURCE_ID_FIRST))
			return t_fail(s, "cpu %u event %u: source %u", cpu, i, b);
	}
	if (n != T_SOURCES + 2)
		return t_fail(s, "cpu %u event %u: %u sources", cpu, i, n);
	if (tb[CTXCOUNT_EVENT_A_DIRECT_CPUS] &&
	    nla_get_u32(tb[CTXCOUNT_EVENT_A_DIRECT_CPUS]) != (i & 1))
		t_fail(s, "cpu %u event %u: direct CPUs", cpu, i);
}

static void t_events(struct t_seen *s, const struct nlattr *nest,
		     unsigned int cpu)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem)
		t_event(s, a, cpu);
}

/* A CTXCOUNT_A_CPU nest: a CPU's first part, or the next of the last. */
static void t_cpu(struct t_seen *s, const struct nlattr *nest)
{
	struct nlattr *tb[CTXCOUNT_CPU_A_MAX + 1];
	unsigned int cpu;

	s->cpu_nests++;
	if (nla_parse_nested_deprecated(tb, CTXCOUNT_CPU_A_MAX, nest, NULL,
					NULL) ||
	    !tb[CTXCOUNT_CPU_A_CPU] || !tb[CTXCOUNT_CPU_A_EVENTS])
		return t_fail(s, "bad CPU nest");
	cpu = nla_get_u32(tb[CTXCOUNT_CPU_A_CPU]);
	if (cpu >= s->nr_cpus)
		return t_fail(s, "CPU %u out of range", cpu);
	if ((int)cpu != s->last_cpu) {
		/* A new CPU: the next one, and its parts all came. */
		if ((int)cpu != s->last_cpu + 1)
			return t_fail(s, "CPU %u after %d", cpu, s->last_cpu);
		if (!tb[CTXCOUNT_CPU_A_EXCURSIONS] ||
		    !tb[CTXCOUNT_CPU_A_SOURCE_COUNTS])
			return t_fail(s, "CPU %u: first part without its header", cpu);
		set_bit(cpu, s->heads);
		s->last_cpu = cpu;
	} else if (tb[CTXCOUNT_CPU_A_EXCURSIONS]) {
		return t_fail(s, "CPU %u: header in a later part", cpu);
	}
	t_events(s, tb[CTXCOUNT_CPU_A_EVENTS], cpu);
}

static void t_sources(struct t_seen *s, const struct nlattr *nest)
{
	struct nlattr *tb[CTXCOUNT_SOURCE_A_MAX + 1];
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		if (nla_parse_nested_deprecated(tb, CTXCOUNT_SOURCE_A_MAX, a,
						NULL, NULL) ||
		    !tb[CTXCOUNT_SOURCE_A_ID] ||
		    nla_get_u32(tb[CTXCOUNT_SOURCE_A_ID]) != s->sources + 1)
			return t_fail(s, "source %u out of order", s->sources);
		s->sources++;
	}
}

/* One message: every top-level attribute in its place. */
static void t_message(struct t_seen *s, const struct nlmsghdr *nlh)
{
	const struct nlattr *a;
	int rem;

	s->messages++;
	s->max_len = max(s->max_len, nlh->nlmsg_len);
	nla_for_each_attr(a, nlmsg_attrdata(nlh, GENL_HDRLEN),
			  nlmsg_attrlen(nlh, GENL_HDRLEN), rem) {
		switch (nla_type(a)) {
		case CTXCOUNT_A_SESSION_ID:
			if (nla_get_u32(a) != 42)
				t_fail(s, "session id");
			break;
		case CTXCOUNT_A_EXCURSIONS:
			set_bit(s->nr_cpus, s->heads);
			break;
		case CTXCOUNT_A_EVENTS:
			t_events(s, a, s->nr_cpus);
			break;
		case CTXCOUNT_A_SOURCES:
			t_sources(s, a);
			break;
		case CTXCOUNT_A_CPU:
			t_cpu(s, a);
			break;
		}
	}
}

/* Everything was seen once. */
static void t_complete(struct t_seen *s)
{
	unsigned int rows = s->nr_cpus + 1;

	if (bitmap_weight(s->events, rows * T_EVENTS) != rows * T_EVENTS)
		t_fail(s, "%u of %u events seen",
		       bitmap_weight(s->events, rows * T_EVENTS), rows * T_EVENTS);
	if (bitmap_weight(s->heads, rows) != rows)
		t_fail(s, "%u of %u headers seen", bitmap_weight(s->heads, rows),
		       rows);
	if (s->sources != T_SOURCES + 2)
		t_fail(s, "%u sources listed", s->sources);
}

static int t_seen_init(struct t_seen *s, unsigned int nr_cpus)
{
	memset(s, 0, sizeof(*s));
	s->nr_cpus = nr_cpus;
	s->last_cpu = -1;
	s->events = bitmap_zalloc((nr_cpus + 1) * T_EVENTS, GFP_KERNEL);
	s->heads = bitmap_zalloc(nr_cpus + 1, GFP_KERNEL);
	return s->events && s->heads ? 0 : -ENOMEM;
}

static void t_seen_free(struct t_seen *s)
{
	bitmap_free(s->events);
	bitmap_free(s->heads);
}

/* The dump into skbs of @skb_size, cut as netlink.c's .dumpit cuts it. */
static int t_dump(const struct ctx_session_report *rep, size_t skb_size,
		  struct t_seen *s)
{
	struct ctx_nl_read_pos pos = {};
	unsigned int start;
	struct nlmsghdr *nlh;
	struct sk_buff *skb;

	while (pos.part != CTX_NL_PART_DONE) {
		skb = alloc_skb(skb_size, GFP_KERNEL);
		if (!skb)
			return -ENOMEM;
		/* As the core does: the room asked for, not what kmalloc gave. */
		skb_reserve(skb, skb_tailroom(skb) - skb_size);
		while (pos.part != CTX_NL_PART_DONE) {
			start = skb->len;
			nlh = nlmsg_put(skb, 0, 1, GENL_ID_CTRL, GENL_HDRLEN,
					NLM_F_MULTI);
			if (!nlh)
				break;
			if (ctx_nl_fill_read_part(skb, rep, &pos,
						  start + NLMSG_GOODSIZE)) {
				nlmsg_cancel(skb, nlh);
				break;
			}
			nlmsg_end(skb, nlh);
			t_message(s, nlh);
		}
		if (!skb->len) {
			kfree_skb(skb);
			t_fail(s, "an item fits in no message");
			return -EMSGSIZE;
		}
		kfree_skb(skb);
		cond_resched();
	}
	t_complete(s);
	return 0;
}

static int t_run_dump(const struct ctx_session_report *rep, size_t skb_size)
{
	struct t_seen s;
	int err;

	err = t_seen_init(&s, rep->nr_cpus);
	if (!err)
		err = t_dump(rep, skb_size, &s);
	if (!err && s.max_len > NLMSG_GOODSIZE)
		t_fail(&s, "a message of %u bytes", s.max_len);
	if (!err)
		pr_info("nlreply_test: %s: %u CPUs x %u events x %u sources, skbs of %zu bytes: %u messages of at most %u bytes (NLMSG_GOODSIZE %lu), %u CPU nests\n",
			s.errors ? "FAIL" : "ok", rep->nr_cpus, T_EVENTS,
			T_SOURCES, skb_size, s.messages, s.max_len,
			(unsigned long)NLMSG_GOODSIZE, s.cpu_nests);
	if (s.errors) {
		pr_info("nlreply_test: FAIL: %u errors, the first: %s\n",
			s.errors, s.first);
		err = -EINVAL;
	}
	t_seen_free(&s);
	return err;
}

/* The single reply of a few CPUs: the same values in one message. */
static int t_run_single(void)
{
	struct ctx_session_report *rep = t_report(4);
	struct nlmsghdr *nlh = NULL;
	struct sk_buff *skb;
	struct t_seen s;
	u32 len = 0;
	size_t size;
	int err = -ENOMEM;

	if (!rep || t_seen_init(&s, 4)) {
		t_free(rep);
		return -ENOMEM;
	}
	size = ctx_nl_read_size(rep);
	skb = alloc_skb(nlmsg_total_size(GENL_HDRLEN + size), GFP_KERNEL);
	if (!skb)
		goto out;
	nlh = nlmsg_put(skb, 0, 1, GENL_ID_CTRL, GENL_HDRLEN, 0);
	err = nlh ? ctx_nl_fill_read(skb, rep) : -EMSGSIZE;
	if (err) {
		t_fail(&s, "the reply does not fit its size (%zu): %d", size, err);
	} else {
		nlmsg_end(skb, nlh);
		t_message(&s, nlh);
		t_complete(&s);
		if (s.messages != 1 || s.cpu_nests != 4)
			t_fail(&s, "%u messages, %u CPU nests", s.messages,
			       s.cpu_nests);
		len = nlh->nlmsg_len;
	}
	/* The header is in the skb's data: its length is read before. */
	kfree_skb(skb);
	pr_info("nlreply_test: %s: single reply of 4 CPUs: %u bytes, sized %zu\n",
		s.errors ? "FAIL" : "ok", len, size);
	if (s.errors) {
		pr_info("nlreply_test: FAIL: %s\n", s.first);
		err = -EINVAL;
	}
out:
	t_seen_free(&s);
	t_free(rep);
	return err;
}

static int __init nlreply_test_init(void)
{
	struct ctx_session_report *rep;
	int err;

	err = t_run_single();
	if (err)
		return err;
	rep = t_report(cpus);
	if (!rep)
		return -ENOMEM;
	pr_info("nlreply_test: ok: %u CPUs: a single reply would be %zu bytes\n",
		cpus, ctx_nl_read_size(rep));
	err = t_run_dump(rep, NLMSG_GOODSIZE);
	if (!err)
		err = t_run_dump(rep, SKB_WITH_OVERHEAD(32768));
	t_free(rep);
	return err;
}

static void __exit nlreply_test_exit(void)
{
}

module_init(nlreply_test_init);
module_exit(nlreply_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ctxcount test bed: READ reply builder at many CPUs");
