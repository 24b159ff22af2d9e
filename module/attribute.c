// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line attribution of an interval (attribute.h): its counters
 * read through perf, where the inline one reads their registers.
 *
 * Runs where account.c does (interrupts disabled or NMI, the CPU
 * claimed): this file is built without ftrace instrumentation.
 */
#include <linux/bitops.h>

#include "attribute.h"
#include "counters.h"

/* The counters of @ac but those in @skip, read through perf, to @bucket. */
static void ctx_attribute_read(struct ctx_acct_cpu *ac, unsigned int bucket,
			       unsigned long skip)
{
	u64 *b = ac->sum.buckets[bucket];
	struct ctx_acct_slot *sl;
	unsigned int i;
	u64 now;

	for (i = 0; i < ac->nr_events; i++) {
		sl = &ac->slot[i];
		if (!sl->event || (skip & BIT(i)))
			continue;
		now = ctx_counter_read(sl->event, ac->direct & BIT(i));
		b[i] += now - sl->last;
		sl->last = now;
	}
}

/**
 * ctx_attribute_any() - ctx_attribute() with counters read through perf
 * @ac: this CPU's accounting of a session
 * @bucket: the context the counts since the last boundary belong to
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_attribute_any(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	ctx_attribute_read(ac, bucket, 0);
}

/**
 * ctx_attribute_driver() - the counters of @ac read through their driver
 * @ac: this CPU's accounting of a session
 * @bucket: the context the counts since the last boundary belong to
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_attribute_driver(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	ctx_attribute_read(ac, bucket, ac->direct);
}

