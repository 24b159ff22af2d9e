// SPDX-License-Identifier: GPL-2.0
/*
 * srcruns tests: ctxstat --irq-sources end to end on the host against
 * tests/fake_nl.c, whose READs split hardirq by source (fake_nl.h): the
 * request, the rows and their order, -r across sessions that number
 * their sources differently, -I, -a -A, and a module without sources.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"

#define VIRTIO	"instructions [hardirq:24 virtio0-input.0]"
#define OUTSIDE	"instructions [hardirq: outside handlers]"
#define TIMER	"instructions [hardirq:local_timer]"
#define ORACLE	"instructions [hardirq:40 ctxoracle]"
#define HARDIRQ	"instructions [hardirq]"

static void fake_with_sources(void)
{
	fake_nl_reset();
	fake_nl.sources = true;
	fake_nl.features = CTXCOUNT_FEATURE_NMI | CTXCOUNT_FEATURE_IRQ_SOURCES;
}

/* The value of CSV row @event in @text (no time or CPU column), or -1. */
static double csv_value(const char *text, const char *event)
{
	char name[96];
	const char *p;
	double v;

	for (p = text; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (sscanf(p, "%lf,,%95[^,\n]", &v, name) == 2 &&
		    !strcmp(name, event))
			return v;
	}
	return -1;
}

/* Where row @event begins in @text, for checking the rows' order. */
static const char *row_at(const char *text, const char *event)
{
	char want[128];

	snprintf(want, sizeof(want), ",%s,", event);
	return strstr(text, want);
}

/* The flag and the limit go in the request; --irq-sources implies rows. */
TEST(request_and_rows)
{
	struct outcome o;
	double sum;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-x,", "--irq-sources=5", "-e",
			    "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(CTXCOUNT_SESSION_F_IRQ_SOURCES,
		  fake_nl.target.session_flags & CTXCOUNT_SESSION_F_IRQ_SOURCES);
	EXPECT_EQ(5, fake_nl.target.max_sources);
	EXPECT_EQ(10, csv_value(o.err, HARDIRQ)) TH_LOG("%s", o.err);
	EXPECT_EQ(5, csv_value(o.err, VIRTIO)) TH_LOG("%s", o.err);
	EXPECT_EQ(3, csv_value(o.err, OUTSIDE));
	EXPECT_EQ(2, csv_value(o.err, TIMER));
	/* ctxoracle is in the even sessions only: not this one's row */
	EXPECT_EQ(-1, csv_value(o.err, ORACLE));
	sum = csv_value(o.err, VIRTIO) + csv_value(o.err, OUTSIDE) +
	      csv_value(o.err, TIMER);
	EXPECT_EQ(csv_value(o.err, HARDIRQ), sum);
	/* after hardirq, largest first, before the softirqs and nmi */
	ASSERT_NE(NULL, row_at(o.err, HARDIRQ));
	EXPECT_LT(row_at(o.err, HARDIRQ), row_at(o.err, VIRTIO));
	EXPECT_LT(row_at(o.err, VIRTIO), row_at(o.err, OUTSIDE));
	EXPECT_LT(row_at(o.err, OUTSIDE), row_at(o.err, TIMER));
	EXPECT_LT(row_at(o.err, TIMER), row_at(o.err, "instructions [nmi]"));
	done(&o);
	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "--irq-sources", "-e", "instructions",
			    "true"), &o);
	EXPECT_EQ(0, fake_nl.target.max_sources);
	EXPECT_NE(NULL, strstr(o.err, "                 5      " VIRTIO " #    0.00% of all"))
		TH_LOG("%s", o.err);
	done(&o);
}

/* Without the option, neither the flag nor the limit is asked for. */
TEST(no_sources_unless_asked)
{
	struct outcome o;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-x,", "--breakdown", "-e",
			    "instructions", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_EQ(0, fake_nl.target.session_flags);
	EXPECT_EQ(0, fake_nl.target.max_sources);
	EXPECT_EQ(NULL, strstr(o.err, "[hardirq:")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * -r: the two sessions number virtio and the timer differently and only
 * the second has ctxoracle; rows follow the sources, not the ids, and a
 * source missing from a run counts 0 there.
 */
TEST(repeat_rows_by_source)
{
	struct outcome o;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-r", "2", "-x,", "--irq-sources", "-e",
			    "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(2, fake_nl.sessions);
	/* value, unit, event, variance: "5,,name,0.00%" */
	EXPECT_NE(NULL, strstr(o.err, "\n5,," VIRTIO ",0.00%,")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "\n3,," OUTSIDE ",0.00%,"));
	/* timer 2 then 1, oracle 0 then 1: means 1.5 and 0.5, +- 33% / 100% */
	EXPECT_NE(NULL, strstr(o.err, "\n2,," TIMER ",33.33%,")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "\n0,," ORACLE ",100.00%,")) TH_LOG("%s", o.err);
	EXPECT_LT(row_at(o.err, TIMER), row_at(o.err, ORACLE));
	done(&o);
	/* JSON has the unrounded means */
	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-r", "2", "-j", "--irq-sources", "-e",
			    "instructions", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "{\"counter-value\" : \"1.500000\", \"unit\" : \"\", \"event\" : \"" TIMER "\", \"variance\" : 33.33,"))
		TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "\"counter-value\" : \"0.500000\", \"unit\" : \"\", \"event\" : \"" ORACLE "\""));
	done(&o);
}

/* -I: each interval is the sources' difference; they sum to the total. */
TEST(intervals_sum_per_source)
{
	static const char *const rows[] = { HARDIRQ, VIRTIO, OUTSIDE, TIMER };
	static const double per_read[] = { 10, 5, 3, 2 };
	struct outcome o;
	double sum, total;
	size_t i;
	int n;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-I", "10", "--summary", "-x,",
			    "--irq-sources", "-e", "instructions", "sleep",
			    "0.05"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		csv_intervals(o.err, rows[i], &sum, &n, &total);
		EXPECT_EQ(fake_nl.reads, n) TH_LOG("%s: %s", rows[i], o.err);
		EXPECT_EQ(per_read[i] * fake_nl.reads, total) TH_LOG("%s", rows[i]);
		EXPECT_EQ(total, sum) TH_LOG("%s", rows[i]);
	}
	done(&o);
}

/* -a -A: each CPU's sources; CPU 1's hardirq is all virtio's. */
TEST(per_cpu_sources)
{
	struct outcome o;
	double c0, c1, sum;
	int n;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-x,", "--irq-sources",
			    "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	csv_cpu_rows(o.err, VIRTIO, 0, &sum, &n, &c0);
	csv_cpu_rows(o.err, VIRTIO, 1, &sum, &n, &c1);
	EXPECT_EQ(3, c0) TH_LOG("%s", o.err);
	EXPECT_EQ(2, c1);
	csv_cpu_rows(o.err, OUTSIDE, 0, &sum, &n, &c0);
	csv_cpu_rows(o.err, OUTSIDE, 1, &sum, &n, &c1);
	EXPECT_EQ(3, c0);
	EXPECT_EQ(-1, c1) TH_LOG("a zero row is left out: %s", o.err);
	csv_cpu_rows(o.err, TIMER, 0, &sum, &n, &c0);
	EXPECT_EQ(2, c0);
	csv_cpu_rows(o.err, HARDIRQ, 0, &sum, &n, &c0);
	csv_cpu_rows(o.err, HARDIRQ, 1, &sum, &n, &c1);
	EXPECT_EQ(8, c0);
	EXPECT_EQ(2, c1);
	done(&o);
}

/* -A -I: each CPU's source intervals add up to its summary row. */
TEST(per_cpu_source_intervals)
{
	struct outcome o;
	double sum, total;
	int n, cpu;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-I", "10", "--summary",
			    "-x,", "--irq-sources", "-e", "instructions",
			    "sleep", "0.05"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	for (cpu = 0; cpu < 2; cpu++) {
		csv_cpu_rows(o.err, VIRTIO, cpu, &sum, &n, &total);
		EXPECT_EQ(fake_nl.reads, n) TH_LOG("%s", o.err);
		EXPECT_EQ((cpu ? 2 : 3) * fake_nl.reads, total);
		EXPECT_EQ(total, sum) TH_LOG("cpu %d: %s", cpu, o.err);
	}
	done(&o);
}

/* An older module, or one without the feature: said before counting. */
TEST(old_module_refused)
{
	struct outcome o;

	fake_with_sources();
	fake_nl.version = 3;
	run(stat_main, ARGV("ctxstat", "--irq-sources", "-e", "instructions",
			    "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: the loaded ctxcount module has no per-source hardirq rows (--irq-sources): its protocol version is 3, they need 4"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	fake_with_sources();
	fake_nl.version = 5;
	fake_nl.features = CTXCOUNT_FEATURE_NMI;
	run(stat_main, ARGV("ctxstat", "-a", "-A", "--irq-sources", "-e",
			    "instructions", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: the loaded ctxcount module (protocol version 5) does not split hardirq by source here: its STATS lack CTXCOUNT_FEATURE_IRQ_SOURCES"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	/* the rest works as before with that module */
	fake_with_sources();
	fake_nl.version = 3;
	run(stat_main, ARGV("ctxstat", "-a", "-C", "0", "--breakdown", "-e",
			    "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	done(&o);
}

/* -v checks the reply: sources that do not add up to hardirq are said. */
TEST(verbose_checks_source_sum)
{
	struct outcome o;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-v", "--irq-sources", "-e",
			    "instructions", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_EQ(NULL, strstr(o.err, "hardirq sources sum to")) TH_LOG("%s", o.err);
	done(&o);
	fake_with_sources();
	fake_nl.src_skew = 1;
	run(stat_main, ARGV("ctxstat", "-v", "--irq-sources", "-e",
			    "instructions", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: instructions: hardirq sources sum to 11, hardirq is 10\n"))
		TH_LOG("%s", o.err);
	done(&o);
}

/* -v shows the rows seen with nothing in them: CPU 1's outside row. */
TEST(verbose_shows_zero_rows)
{
	struct outcome o;
	double c1, sum;
	int n;

	fake_with_sources();
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-x,", "-v", "--irq-sources",
			    "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	csv_cpu_rows(o.err, OUTSIDE, 1, &sum, &n, &c1);
	EXPECT_EQ(0, c1) TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
