// SPDX-License-Identifier: GPL-2.0
/*
 * ptout tests: --per-thread's rows as output/display.c prints a series by hand:
 * each event's own order (largest value first, :t by its task part, the
 * lower tid first among equals), -a's rows of 0 left out, and the thread
 * column in the three formats as perf 6.1's aggr_printout() writes it
 * for AGGR_THREAD ("%*s-%*d%s": 16, -8 and a blank in the standard
 * format, none and the separator in CSV; JSON "\"thread\" : \"%s-%d\", "),
 * the expected strings written out by hand from those formats. A comm
 * holding the separator or a quote is quoted in CSV (RFC 4180, as output/csv.c
 * quotes event names), a quote escaped in JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "series_fixture.h"

#define NR_ROWS 4

struct pt_data {
	struct fixture_data d;
	struct cxs_perthread pt;
};

static void put(struct cxs_counter_values *c, double full, double task)
{
	struct cxs_counter_reading rd = {
		.full = full, .time_enabled = 1000, .time_running = 1000,
	};

	rd.bucket[CTXCOUNT_BUCKET_TASK] = task;
	rd.bucket[CTXCOUNT_BUCKET_HARDIRQ] = full - task;
	if (cxs_counter_add(c, &rd))
		abort();
}

/* The same as a READ's event. */
static void put_event(struct ctxc_event_val *v, uint64_t full, uint64_t task)
{
	*v = (struct ctxc_event_val){
		.present = true, .full = full,
		.time_enabled = 1000, .time_running = 1000,
	};
	v->bucket[CTXCOUNT_BUCKET_TASK] = task;
	v->bucket[CTXCOUNT_BUCKET_HARDIRQ] = full - task;
}

/*
 * instructions (counter 0, also shown as :t) and cycles (1) of four
 * threads: "a,b" 7 has the most in full but little in task context;
 * "plain" 5 and "q\"t" 9 tie in full; "zero" 3 counted nothing. Every
 * bucket kept, as --breakdown keeps them.
 */
static void pt_setup(struct pt_data *p, const char *specs, bool skip_zero)
{
	static const struct { const char *comm; pid_t tid; double full, task; } t[] = {
		{ "a,b", 7, 100, 10 }, { "plain", 5, 50, 50 },
		{ "q\"t", 9, 50, 0 }, { "zero", 3, 0, 0 },
	};
	static const int counter_of[] = { 0, 1 };
	struct cxs_args a = { .breakdown = true };
	struct ctxc_thread_val *row = calloc(1, sizeof(*row));
	int k;

	if (!row)
		abort();
	memset(p, 0, sizeof(*p));
	setup(&p->d, specs, 1);
	p->d.series.target = CXS_TARGET_SYSTEM_WIDE;
	/* the totals: what the rows add up to */
	put(&p->d.res[0], 200, 60);
	put(&p->d.res[1], 400, 120);
	cxs_perthread_init(&p->pt, &a, 2);
	for (k = 0; k < NR_ROWS; k++) {
		row->tid = t[k].tid;
		snprintf(row->comm, sizeof(row->comm), "%s", t[k].comm);
		put_event(&row->ev[0], t[k].full, t[k].task);
		put_event(&row->ev[1], 2 * t[k].full, 2 * t[k].task);
		if (cxs_perthread_add(&p->pt, row, counter_of, 2))
			abort();
	}
	free(row);
	cxs_perthread_keep(&p->pt, p->d.res);
	p->pt.rows.skip_zero = skip_zero;
	p->d.series.threads = &p->pt.rows;
}

static void pt_release(struct pt_data *p)
{
	cxs_perthread_free(&p->pt);
	release(&p->d);
}

TEST(order_by_each_event)
{
	struct pt_data p;
	int order[NR_ROWS];

	pt_setup(&p, "instructions,instructions:t", false);
	ASSERT_EQ(4, cxs_thread_order(&p.pt.rows, &p.d.events.ev[0], order));
	/* 100, then the tie of 50 by tid (5 before 9), then 0 */
	EXPECT_EQ(0, order[0]);
	EXPECT_EQ(1, order[1]);
	EXPECT_EQ(2, order[2]);
	EXPECT_EQ(3, order[3]);
	/* :t: task parts 50, 10, then the tie of 0: tid 3 before 9 */
	ASSERT_EQ(4, cxs_thread_order(&p.pt.rows, &p.d.events.ev[1], order));
	EXPECT_EQ(1, order[0]);
	EXPECT_EQ(0, order[1]);
	EXPECT_EQ(3, order[2]);
	EXPECT_EQ(2, order[3]);
	pt_release(&p);
}

TEST(zero_rows_left_out_with_a)
{
	struct pt_data p;
	int order[NR_ROWS];

	pt_setup(&p, "instructions,instructions:t", true);
	ASSERT_EQ(3, cxs_thread_order(&p.pt.rows, &p.d.events.ev[0], order));
	EXPECT_EQ(0, order[0]);
	EXPECT_EQ(2, order[2]);
	/* a thread with counts but none in task context has no :t row */
	ASSERT_EQ(2, cxs_thread_order(&p.pt.rows, &p.d.events.ev[1], order));
	EXPECT_EQ(1, order[0]);
	EXPECT_EQ(0, order[1]);
	pt_release(&p);
}

TEST(std_rows)
{
	struct pt_data p;
	char *out;

	pt_setup(&p, "instructions", true);
	out = render(&p.d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_STREQ("\n"
" Performance counter stats for 'system wide':\n"
"\n"
"             a,b-7                       100      instructions                                                       \n"
"           plain-5                        50      instructions                                                       \n"
"             q\"t-9                        50      instructions                                                       \n"
"\n"
"       0.000000000 seconds time elapsed\n"
"\n", out);
	free(out);
	pt_release(&p);
}

/* Each row's metric from its own counts: IPC 0.50 for every thread. */
TEST(csv_rows)
{
	struct pt_data p;
	char *out;

	pt_setup(&p, "instructions,cycles", true);
	out = render(&p.d, CXS_OUTPUT_CSV, ";", false, 0);
	EXPECT_STREQ("a,b-7;100;;instructions;1000;100.00;0.50;insn per cycle\n"
		     "plain-5;50;;instructions;1000;100.00;0.50;insn per cycle\n"
		     "\"q\"\"t-9\";50;;instructions;1000;100.00;0.50;insn per cycle\n"
		     "a,b-7;200;;cycles;1000;100.00;;\n"
		     "plain-5;100;;cycles;1000;100.00;;\n"
		     "\"q\"\"t-9\";100;;cycles;1000;100.00;;\n", out);
	free(out);
	/* the separator in a comm: quoted, so the row keeps its 7 fields */
	out = render(&p.d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_EQ(out, strstr(out, "\"a,b-7\",100,,instructions,1000,100.00,0.50,insn per cycle\n"))
		TH_LOG("%s", out);
	free(out);
	pt_release(&p);
}

TEST(json_rows)
{
	struct pt_data p;
	char *out;

	pt_setup(&p, "instructions:t", false);
	out = render(&p.d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_STREQ(
"{\"thread\" : \"plain-5\", \"counter-value\" : \"50.000000\", \"unit\" : \"\", \"event\" : \"instructions:t\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, \"metric-value\" : 100.000000, \"metric-unit\" : \"of all\"}\n"
"{\"thread\" : \"a,b-7\", \"counter-value\" : \"10.000000\", \"unit\" : \"\", \"event\" : \"instructions:t\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, \"metric-value\" : 10.000000, \"metric-unit\" : \"of all\"}\n"
"{\"thread\" : \"zero-3\", \"counter-value\" : \"0.000000\", \"unit\" : \"\", \"event\" : \"instructions:t\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
"{\"thread\" : \"q\\\"t-9\", \"counter-value\" : \"0.000000\", \"unit\" : \"\", \"event\" : \"instructions:t\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"of all\"}\n",
		     out);
	free(out);
	pt_release(&p);
}

/* --breakdown: each thread's context rows under its own row. */
TEST(breakdown_per_thread)
{
	struct pt_data p;
	char *out;

	pt_setup(&p, "instructions", true);
	out = render(&p.d, CXS_OUTPUT_CSV, ";", true, 0);
	EXPECT_NE(NULL, strstr(out,
			       "a,b-7;100;;instructions;1000;100.00;;\n"
			       "a,b-7;10;;instructions [task];1000;100.00;10.00;of all\n"
			       "a,b-7;90;;instructions [hardirq];1000;100.00;90.00;of all\n"
			       "a,b-7;0;;instructions [nmi];1000;100.00;0.00;of all\n"
			       "plain-5;50;;instructions;1000;100.00;;\n"))
		TH_LOG("%s", out);
	free(out);
	pt_release(&p);
}

/*
 * --breakdown keeps the buckets after the task's only where they are not
 * 0: each row's counters read back every bucket as it was given, whatever
 * mix of them is 0 (row k, counter i, bucket b: a value of its own, or 0
 * where (k + i + b) % 3 == 0, every bucket 0 in row 2's counter 1).
 */
TEST(breakdown_buckets_read_back)
{
	const int counter_of[] = { 0, 1 };
	struct cxs_args a = { .breakdown = true };
	struct ctxc_thread_val *row = calloc(1, sizeof(*row));
	struct cxs_counter_values c[2];
	struct cxs_perthread pt;
	double want, got;
	int k, i, b;

	ASSERT_NE(NULL, row);
	cxs_perthread_init(&pt, &a, 2);
	for (k = 0; k < 5; k++) {
		row->tid = 100 + k;
		for (i = 0; i < 2; i++) {
			put_event(&row->ev[i], 1000000, 1000);
			for (b = CTXCOUNT_BUCKET_TASK + 1; b <= CTXCOUNT_BUCKET_MAX; b++)
				row->ev[i].bucket[b] = (k + i + b) % 3 && !(k == 2 && i == 1) ?
						       1000 * k + 100 * i + b : 0;
		}
		ASSERT_EQ(0, cxs_perthread_add(&pt, row, counter_of, 2));
	}
	for (k = 0; k < 5; k++) {
		cxs_thread_counters(&pt.rows, k, c);
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(1, c[i].bucket[CTXCOUNT_BUCKET_TASK].n);
			EXPECT_EQ(1000, c[i].bucket[CTXCOUNT_BUCKET_TASK].v[0]);
			for (b = CTXCOUNT_BUCKET_TASK + 1; b <= CTXCOUNT_BUCKET_MAX; b++) {
				want = (k + i + b) % 3 && !(k == 2 && i == 1) ?
				       1000 * k + 100 * i + b : 0;
				ASSERT_EQ(1, c[i].bucket[b].n);
				got = c[i].bucket[b].v[0];
				EXPECT_EQ(want, got)
					TH_LOG("row %d counter %d bucket %d", k, i, b);
			}
		}
	}
	free(row);
	cxs_perthread_free(&pt);
}

TEST_HARNESS_MAIN
