// SPDX-License-Identifier: GPL-2.0
/*
 * ctxstat's command line as a user meets it: usage errors, exit status of
 * the workload, messages for an unknown event and for a module that is not
 * loaded, CSV (-x) fields, breakdown rows that add up to the full count,
 * repeated runs, JSON lines, -I intervals that add up to the run,
 * --irq-sources rows that add up to their hardirq row.
 *
 * In detail:
 * - bad flags exit non-zero with the usage text, -h exits 0; the exit
 *   status is the workload's (128+N on a signal); unknown program, event
 *   and modifier are named; CSV has 7 fields (8 with -r, the variance
 *   ending in %), unit msec, an integer run time and a percentage in
 *   0..100; -v --breakdown prints every context row ([irq entry/exit
 *   estimate] included, none with --no-irq-estimate) adding up to the full
 *   count;
 * - -I 100 -x, --summary --breakdown on 1 s of spinning (ctxstat and its
 *   command on one CPU: docs/TESTING.md, "The live view", says why) prints
 *   at least 3 intervals with a growing time column, adding up to the
 *   summary exactly for context-switches and its [task]/[hardirq] rows,
 *   within the printed rounding for task-clock; the same exactly for -a -I
 *   100;
 * - with CTXCOUNT_FEATURE_IRQ_SOURCES, -v --irq-sources rows add up to
 *   their event's hardirq row (exactly for instructions where counted,
 *   within the rounding for cpu-clock), with -a -A per CPU; without the
 *   feature --irq-sources exits 1 before counting, naming it; with the
 *   module unloaded ctxstat fails and says so, and neither it nor the
 *   module asks for the module to be loaded: no modprobe runs
 *   (/proc/sys/kernel/modprobe pointed at a script that logs its
 *   arguments), and the .ko has no alias modprobe could match;
 * - -D 1000 on a command that works before the delay ends, forks a child
 *   then, and works in both processes after it (ctx_workload delayed):
 *   page-faults counts the two processes' faults after the delay and
 *   none of the five times as many before it, instructions:u (where they
 *   count exactly) their loops after the delay and not the five times
 *   longer one before, duration_time the time after the delay only.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

FIXTURE(cli) {
	char *ctxstat, *wl;
	struct cst_run *run;
	int kmsg;
};

FIXTURE_SETUP(cli)
{
	self->kmsg = cst_kmsg_open();
	self->ctxstat = (char *)cst_ctxstat_path();
	self->wl = (char *)cst_workload_path();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	if (access(self->ctxstat, X_OK))
		SKIP(return, "ctxstat not found at %s", self->ctxstat);
}

FIXTURE_TEARDOWN(cli)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->run);
}

static int exit_code(const struct cst_run *r)
{
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	return -1;
}

TEST_F(cli, bad_flags_usage_error)
{
	static const char *const bad[][4] = {
		{ "--no-such-option", "true", NULL },
		{ "-r", "2000000000", "true", NULL },	/* at most 100,000 */
		{ "-r", "x", "true", NULL },
		{ "-n", NULL },				/* no command, -p or -a */
		{ "-p", "1", "-a", NULL },		/* exclusive */
		{ "-x,", "-j", "true", NULL },		/* exclusive */
		{ "-e", NULL },				/* missing value */
	};
	unsigned int i, j;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[8] = { self->ctxstat };
		char line[128] = "";

		for (j = 0; bad[i][j]; j++) {
			argv[j + 1] = (char *)bad[i][j];
			strcat(line, " ");
			strcat(line, bad[i][j]);
		}
		cst_run(self->run, argv, 30);
		EXPECT_NE(0, exit_code(self->run)) TH_LOG("ctxstat%s accepted", line);
		EXPECT_TRUE(WIFEXITED(self->run->status));
		EXPECT_NE(NULL, strcasestr(self->run->err, "usage"))
			TH_LOG("ctxstat%s: no usage text:\n%s", line, self->run->err);
		TH_LOG("ctxstat%s: exit %d, %.*s", line, exit_code(self->run),
		       (int)strcspn(self->run->err, "\n"), self->run->err);
	}
}

TEST_F(cli, help_is_not_an_error)
{
	char *argv[] = { self->ctxstat, "-h", NULL };

	cst_run(self->run, argv, 30);
	EXPECT_EQ(0, exit_code(self->run));
	EXPECT_NE(NULL, strcasestr(self->run->out, "usage"));
}

TEST_F(cli, exit_status_is_workloads)
{
	static const int codes[] = { 0, 3, 77 };
	unsigned int i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		char code[8];
		char *argv[] = { self->ctxstat, "-e", "cpu-clock", "--", self->wl,
				 "exit", code, NULL };

		snprintf(code, sizeof(code), "%d", codes[i]);
		cst_run(self->run, argv, 60);
		EXPECT_EQ(codes[i], exit_code(self->run))
			TH_LOG("workload exit %d; stderr:\n%s", codes[i], self->run->err);
	}
}

TEST_F(cli, killed_workload_status)
{
	char *argv[] = { self->ctxstat, "-e", "cpu-clock", "--", "/bin/sh", "-c",
			 "kill -TERM $$", NULL };

	cst_run(self->run, argv, 60);
	/* like a shell: 128 + signal number */
	EXPECT_EQ(128 + SIGTERM, exit_code(self->run)) TH_LOG("%s", self->run->err);
}

TEST_F(cli, missing_workload_command)
{
	char *argv[] = { self->ctxstat, "-e", "cpu-clock", "--",
			 "/nonexistent/program", NULL };

	cst_run(self->run, argv, 60);
	EXPECT_NE(0, exit_code(self->run));
	EXPECT_NE(NULL, strstr(self->run->err, "/nonexistent/program"))
		TH_LOG("stderr does not name the program:\n%s", self->run->err);
}

TEST_F(cli, unknown_event)
{
	char *argv[] = { self->ctxstat, "-e", "no-such-event", "--", self->wl,
			 "exit", "0", NULL };

	cst_run(self->run, argv, 60);
	EXPECT_NE(0, exit_code(self->run));
	EXPECT_NE(NULL, strstr(self->run->err, "no-such-event"))
		TH_LOG("stderr does not name the event:\n%s", self->run->err);
	EXPECT_NE(NULL, strcasestr(self->run->err, "event"));
	TH_LOG("%.*s", (int)strcspn(self->run->err, "\n"), self->run->err);
}

TEST_F(cli, bad_event_modifier)
{
	char *argv[] = { self->ctxstat, "-e", "cpu-clock:zq", "--", self->wl,
			 "exit", "0", NULL };

	cst_run(self->run, argv, 60);
	EXPECT_NE(0, exit_code(self->run));
	EXPECT_NE(NULL, strstr(self->run->err, "cpu-clock:zq"))
		TH_LOG("stderr:\n%s", self->run->err);
}

/* perf's CSV fields: value, unit, event, run time, % running, metric value, metric unit */
TEST_F(cli, csv_fields)
{
	char *argv[] = { self->ctxstat, "-x,", "-e", "task-clock,cpu-clock:t",
			 "--", self->wl, "spin", "100", NULL };
	static const char *const evs[] = { "task-clock", "cpu-clock:t" };
	struct cst_csv_row row;
	unsigned int i;

	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	for (i = 0; i < 2; i++) {
		char *end;
		double pct;

		ASSERT_EQ(0, cst_csv_find(self->run->err, ',', evs[i], &row))
			TH_LOG("no %s row:\n%s", evs[i], self->run->err);
		EXPECT_EQ(7, row.nfields) TH_LOG("%s: %d fields", evs[i], row.nfields);
		EXPECT_TRUE(row.numeric);
		EXPECT_LT(50.0, row.value) TH_LOG("%s: %s msec for 100 ms of spinning",
						   evs[i], row.f[0]);
		EXPECT_STREQ("msec", row.f[1]);
		strtoull(row.f[3], &end, 10);
		EXPECT_TRUE(row.f[3][0] && !*end) TH_LOG("run time '%s'", row.f[3]);
		pct = strtod(row.f[4], &end);
		EXPECT_TRUE(row.f[4][0] && !*end && pct >= 0 && pct <= 100)
			TH_LOG("percent running '%s'", row.f[4]);
	}
}

TEST_F_TIMEOUT(cli, csv_repeat_variance, 120)
{
	char *argv[] = { self->ctxstat, "-x;", "-r", "3", "-e", "cpu-clock", "--",
			 self->wl, "spin", "30", NULL };
	struct cst_csv_row row;
	size_t l;

	cst_run(self->run, argv, 120);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	ASSERT_EQ(0, cst_csv_find(self->run->err, ';', "cpu-clock", &row))
		TH_LOG("%s", self->run->err);
	/* with -r, the variance follows the event name */
	EXPECT_EQ(8, row.nfields);
	l = strlen(row.f[3]);
	EXPECT_TRUE(l > 1 && row.f[3][l - 1] == '%') TH_LOG("variance '%s'", row.f[3]);
}

TEST_F(cli, breakdown_rows_sum_to_full)
{
	/* an integer-valued event, so the printed rows add up exactly */
	char *argv[] = { self->ctxstat, "-x,", "-v", "--breakdown", "-e",
			 "context-switches,cpu-clock", "--", self->wl, "spin", "200",
			 NULL };
	static const char *const ctxs[] = {
		"task", "irq entry/exit estimate", "hardirq", "softirq:HI",
		"softirq:TIMER", "softirq:NET_TX",
		"softirq:NET_RX", "softirq:BLOCK", "softirq:IRQ_POLL",
		"softirq:TASKLET", "softirq:SCHED", "softirq:HRTIMER",
		"softirq:RCU", "nmi",
	};
	struct cst_csv_row row;
	double sum = 0, full, clk_sum = 0;
	unsigned int i;
	char name[64];

	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "context-switches", &row))
		TH_LOG("%s", self->run->err);
	full = row.value;
	for (i = 0; i < sizeof(ctxs) / sizeof(ctxs[0]); i++) {
		snprintf(name, sizeof(name), "context-switches [%s]", ctxs[i]);
		EXPECT_EQ(0, cst_csv_find(self->run->err, ',', name, &row))
			TH_LOG("no '%s' row with -v --breakdown", name);
		sum += row.value;
		snprintf(name, sizeof(name), "cpu-clock [%s]", ctxs[i]);
		EXPECT_EQ(0, cst_csv_find(self->run->err, ',', name, &row))
			TH_LOG("no '%s' row with -v --breakdown", name);
		clk_sum += row.value;
	}
	EXPECT_EQ(full, sum);
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "cpu-clock", &row));
	/* msec printed with 2 decimals: rounding only */
	EXPECT_GT(0.01 * 15, row.value - clk_sum < 0 ? clk_sum - row.value :
						       row.value - clk_sum)
		TH_LOG("cpu-clock %.2f, its rows add to %.2f", row.value, clk_sum);
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "cpu-clock [task]", &row));
	EXPECT_LT(0, row.value);
}

TEST_F(cli, breakdown_default_shows_nonzero)
{
	char *argv[] = { self->ctxstat, "--breakdown", "-e", "cpu-clock", "--",
			 self->wl, "spin", "200", NULL };

	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "cpu-clock [task]"))
		TH_LOG("%s", self->run->err);
	/* 200 ms busy: timer ticks */
	EXPECT_NE(NULL, strstr(self->run->err, "cpu-clock [hardirq]"))
		TH_LOG("%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "Performance counter stats"));
}

TEST_F(cli, json_lines)
{
	char *argv[] = { self->ctxstat, "-j", "-e", "cpu-clock", "--", self->wl,
			 "spin", "20", NULL };
	const char *p;

	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	p = strstr(self->run->err, "\"event\" : \"cpu-clock\"");
	ASSERT_NE(NULL, p) TH_LOG("%s", self->run->err);
	while (p > self->run->err && p[-1] != '\n')
		p--;
	EXPECT_EQ('{', *p);
	EXPECT_NE(NULL, strstr(p, "\"counter-value\""));
}

/* What -I -x, --summary printed for one event. */
struct intervals {
	int n;			/* interval rows */
	double sum;		/* of their values */
	double total;		/* the summary row's value; -1: none */
	bool time_ok;		/* the time column grew from row to row */
};

/*
 * Rows "<time>,<value>,<unit>,<event>,..." and "<spaces>summary,<value>,...",
 * both with the first field right-aligned in 16 columns.
 */
static void parse_intervals(const char *text, const char *event,
			    struct intervals *iv)
{
	char first[32], value[32], unit[16], name[64];
	double t, last = -1;
	const char *p;

	memset(iv, 0, sizeof(*iv));
	iv->total = -1;
	iv->time_ok = true;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (sscanf(p, "%31[^,\n],%31[^,\n],%15[^,\n],%63[^,\n]", first,
			   value, unit, name) != 4 &&
		    sscanf(p, "%31[^,\n],%31[^,\n],,%63[^,\n]", first, value,
			   name) != 3)
			continue;
		if (strcmp(name, event))
			continue;
		if (strstr(first, "summary")) {
			iv->total = strtod(value, NULL);
			continue;
		}
		if (first[0] != ' ' || sscanf(first, "%lf", &t) != 1)
			continue;
		iv->time_ok = iv->time_ok && t > last;
		last = t;
		iv->sum += strtod(value, NULL);
		iv->n++;
	}
}

/*
 * ctxstat and its command on the test's CPU: on the arm64 -icount guests
 * a wake-up that crosses to the other, idle vCPU comes 100 to 400 ms
 * late most times, perf stat's as well (figures in docs/TESTING.md). That
 * is the test bed's, not ctxstat's: -I's tests pin, so that their
 * intervals come when due. Returns the mask to give back with
 * restore_cpus().
 */
static cpu_set_t pin_here(void)
{
	cpu_set_t old, one;

	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	return old;
}

static void restore_cpus(const cpu_set_t *old)
{
	sched_setaffinity(0, sizeof(*old), old);
}

/*
 * -I 100 on 1 s of spinning, on one CPU (pin_here()): at least 3
 * intervals, the time column growing, and the intervals adding up to the
 * --summary total (the last READ): exactly for an integer count, within
 * the printed rounding (0.005 msec a row) for task-clock; with
 * --breakdown per context too.
 */
TEST_F(cli, interval_sums_to_summary)
{
	char *argv[] = { self->ctxstat, "-I", "100", "-x,", "--summary",
			 "--breakdown", "-e", "task-clock,context-switches", "--",
			 self->wl, "spin", "1000", NULL };
	static const char *const exact[] = {
		"context-switches", "context-switches [task]",
		"context-switches [hardirq]",
	};
	static const char *const rounded[] = {
		"task-clock", "task-clock [task]", "task-clock [hardirq]",
	};
	struct intervals iv;
	cpu_set_t cpus;
	unsigned int i;

	cpus = pin_here();
	cst_run(self->run, argv, 120);
	restore_cpus(&cpus);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		parse_intervals(self->run->err, exact[i], &iv);
		EXPECT_LE(3, iv.n) TH_LOG("%s: %d intervals:\n%s", exact[i],
					   iv.n, self->run->err);
		EXPECT_TRUE(iv.time_ok) TH_LOG("%s", self->run->err);
		EXPECT_EQ(iv.total, iv.sum) TH_LOG("%s: intervals %.0f, summary %.0f",
						    exact[i], iv.sum, iv.total);
	}
	for (i = 0; i < sizeof(rounded) / sizeof(rounded[0]); i++) {
		parse_intervals(self->run->err, rounded[i], &iv);
		EXPECT_LE(3, iv.n);
		ASSERT_LE(0, iv.total) TH_LOG("no summary row for %s", rounded[i]);
		EXPECT_GE(0.005 * (iv.n + 1), fabs(iv.sum - iv.total))
			TH_LOG("%s: intervals %.2f, summary %.2f msec", rounded[i],
			       iv.sum, iv.total);
		TH_LOG("%s: %d intervals, %.2f msec, summary %.2f", rounded[i],
		       iv.n, iv.sum, iv.total);
	}
	parse_intervals(self->run->err, "task-clock", &iv);
	/* 1 s of spinning, counted in intervals */
	EXPECT_LT(500.0, iv.sum) TH_LOG("%.2f msec", iv.sum);
}

/* -a with a command: system wide, for as long as it runs. */
TEST_F(cli, interval_system_wide)
{
	char *argv[] = { self->ctxstat, "-a", "-I", "100", "-x,", "--summary",
			 "-e", "context-switches", "--", self->wl, "spin", "300",
			 NULL };
	struct intervals iv;
	cpu_set_t cpus;

	cpus = pin_here();
	cst_run(self->run, argv, 120);
	restore_cpus(&cpus);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	parse_intervals(self->run->err, "context-switches", &iv);
	EXPECT_LE(2, iv.n) TH_LOG("%s", self->run->err);
	EXPECT_TRUE(iv.time_ok);
	EXPECT_EQ(iv.total, iv.sum) TH_LOG("intervals %.0f, summary %.0f",
					    iv.sum, iv.total);
	EXPECT_LT(0, iv.total);
}

/*
 * Sum the CSV rows of @text (separator ';': a handler's name may have
 * commas) that begin with @lead ("" or "CPU1;") and whose event is @name,
 * or starts with it with @prefix; how many into @n, whether any was not
 * a number ("<not supported>") into @bad.
 */
static double row_sum(const char *text, const char *lead, const char *name,
		      bool prefix, int *n, bool *bad)
{
	const char *line, *ev;
	double v, sum = 0;
	char *end;
	size_t len;

	*n = 0;
	*bad = false;
	for (line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, lead, strlen(lead)))
			continue;
		/* value;unit;event */
		ev = strchr(line + strlen(lead), ';');
		ev = ev ? strchr(ev + 1, ';') : NULL;
		if (!ev++)
			continue;
		len = strcspn(ev, ";\n");
		if (prefix ? strncmp(ev, name, strlen(name)) :
			     (len != strlen(name) || strncmp(ev, name, len)))
			continue;
		v = strtod(line + strlen(lead), &end);
		if (*end != ';')
			*bad = true;
		sum += v;
		(*n)++;
	}
	return sum;
}

/*
 * @event's source rows (after @lead) against its hardirq row: exactly for
 * an integer count, within the printed rounding (0.005 a row) for msec.
 * Returns whether the event was counted; its hardirq row in @hardirq.
 */
static bool sources_add_up(struct __test_metadata *_metadata,
			   const char *text, const char *lead,
			   const char *event, bool exact, double *hardirq)
{
	char name[64];
	double sum;
	bool bad;
	int n;

	snprintf(name, sizeof(name), "%s [hardirq]", event);
	*hardirq = row_sum(text, lead, name, false, &n, &bad);
	if (n != 1 || bad)
		return false;
	snprintf(name, sizeof(name), "%s [hardirq:", event);
	sum = row_sum(text, lead, name, true, &n, &bad);
	EXPECT_FALSE(bad);
	if (exact) {
		EXPECT_EQ(*hardirq, sum) TH_LOG("%s%s: hardirq %.0f, %d sources %.0f",
						lead, event, *hardirq, n, sum);
	} else {
		EXPECT_GE(0.005 * (n + 1), fabs(sum - *hardirq))
			TH_LOG("%s%s: hardirq %.2f, %d sources %.2f", lead, event,
			       *hardirq, n, sum);
	}
	/* -v: every source row, so at least outside and other */
	EXPECT_LE(2, n) TH_LOG("%s", text);
	return true;
}

/*
 * With a module that splits hardirq by source: every source row of an
 * event (all of them, -v) adds up to its hardirq row; exactly for
 * instructions where the PMU counts them (arm64's emulated one), within
 * the rounding for cpu-clock. A spinning workload takes timer
 * interrupts: hardirq is not empty.
 */
TEST_F(cli, irq_sources_rows_sum_to_hardirq)
{
	char *argv[] = { self->ctxstat, "-x;", "-v", "--irq-sources", "-e",
			 "cpu-clock,instructions", "--", self->wl, "spin", "200",
			 NULL };
	const char *out = self->run->err;
	double hardirq;

	if (!(cst_features() & CTXCOUNT_FEATURE_IRQ_SOURCES))
		SKIP(return, "the module has no CTXCOUNT_FEATURE_IRQ_SOURCES here: no source rows to add up");
	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "hardirq sources sum to")) TH_LOG("%s", out);
	ASSERT_TRUE(sources_add_up(_metadata, out, "", "cpu-clock", false,
				   &hardirq)) TH_LOG("%s", out);
	EXPECT_LT(0, hardirq) TH_LOG("200 ms of spinning without a hardirq");
	if (sources_add_up(_metadata, out, "", "instructions", true, &hardirq)) {
		TH_LOG("instructions [hardirq] %.0f: its sources add up", hardirq);
	} else {
		TH_LOG("instructions not counted here: cpu-clock only");
	}
}

/* -a -A: each CPU's source rows add up to that CPU's hardirq row. */
TEST_F(cli, irq_sources_per_cpu)
{
	char *argv[] = { self->ctxstat, "-a", "-A", "-x;", "-v", "--irq-sources",
			 "-e", "cpu-clock,instructions", "--", self->wl, "spin",
			 "100", NULL };
	const char *out = self->run->err;
	int cpu, cpus = 0, exact = 0;
	double hardirq;
	char lead[16];

	if (!(cst_features() & CTXCOUNT_FEATURE_IRQ_SOURCES))
		SKIP(return, "the module has no CTXCOUNT_FEATURE_IRQ_SOURCES here: no source rows to add up");
	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", out);
	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(lead, sizeof(lead), "CPU%d;", cpu);
		if (!sources_add_up(_metadata, out, lead, "cpu-clock", false,
				    &hardirq))
			continue;
		cpus++;
		exact += sources_add_up(_metadata, out, lead, "instructions",
					true, &hardirq);
	}
	EXPECT_LE(1, cpus) TH_LOG("%s", out);
	TH_LOG("%d CPUs, instructions counted on %d", cpus, exact);
}

/* Without the feature, --irq-sources is refused before counting. */
TEST_F(cli, irq_sources_refused_without_feature)
{
	char *argv[] = { self->ctxstat, "--irq-sources", "-e", "cpu-clock",
			 "--", self->wl, "exit", "0", NULL };

	if (cst_features() & CTXCOUNT_FEATURE_IRQ_SOURCES)
		SKIP(return, "the module has CTXCOUNT_FEATURE_IRQ_SOURCES: irq_sources_rows_sum_to_hardirq runs instead");
	cst_run(self->run, argv, 60);
	EXPECT_EQ(1, exit_code(self->run)) TH_LOG("%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "CTXCOUNT_FEATURE_IRQ_SOURCES"))
		TH_LOG("%s", self->run->err);
	EXPECT_EQ(NULL, strstr(self->run->err, "Performance counter stats"));
	EXPECT_EQ(0, cst_wait_live_sessions(0, 2000));
}

/*
 * -D: what the command does before the delay ends is not counted; what
 * it and the child it forked during the delay do after it is, as perf's
 * counters, opened disabled before the exec and inherited by the child,
 * count once enabled. The command faults in 5 * PAGES pages and loops
 * 5 * ITERS before forking, then from 1.5 s on each process faults in
 * PAGES pages and loops ITERS: the oracle is 2 * PAGES faults (and
 * 4 * ITERS instructions), give or take the little the two processes
 * fault and execute around that (their code's pages, exit), far less
 * than what came before the delay.
 */
#define DELAY_ITERS	2000000
#define DELAY_PAGES	2000

TEST_F_TIMEOUT(cli, delay_counts_after_it_only, 180)
{
	char iters[16], pages[16];
	char *argv[] = { self->ctxstat, "-D", "1000", "-x,", "-e",
			 "page-faults,instructions:u,duration_time", "--", self->wl,
			 "delayed", iters, pages, "1500", NULL };
	struct cst_csv_row row;
	const char *why, *p;
	double before;

	snprintf(iters, sizeof(iters), "%d", DELAY_ITERS);
	snprintf(pages, sizeof(pages), "%d", DELAY_PAGES);
	cst_run(self->run, argv, 120);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	p = strstr(self->run->out, "before: ");
	ASSERT_NE(NULL, p) TH_LOG("stdout: %s", self->run->out);
	before = strtod(p + 8, NULL);
	/* the work before and the fork must be in the delay */
	if (before > 800)
		SKIP(return, "the work before took %.0f ms of the 1000 ms delay: a guest too slow to tell",
		     before);
	EXPECT_NE(NULL, strstr(self->run->err, "Events disabled\n")) TH_LOG("%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "Events enabled\n")) TH_LOG("%s", self->run->err);
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "page-faults", &row))
		TH_LOG("%s", self->run->err);
	ASSERT_TRUE(row.numeric) TH_LOG("%s", self->run->err);
	EXPECT_LE(2 * DELAY_PAGES, row.value)
		TH_LOG("%.0f faults: the child's after the delay are missing", row.value);
	EXPECT_GT(2 * DELAY_PAGES + DELAY_PAGES / 2, row.value)
		TH_LOG("%.0f faults: some of the %d before the delay counted", row.value,
		       5 * DELAY_PAGES);
	TH_LOG("work before the delay: %.0f ms; page-faults after it: %.0f (oracle %d)",
	       before, row.value, 2 * DELAY_PAGES);
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "duration_time", &row))
		TH_LOG("%s", self->run->err);
	EXPECT_LE(400e6, row.value) TH_LOG("%s ns after a 1000 ms delay of 1500", row.f[0]);
	EXPECT_GT(1000e6, row.value) TH_LOG("%s ns: the delay counted", row.f[0]);
	why = cst_oracle_exact_cannot_run();
	if (why) {
		TH_LOG("instructions:u not checked: %s", why);
		return;
	}
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "instructions:u", &row))
		TH_LOG("%s", self->run->err);
	EXPECT_LE(4.0 * DELAY_ITERS, row.value)
		TH_LOG("%.0f instructions: the child's after the delay are missing", row.value);
	EXPECT_GT(4.5 * DELAY_ITERS, row.value)
		TH_LOG("%.0f instructions: some of the %d before the delay counted", row.value,
		       10 * DELAY_ITERS);
	TH_LOG("instructions:u after the delay: %.0f (oracle %d)", row.value, 4 * DELAY_ITERS);
}

/*
 * Loading the module is the administrator's choice, never a side effect
 * of a user's request: no MODULE_ALIAS (a GETFAMILY of "ctxcount" by any
 * user made modprobe load it).
 */
TEST_F(cli, module_has_no_alias)
{
	char *argv[] = { "/usr/sbin/modinfo", "-F", "alias",
			 (char *)cst_ko_path(), NULL };

	if (access(argv[0], X_OK))
		SKIP(return, "no %s (kmod) in this root", argv[0]);
	if (access(cst_ko_path(), R_OK))
		SKIP(return, "%s not readable", cst_ko_path());
	cst_run(self->run, argv, 60);
	ASSERT_EQ(0, exit_code(self->run)) TH_LOG("%s", self->run->err);
	EXPECT_STREQ("", self->run->out);
}

#define MODPROBE_LOG "/tmp/cst-modprobe.log"
#define MODPROBE_FAKE "/tmp/cst-modprobe"

/* The kernel's modprobe path; "" on failure. */
static void modprobe_path(char *buf, size_t len)
{
	ssize_t n = cst_read_text("/proc/sys/kernel/modprobe", buf, len);

	buf[n > 0 ? strcspn(buf, "\n") : 0] = '\0';
}

static int modprobe_set(const char *path)
{
	FILE *f = fopen("/proc/sys/kernel/modprobe", "w");
	int ret;

	if (!f)
		return -errno;
	ret = fprintf(f, "%s\n", path) < 0 ? -EIO : 0;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* A modprobe that logs its arguments and loads nothing. */
static int modprobe_fake(void)
{
	FILE *f = fopen(MODPROBE_FAKE, "w");

	if (!f)
		return -errno;
	fprintf(f, "#!/bin/sh\necho \"$*\" >>%s\nexit 1\n", MODPROBE_LOG);
	if (fclose(f) || chmod(MODPROBE_FAKE, 0755))
		return -errno;
	unlink(MODPROBE_LOG);
	return 0;
}

/* Last: the module goes away for a moment. */
TEST_F_TIMEOUT(cli, module_not_loaded, 120)
{
	char *argv[] = { self->ctxstat, "-e", "cpu-clock", "--", self->wl, "exit",
			 "0", NULL };
	char params[256], modprobe[256], log[512] = "";
	int ret;

	if (access(cst_ko_path(), R_OK))
		SKIP(return, "%s not readable: could not load the module again",
		     cst_ko_path());
	if (cst_live_sessions() != 0)
		SKIP(return, "sessions are live: not unloading the module");
	cst_current_params(params, sizeof(params));
	modprobe_path(modprobe, sizeof(modprobe));
	ASSERT_NE('\0', modprobe[0]);
	ASSERT_EQ(0, modprobe_fake());
	ASSERT_EQ(0, modprobe_set(MODPROBE_FAKE));
	ret = cst_rmmod();
	if (ret)
		modprobe_set(modprobe);
	ASSERT_EQ(0, ret) TH_LOG("rmmod: %s", strerror(-ret));
	cst_run(self->run, argv, 60);
	modprobe_set(modprobe);
	ret = cst_insmod(params);
	cst_read_text(MODPROBE_LOG, log, sizeof(log));
	EXPECT_STREQ("", log) TH_LOG("ctxstat made the kernel run modprobe");
	EXPECT_NE(0, exit_code(self->run));
	EXPECT_NE(NULL, strcasestr(self->run->err, "module"))
		TH_LOG("message does not mention the module:\n%s", self->run->err);
	EXPECT_NE(NULL, strcasestr(self->run->err, "not loaded"))
		TH_LOG("%s", self->run->err);
	TH_LOG("%.*s", (int)strcspn(self->run->err, "\n"), self->run->err);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", cst_ko_path(), params,
				 strerror(-ret));
}

CST_TEST_MAIN
