// SPDX-License-Identifier: GPL-2.0
/*
 * interval tests: ctxstat -I's printing (run/interval.c through
 * output/display.c) from READs made up here. The layouts are golden strings
 * from real `perf stat -I` 6.1 output captured on the development host (quoted
 * above each test, inputs worked back from it); the deltas are checked against
 * cumulative READs chosen so that every interval differs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "run/interval.h"

/* An arbitrary CLOCK_MONOTONIC start: the time column is relative to it. */
#define T0_NS	5e12

struct iv_data {
	struct cxs_event_list events;
	struct cxs_interval iv;
	struct ctxc_reply rp;
	char *buf;
	size_t len;
	FILE *f;
};

static void iv_setup(struct iv_data *d, const char *specs,
		     enum cxs_output_format fmt, bool breakdown)
{
	struct cxs_output_opts o = {
		.format = fmt, .sep = ",", .breakdown = breakdown,
	};
	struct cxs_series s = { .events = &d->events,
				.target = CXS_TARGET_COMMAND };
	char err[256];

	memset(d, 0, sizeof(*d));
	if (cxs_events_add(&d->events, specs, err, sizeof(err)))
		abort();
	d->f = open_memstream(&d->buf, &d->len);
	o.f = d->f;
	cxs_interval_init(&d->iv, &o, &s, 100, 0, 0);
	d->iv.t0_ns = T0_NS;
	d->rp.nr_events = d->events.nr_counters;
}

/* Counter @i's cumulative READ: @full, @hardirq of it in hardirq. */
static void reading(struct iv_data *d, int i, uint64_t full, uint64_t hardirq,
		    uint64_t run)
{
	struct ctxc_event_val *v = &d->rp.ev[i];

	memset(v, 0, sizeof(*v));
	v->present = true;
	v->full = full;
	v->bucket[CTXCOUNT_BUCKET_HARDIRQ] = hardirq;
	v->bucket[CTXCOUNT_BUCKET_TASK] = full - hardirq;
	v->time_enabled = v->time_running = run;
}

static int tick(struct iv_data *d, double ns)
{
	return cxs_interval_print(&d->iv, &d->rp, NULL, T0_NS + ns);
}

/*
 * The two captured runs' first intervals: @ns of task-clock and one
 * context switch, then an interval in which nothing ran.
 */
static void switch_then_idle(struct iv_data *d, uint64_t ns, double t1,
			     double t2)
{
	reading(d, 0, ns, 0, ns);
	reading(d, 1, 1, 0, ns);
	if (tick(d, t1) || tick(d, t2))
		abort();
}

static char *finish(struct iv_data *d)
{
	fclose(d->f);
	cxs_interval_free(&d->iv);
	return d->buf;
}

/*
 * $ perf stat -I 100 -e task-clock sleep 0.25     (perf 6.1.192)
 * #           time             counts unit events
 *      0.100224660               0.66 msec task-clock   #    0.007 CPUs utilized
 *      0.200481412      <not counted> msec task-clock
 *      0.251325691               0.05 msec task-clock   #    0.000 CPUs utilized
 * (padding as perf prints it, below). The metric divides by the nominal
 * 100 ms, not by the interval's length, as perf does.
 */
TEST(std_matches_real_perf)
{
	struct iv_data d;
	char *out;

	iv_setup(&d, "task-clock", CXS_OUTPUT_STD, false);
	reading(&d, 0, 660000, 0, 660000);
	ASSERT_EQ(0, tick(&d, 100224660));
	ASSERT_EQ(0, tick(&d, 200481412));	/* nothing ran: not counted */
	reading(&d, 0, 709000, 0, 709000);	/* 0.049 msec: 0.000 CPUs */
	ASSERT_EQ(0, tick(&d, 251325691));
	out = finish(&d);
	EXPECT_STREQ(
"#           time             counts unit events\n"
"     0.100224660               0.66 msec task-clock                       #    0.007 CPUs utilized          \n"
"     0.200481412      <not counted> msec task-clock                                                  \n"
"     0.251325691               0.05 msec task-clock                       #    0.000 CPUs utilized          \n",
		     out);
	free(out);
}

/*
 * $ perf stat -I 100 -x, -e task-clock,context-switches sleep 0.25
 *      0.100152663,0.74,msec,task-clock,737596,100.00,0.007,CPUs utilized
 *      0.100152663,1,,context-switches,737596,100.00,1.356,K/sec
 *      0.200443731,<not counted>,msec,task-clock,0,100.00,,
 *      0.200443731,<not counted>,,context-switches,0,100.00,,
 *      0.251311826,0.05,msec,task-clock,50886,100.00,0.001,CPUs utilized
 *      0.251311826,0,,context-switches,50886,100.00,0.000,/sec
 * No header line in CSV.
 */
TEST(csv_matches_real_perf)
{
	struct iv_data d;
	char *out;

	iv_setup(&d, "task-clock,context-switches", CXS_OUTPUT_CSV, false);
	switch_then_idle(&d, 737596, 100152663, 200443731);
	reading(&d, 0, 737596 + 50886, 0, 737596 + 50886);
	reading(&d, 1, 1, 0, 737596 + 50886);
	ASSERT_EQ(0, tick(&d, 251311826));
	out = finish(&d);
	EXPECT_STREQ(
"     0.100152663,0.74,msec,task-clock,737596,100.00,0.007,CPUs utilized\n"
"     0.100152663,1,,context-switches,737596,100.00,1.356,K/sec\n"
"     0.200443731,<not counted>,msec,task-clock,0,100.00,,\n"
"     0.200443731,<not counted>,,context-switches,0,100.00,,\n"
"     0.251311826,0.05,msec,task-clock,50886,100.00,0.001,CPUs utilized\n"
"     0.251311826,0,,context-switches,50886,100.00,0.000,/sec\n", out);
	free(out);
}

/*
 * $ perf stat -I 100 -j -e task-clock,context-switches sleep 0.25
 * (first interval and the empty one; one object per line)
 */
TEST(json_matches_real_perf)
{
	struct iv_data d;
	char *out;

	iv_setup(&d, "task-clock,context-switches", CXS_OUTPUT_JSON, false);
	switch_then_idle(&d, 652850, 100140609, 200403110);
	out = finish(&d);
	EXPECT_STREQ(
"{\"interval\" : 0.100140609, \"counter-value\" : \"0.652850\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 652850, \"pcnt-running\" : 100.00, \"metric-value\" : 0.006528, \"metric-unit\" : \"CPUs utilized\"}\n"
"{\"interval\" : 0.100140609, \"counter-value\" : \"1.000000\", \"unit\" : \"\", \"event\" : \"context-switches\", \"event-runtime\" : 652850, \"pcnt-running\" : 100.00, \"metric-value\" : 1.531745, \"metric-unit\" : \"K/sec\"}\n"
"{\"interval\" : 0.200403110, \"counter-value\" : \"<not counted>\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
"{\"interval\" : 0.200403110, \"counter-value\" : \"<not counted>\", \"unit\" : \"\", \"event\" : \"context-switches\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n",
		     out);
	free(out);
}

/*
 * Each interval prints what changed since the previous READ, breakdown
 * rows included: READs of 1000 (100 hardirq), 3500 (400), 3600 (400)
 * print 1000/900/100, 2500/2200/300, 100/100/0. The time column is whole
 * seconds and nanoseconds of the time since the start.
 */
TEST(deltas_not_totals)
{
	struct iv_data d;
	char *out;

	iv_setup(&d, "instructions:t", CXS_OUTPUT_CSV, true);
	reading(&d, 0, 1000, 100, 1000);
	ASSERT_EQ(0, tick(&d, 1001234567));
	reading(&d, 0, 3500, 400, 2000);
	ASSERT_EQ(0, tick(&d, 2000000001));
	reading(&d, 0, 3600, 400, 3000);
	ASSERT_EQ(0, tick(&d, 12345678901.0));
	out = finish(&d);
	EXPECT_STREQ(
"     1.001234567,900,,instructions:t,1000,100.00,90.00,of all\n"
"     1.001234567,900,,instructions [task],1000,100.00,90.00,of all\n"
"     1.001234567,100,,instructions [hardirq],1000,100.00,10.00,of all\n"
"     1.001234567,0,,instructions [nmi],1000,100.00,0.00,of all\n"
"     2.000000001,2200,,instructions:t,1000,100.00,88.00,of all\n"
"     2.000000001,2200,,instructions [task],1000,100.00,88.00,of all\n"
"     2.000000001,300,,instructions [hardirq],1000,100.00,12.00,of all\n"
"     2.000000001,0,,instructions [nmi],1000,100.00,0.00,of all\n"
"    12.345678901,100,,instructions:t,1000,100.00,100.00,of all\n"
"    12.345678901,100,,instructions [task],1000,100.00,100.00,of all\n"
"    12.345678901,0,,instructions [hardirq],1000,100.00,0.00,of all\n"
"    12.345678901,0,,instructions [nmi],1000,100.00,0.00,of all\n", out);
	free(out);
}

/*
 * The irq entry/exit estimate is taken from the task bucket at each READ,
 * never more than is there: an interval can see the task bucket shrink.
 * It prints the negative difference, so the intervals still add up.
 */
TEST(task_bucket_may_shrink)
{
	struct iv_data d;
	char *out;

	iv_setup(&d, "instructions:t", CXS_OUTPUT_CSV, false);
	reading(&d, 0, 1000, 0, 1000);
	ASSERT_EQ(0, tick(&d, 1e8));
	reading(&d, 0, 1010, 0, 2000);
	d.rp.ev[0].bucket[CTXCOUNT_BUCKET_TASK] = 990;
	d.rp.ev[0].bucket[CTXCOUNT_BUCKET_IRQ_ENTRY_EST] = 20;
	ASSERT_EQ(0, tick(&d, 2e8));
	out = finish(&d);
	EXPECT_NE(NULL, strstr(out, "     0.200000000,-10,,instructions:t,1000,"))
		TH_LOG("%s", out);
	free(out);
}

/*
 * perf's header comes before every 25 intervals:
 * $ perf stat -I 10 -e task-clock sleep 0.6 2>&1 | grep -n "#           time"
 * 1:..., 27:..., 53:... (perf 6.1.192)
 */
TEST(std_header_every_25_intervals)
{
	struct iv_data d;
	char *out, *p;
	int i, headers = 0, lines = 0;

	iv_setup(&d, "task-clock", CXS_OUTPUT_STD, false);
	for (i = 1; i <= 53; i++) {
		reading(&d, 0, i * 1000000ULL, 0, i * 1000000ULL);
		ASSERT_EQ(0, tick(&d, i * 1e8));
	}
	out = finish(&d);
	for (p = out; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, "#           time", 16)) {
			/* lines 1, 27 and 53 (0-based 0, 26, 52), as perf's */
			EXPECT_EQ(0, lines % 26) TH_LOG("header at line %d", lines);
			headers++;
		}
		lines++;
	}
	EXPECT_EQ(3, headers);
	EXPECT_EQ(53 + 3, lines);
	free(out);
}

/* A counter the session could not create is <not supported> each time. */
TEST(not_supported_every_interval)
{
	struct iv_data d;
	char *out;

	iv_setup(&d, "task-clock,cycles", CXS_OUTPUT_CSV, false);
	reading(&d, 0, 2000000, 0, 2000000);
	d.rp.ev[1] = (struct ctxc_event_val){ .present = true,
						.error = -ENOENT };
	ASSERT_EQ(0, tick(&d, 1e8));
	out = finish(&d);
	EXPECT_STREQ(
"     0.100000000,2.00,msec,task-clock,2000000,100.00,0.020,CPUs utilized\n"
"     0.100000000,<not supported>,,cycles,0,100.00,,\n", out);
	free(out);
}

TEST_HARNESS_MAIN
