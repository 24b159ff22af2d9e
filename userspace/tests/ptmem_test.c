// SPDX-License-Identifier: GPL-2.0
/*
 * ptmem tests: what --per-thread holds per thread row, measured by
 * tests/countalloc.c (every block the code allocates, at what glibc's
 * malloc takes for it), not computed by the code under test. A machine
 * has thousands of threads (-a --per-thread), so a row costs at most
 * 1 KiB (issue 33): the peak of a whole ctxstat run against
 * tests/fake_nl.c, READ rows and kept values together, with one and
 * with four thousand rows; the library's own part with its parser. A row's
 * cost is the growth of the peak from one count of rows to another,
 * which leaves out what a run holds whatever its rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "countalloc.h"
#include "fake_nl.h"
#include "lib/internal.h"
#include "runs_fixture.h"

#define ROW_BYTES_MAX	1024
#define FEW_ROWS	1000
#define MANY_ROWS	4000

static size_t run_peak;

/* ctxstat's stat, the peak of what it held above what lived before. */
static int measured_stat(int argc, char **argv)
{
	size_t before = countalloc_live;
	int code;

	countalloc_reset_peak();
	code = stat_main(argc, argv);
	run_peak = countalloc_peak - before;
	return code;
}

/* CSV rows of @event in @text (its unit empty: ",,event,"). */
static int event_rows(const char *text, const char *event)
{
	char field[64];

	snprintf(field, sizeof(field), ",,%s,", event);
	return count_lines(text, field);
}

FIXTURE(stat_rows) {
};

FIXTURE_VARIANT(stat_rows) {
	const char *what;
	const char *events;	/* -e's list, NULL for the default set */
	const char *first;	/* an event of it, to count its rows */
	bool breakdown;		/* --breakdown: every bucket of each counter */
};

FIXTURE_SETUP(stat_rows)
{
}

FIXTURE_TEARDOWN(stat_rows)
{
}

FIXTURE_VARIANT_ADD(stat_rows, one_event) {
	.what = "1 event",
	.events = "instructions",
	.first = "instructions",
};

/* -a's default set: 8 counters, 13 events (the :t twins) */
FIXTURE_VARIANT_ADD(stat_rows, default_set) {
	.what = "the default set",
	.events = NULL,
	.first = "context-switches",	/* one without a unit */
};

/*
 * The default set with every bucket: a thread's counters have few of the
 * 13 beside the task's (fake_nl's rows: the hardirq bucket), as a thread
 * of a real machine mostly has a handful (the timer's, RCU's, the NIC's).
 */
FIXTURE_VARIANT_ADD(stat_rows, default_set_breakdown) {
	.what = "the default set with --breakdown",
	.events = NULL,
	.first = "context-switches",
	.breakdown = true,
};

/* CTXCOUNT_MAX_EVENTS counters, the most a session has */
FIXTURE_VARIANT_ADD(stat_rows, most_counters) {
	.what = "16 counters",
	.events = "cycles,instructions,branches,branch-misses,cache-references,"
		  "cache-misses,bus-cycles,ref-cycles,cpu-clock,context-switches,"
		  "cpu-migrations,page-faults,minor-faults,major-faults,"
		  "alignment-faults,emulation-faults",
	.first = "cycles",
};

/*
 * -a --per-thread -x, with fake_nl.threads rows: the peak, and every
 * row but sleeper's (0: left out with -a) printed for event @first (by
 * its event field: the workload's pid may be a fake row's tid, which
 * then bears its comm).
 */
static size_t stat_peak(struct __test_metadata *_metadata, const char *events,
			const char *first, bool breakdown, int rows)
{
	char *how = breakdown ? "--breakdown" : "--per-thread";
	char *with_events[] = { "ctxstat", "-a", "--per-thread", how, "-x", ",",
				"-e", (char *)events, "true", NULL };
	char *default_set[] = { "ctxstat", "-a", "--per-thread", how, "-x", ",",
				"true", NULL };
	struct outcome o;
	size_t peak;

	fake_nl_reset();
	fake_nl.threads = rows;
	run(measured_stat, events ? with_events : default_set, &o);
	peak = run_peak;
	EXPECT_EQ(0, o.code) TH_LOG("%.2000s", o.err);
	EXPECT_EQ(rows - 1, event_rows(o.err, first)) TH_LOG("%.2000s", o.err);
	done(&o);
	return peak;
}

TEST_F(stat_rows, at_most_1k_per_row)
{
	size_t few = stat_peak(_metadata, variant->events, variant->first,
			       variant->breakdown, FEW_ROWS);
	size_t many = stat_peak(_metadata, variant->events, variant->first,
				variant->breakdown, MANY_ROWS);
	double per_row = ((double)many - (double)few) / (MANY_ROWS - FEW_ROWS);

	TH_LOG("%s: %.0f bytes per thread row (peak %zu with %d rows, %zu with %d)",
	       variant->what, per_row, few, FEW_ROWS,
	       many, MANY_ROWS);
	EXPECT_LE(per_row, ROW_BYTES_MAX);
}

#define FAMILY		0x1c
#define NR_EVENTS	8	/* the default set's counters */

/* A dump's message of @nr thread nests from tid @tid on, every event. */
static struct nl_msg *thread_part(uint32_t tid, int nr)
{
	struct nl_msg *msg = nlmsg_alloc_size(65536);
	struct nlattr *nest, *events, *ev, *b;
	int k, i;

	genlmsg_put(msg, 0, 1, FAMILY, 0, NLM_F_MULTI, CTXCOUNT_CMD_SESSION_READ,
		    CTXCOUNT_GENL_VERSION);
	for (k = 0; k < nr; k++, tid++) {
		nest = nla_nest_start(msg, CTXCOUNT_A_THREAD);
		nla_put_u32(msg, CTXCOUNT_THREAD_A_TID, tid);
		nla_put_u32(msg, CTXCOUNT_THREAD_A_PID, 100);
		nla_put_string(msg, CTXCOUNT_THREAD_A_COMM, "t");
		events = nla_nest_start(msg, CTXCOUNT_THREAD_A_EVENTS);
		for (i = 0; i < NR_EVENTS; i++) {
			ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
			nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, i);
			nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, tid);
			nla_put_u64(msg, CTXCOUNT_EVENT_A_TIME_ENABLED, 1);
			nla_put_u64(msg, CTXCOUNT_EVENT_A_TIME_RUNNING, 1);
			b = nla_nest_start(msg, CTXCOUNT_EVENT_A_BUCKETS);
			nla_put_u64(msg, CTXCOUNT_BUCKET_TASK, tid);
			nla_nest_end(msg, b);
			nla_nest_end(msg, ev);
		}
		nla_nest_end(msg, events);
		nla_nest_end(msg, nest);
	}
	return msg;
}

static int count_row(const struct ctxc_thread_val *row, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/*
 * What libctxcount holds for a READ of @rows threads, at its peak: the
 * reader as ctxc_session_read_threads() allocates it, and the parser's.
 */
static size_t lib_peak(struct __test_metadata *_metadata, int rows)
{
	size_t before = countalloc_live, peak;
	struct ctxc_thread_reader *rd;
	struct nl_msg *msg;
	int tid, nr = 0, err;

	countalloc_reset_peak();
	rd = calloc(1, sizeof(*rd));
	ASSERT_NE(NULL, rd);
	rd->fn = count_row;
	rd->arg = &nr;
	for (tid = 1, err = 0; tid <= rows && !err; tid += 50) {
		msg = thread_part(tid, 50);
		err = ctxc_parse_thread_part(nlmsg_hdr(msg), rd);
		nlmsg_free(msg);
	}
	EXPECT_EQ(0, err ?: ctxc_thread_reader_end(rd));
	EXPECT_EQ(rows, nr);
	peak = countalloc_peak - before;
	free(rd);
	return peak;
}

TEST(lib_at_most_1k_per_row)
{
	size_t few = lib_peak(_metadata, FEW_ROWS);
	size_t many = lib_peak(_metadata, MANY_ROWS);
	double per_row = ((double)many - (double)few) / (MANY_ROWS - FEW_ROWS);

	TH_LOG("libctxcount: %.0f bytes per thread row", per_row);
	EXPECT_LE(per_row, ROW_BYTES_MAX);
}

TEST_HARNESS_MAIN
