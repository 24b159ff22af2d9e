// SPDX-License-Identifier: GPL-2.0
/*
 * breakdown tests: ctxcount's rows, by hand: the :t row (the task bucket,
 * "of all" the full count) and --breakdown's row per context, where they
 * go, which contexts show, in every format.
 */
#include "kselftest_harness.h"
#include "series_fixture.h"

static void split_buckets(struct fixture_data *d)
{
	/* cycles: 1000 = task 900 + hardirq 60 + TIMER 10 + NET_RX 30 */
	struct cxs_counter_reading rd = {
		.full = 1000, .time_enabled = 100, .time_running = 100,
	};

	rd.bucket[CTXCOUNT_BUCKET_TASK] = 900;
	rd.bucket[CTXCOUNT_BUCKET_HARDIRQ] = 60;
	rd.bucket[CTXCOUNT_BUCKET_SOFTIRQ_TIMER] = 10;
	rd.bucket[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX] = 30;
	cxs_counter_add(&d->res[0], &rd);
	cxs_sample_add(&d->elapsed, 1000);
}

TEST(task_only_row_and_breakdown)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles,cycles:t", 1);
	EXPECT_EQ(1, d.events.nr_counters);
	split_buckets(&d);
	out = render(&d, CXS_OUTPUT_STD, NULL, true, 0);
	EXPECT_STREQ("\n"
" Performance counter stats for '':\n"
"\n"
"              1000      cycles                                                             \n"
"               900      cycles [task]                    #   90.00% of all                 \n"
"                60      cycles [hardirq]                 #    6.00% of all                 \n"
"                10      cycles [softirq:TIMER]           #    1.00% of all                 \n"
"                30      cycles [softirq:NET_RX]          #    3.00% of all                 \n"
"                 0      cycles [nmi]                     #    0.00% of all                 \n"
"               900      cycles:t                         #   90.00% of all                 \n"
"\n"
"       0.000001000 seconds time elapsed\n"
"\n", out);
	free(out);
	release(&d);
}

/* Under the full row even when the :t row comes first. */
TEST(breakdown_goes_under_full_row)
{
	struct fixture_data d;
	char *out, *full, *task, *hardirq;

	setup(&d, "cycles:t,instructions,cycles", 1);
	EXPECT_EQ(2, d.events.nr_counters);
	split_buckets(&d);
	run_counter(&d, 1, 500, 100, 100);
	out = render(&d, CXS_OUTPUT_CSV, ",", true, 0);
	task = strstr(out, ",cycles:t,");
	full = strstr(out, ",cycles,");
	hardirq = strstr(out, ",cycles [hardirq],");
	ASSERT_NE(NULL, task);
	ASSERT_NE(NULL, full);
	ASSERT_NE(NULL, hardirq);
	EXPECT_LT(task, full);
	EXPECT_LT(full, hardirq);
	EXPECT_NE(NULL, strstr(out, ",instructions [task],"));
	/* Exactly one breakdown per counter. */
	EXPECT_EQ(NULL, strstr(hardirq + 1, ",cycles [hardirq],"));
	free(out);
	release(&d);
}

TEST(breakdown_verbose_shows_every_vector)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles:t", 1);
	split_buckets(&d);
	out = render(&d, CXS_OUTPUT_STD, NULL, true, 1);
	/* Named after the counter, without :t. */
	EXPECT_NE(NULL, strstr(out, " cycles [softirq:HI] "));
	EXPECT_NE(NULL, strstr(out, " cycles [softirq:RCU] "));
	free(out);
	out = render(&d, CXS_OUTPUT_STD, NULL, true, 0);
	EXPECT_EQ(NULL, strstr(out, "[softirq:HI]"));
	free(out);
	release(&d);
}

TEST(breakdown_without_nmi_bucket)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles", 1);
	split_buckets(&d);
	d.series.no_nmi_bucket = true;
	out = render(&d, CXS_OUTPUT_CSV, ",", true, 0);
	EXPECT_EQ(NULL, strstr(out, "[nmi]"));
	free(out);
	out = render(&d, CXS_OUTPUT_CSV, ",", true, 1);
	EXPECT_NE(NULL, strstr(out, ",cycles [nmi],"));
	free(out);
	release(&d);
}

TEST(breakdown_csv_json)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles:t", 1);
	split_buckets(&d);
	out = render(&d, CXS_OUTPUT_CSV, ",", true, 0);
	EXPECT_STREQ("900,,cycles:t,100,100.00,90.00,of all\n"
		     "900,,cycles [task],100,100.00,90.00,of all\n"
		     "60,,cycles [hardirq],100,100.00,6.00,of all\n"
		     "10,,cycles [softirq:TIMER],100,100.00,1.00,of all\n"
		     "30,,cycles [softirq:NET_RX],100,100.00,3.00,of all\n"
		     "0,,cycles [nmi],100,100.00,0.00,of all\n", out);
	free(out);
	out = render(&d, CXS_OUTPUT_JSON, NULL, true, 0);
	EXPECT_NE(NULL, strstr(out, "{\"counter-value\" : \"30.000000\", \"unit\" : \"\", \"event\" : \"cycles [softirq:NET_RX]\", \"event-runtime\" : 100, \"pcnt-running\" : 100.00, \"metric-value\" : 3.000000, \"metric-unit\" : \"of all\"}\n"));
	free(out);
	release(&d);
}

TEST(bucket_labels)
{
	char buf[32];

	cxs_bucket_label(CTXCOUNT_BUCKET_SOFTIRQ_NET_RX, buf, sizeof(buf));
	EXPECT_STREQ("softirq:NET_RX", buf);
	cxs_bucket_label(CTXCOUNT_BUCKET_SOFTIRQ_RCU, buf, sizeof(buf));
	EXPECT_STREQ("softirq:RCU", buf);
	cxs_bucket_label(CTXCOUNT_BUCKET_NMI, buf, sizeof(buf));
	EXPECT_STREQ("nmi", buf);
	EXPECT_EQ(NULL, cxs_softirq_name(CTXCOUNT_BUCKET_TASK));
}

TEST_HARNESS_MAIN
