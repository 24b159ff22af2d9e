// SPDX-License-Identifier: GPL-2.0
/*
 * vocabulary tests: stat -r, compare and report say the same things in
 * the same words ("±" is perf's standard error, one correction, one set
 * of verdicts, one threshold), one run has no spread, --warmup, and
 * Markdown that renders what it says. Against tests/fake_nl.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "fake_nl.h"
#include "runs_fixture.h"
#include "builtin.h"

FIXTURE(scratch) {
	char dir[64], save[96], count[96];
};

FIXTURE_SETUP(scratch)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/ctxstat-vocab-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->save, sizeof(self->save), "%s/s.json", self->dir);
	snprintf(self->count, sizeof(self->count), "%s/count", self->dir);
	fake_nl_reset();
}

FIXTURE_TEARDOWN(scratch)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("%s failed", cmd);
}

/* CSV field @n (0-based) of @line into @buf. */
static void field(const char *line, int n, char *buf, size_t len)
{
	size_t k;

	while (n-- > 0 && (line = strchr(line, ',')))
		line++;
	k = line ? strcspn(line, ",\n") : 0;
	snprintf(buf, len, "%.*s", (int)(k < len ? k : len - 1), line ?: "");
}

/*
 * The file: compare said "no significant change" for all 13
 * events (Holm) and report starred all 13 (p < 0.05 uncorrected). B
 * counts 3 more than A in every event, runs 0 to 3 apart: Welch's p
 * about 0.017 each, 0.2 after Holm over 13. Now report's verdict and
 * p (Holm) are compare's, event by event.
 */
TEST_F(scratch, report_agrees_with_compare)
{
	char want[64], got[64], name[64];
	const char *c, *r;
	struct outcome oc, orp;
	int events = 0;

	fake_nl.base[1] = fake_nl.base[0] + 3;
	run(cmd_compare, ARGV("compare", "-r", "4", "--threshold", "0", "--no-noise-check",
				   "-x,", "--save", self->save, "true", "---", "true"), &oc);
	ASSERT_EQ(0, oc.code) TH_LOG("%s", oc.err);
	run(cmd_report, ARGV("report", "--threshold", "0", "-x,", self->save), &orp);
	ASSERT_EQ(0, orp.code) TH_LOG("%s", orp.err);
	/* compare: event,...,verdict (8),...,p (Holm) (17); report: ...,p (Holm) (9), verdict (10) */
	for (c = oc.out; *c; c = strchr(c, '\n') + 1) {
		field(c, 0, name, sizeof(name));
		for (r = orp.out; *r; r = strchr(r, '\n') + 1) {
			field(r, 1, got, sizeof(got));
			if (!strcmp(got, name))
				break;
		}
		ASSERT_TRUE(*r) TH_LOG("%s not in report:\n%s", name, orp.out);
		field(c, 8, want, sizeof(want));
		field(r, 10, got, sizeof(got));
		EXPECT_STREQ(want, got) TH_LOG("%s", name);
		if (strcmp(want, "<not supported>")) {
			EXPECT_STREQ("no significant change", got) TH_LOG("%s", name);
			field(c, 17, want, sizeof(want));
			field(r, 9, got, sizeof(got));
			EXPECT_EQ(atof(want), atof(got)) TH_LOG("%s: p (Holm) %s vs %s", name, want, got);
		}
		events++;
		if (!strchr(c, '\n') || !c[strcspn(c, "\n") + 1])
			break;
	}
	EXPECT_EQ(13, events);
	done(&oc);
	done(&orp);
}

/*
 * The cells of @line, a table's row whose columns are two blanks apart
 * or more (one blank stays inside a cell: "1.000M ± 0.645"), into @cell.
 */
static int cells(const char *line, char cell[][64], int max)
{
	const char *end = line + strcspn(line, "\n"), *gap;
	int n = 0;

	while (line < end && n < max) {
		line += strspn(line, " ");
		gap = strstr(line, "  ");
		if (!gap || gap > end)
			gap = end;
		snprintf(cell[n++], 64, "%.*s", (int)(gap - line), line);
		line = gap;
	}
	return n;
}

/*
 * For every event of compare's summary in @oc, report's row of the file
 * compare saved (@orp) has A's cell and B's cell as the summary has
 * them.
 */
static void expect_compare_cells(struct __test_metadata *_metadata,
				 const struct outcome *oc, const struct outcome *orp)
{
	char c[6][64], r[6][64];
	const char *line, *row;
	int rows = 0;

	line = strstr(oc->out, "B/A [95% CI]");
	ASSERT_NE(NULL, line);
	for (line = strchr(line, '\n') + 1; *line != '\n'; line = strchr(line, '\n') + 1) {
		ASSERT_LE(3, cells(line, c, 6)) TH_LOG("%s", line);
		if (!strstr(c[1], "±"))	/* not compared: <not supported> */
			continue;
		for (row = orp->out; row; row = strchr(row, '\n'), row = row ? row + 1 : NULL)
			if (cells(row, r, 6) >= 4 && !strcmp(r[1], c[0]))
				break;
		ASSERT_NE(NULL, row) TH_LOG("%s not in report:\n%s", c[0], orp->out);
		EXPECT_STREQ(c[1], r[2]) TH_LOG("%s", c[0]);
		EXPECT_EQ(0, strncmp(r[3], c[2], strlen(c[2]))) TH_LOG("%s: %s, %s", c[0], c[2], r[3]);
		EXPECT_TRUE(r[3][strlen(c[2])] == ' ' || !r[3][strlen(c[2])]) TH_LOG("%s", r[3]);
		rows++;
	}
	EXPECT_LT(0, rows) TH_LOG("%s", oc->out);
}

/*
 * report writes a mean and its spread in compare's words: for every
 * event of compare's summary, report's row of the file compare saved
 * has A's cell and B's cell as the summary has them ("2.000ms ± 1.29ns",
 * not "2.00 ± 0.00"; "1.000M ± 0.645", not "1000001 ± 1").
 */
TEST_F(scratch, report_cells_are_compare_cells)
{
	struct outcome oc, orp;

	run(cmd_compare, ARGV("compare", "-r", "4", "--no-noise-check", "--save", self->save,
			      "true", "---", "true"), &oc);
	ASSERT_EQ(0, oc.code) TH_LOG("%s", oc.err);
	run(cmd_report, ARGV("report", self->save), &orp);
	ASSERT_EQ(0, orp.code) TH_LOG("%s", orp.err);
	expect_compare_cells(_metadata, &oc, &orp);
	done(&oc);
	done(&orp);
}

/*
 * A clock is a clock by what it counts, in report as in compare: perf's
 * software/config=1/ is task-clock (the software PMU, type 1, from a
 * fake sysfs tree), and its saved ns are a time in both, not a count in
 * report because its name does not begin with "task-clock".
 */
TEST_F(scratch, report_knows_clocks_as_compare)
{
	char path[256], root[96];
	struct outcome oc, orp;
	FILE *f;

	snprintf(root, sizeof(root), "%s/sys", self->dir);
	snprintf(path, sizeof(path), "mkdir -p %s/bus/event_source/devices/software", root);
	ASSERT_EQ(0, system(path));
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/software/type", root);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("1\n", f);
	fclose(f);
	setenv("CTX_SYSFS_ROOT", root, 1);
	run(cmd_compare, ARGV("compare", "-r", "4", "--no-noise-check", "--save", self->save,
			      "-e", "software/config=1/,instructions", "true", "---", "true"), &oc);
	ASSERT_EQ(0, oc.code) TH_LOG("%s", oc.err);
	run(cmd_report, ARGV("report", self->save), &orp);
	unsetenv("CTX_SYSFS_ROOT");
	ASSERT_EQ(0, orp.code) TH_LOG("%s", orp.err);
	EXPECT_NE(NULL, strstr(orp.out, "software/config=1/  1.000ms ± ")) TH_LOG("%s", orp.out);
	expect_compare_cells(_metadata, &oc, &orp);
	done(&oc);
	done(&orp);
}

/*
 * The same words from a saved file alone: a task-clock of 999875.7 ns
 * with a standard error of 14.38 ns (squared deviations 1 + 595.36 +
 * 645.16, over 2, over 3 runs) is "999.9us ± 14.4ns", not "1.00 ± 0.00"
 * msec; a mean of 13 / 3 context switches with se sqrt(1 / 9) is
 * "4.333 ± 0.333", not "4 ± 0"; 1005 counts are "1.005k" beside an se
 * of 2.89 (sqrt(25 / 3)).
 */
TEST_F(scratch, report_figures_by_hand)
{
	struct outcome o;
	FILE *f = fopen(self->save, "w");

	ASSERT_NE(NULL, f);
	fputs("{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
	      " {\"benchmark\": \"b\", \"config\": \"A\", \"command\": [], \"runs\": 3,"
	      "  \"elapsed_ns\": [1, 1, 1], \"events\": ["
	      "  {\"name\": \"task-clock\", \"values\": [999876.7, 999900.1, 999850.3]},"
	      "  {\"name\": \"cs\", \"values\": [4, 5, 4]},"
	      "  {\"name\": \"instructions\", \"values\": [1000, 1010, 1005]}]}]}\n", f);
	fclose(f);
	run(cmd_report, ARGV("report", self->save), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.out, "  999.9us ± 14.4ns\n")) TH_LOG("%s", o.out);
	EXPECT_NE(NULL, strstr(o.out, "  4.333 ± 0.333\n")) TH_LOG("%s", o.out);
	EXPECT_NE(NULL, strstr(o.out, "  1.005k ± 2.89\n")) TH_LOG("%s", o.out);
	done(&o);
}

/* report prints one table: --markdown and -x, asked together, are refused. */
TEST_F(scratch, report_one_format)
{
	struct outcome o;

	run(cmd_report, ARGV("report", "--markdown", "-x,", self->save), &o);
	EXPECT_EQ(129, o.code);
	EXPECT_NE(NULL, strstr(o.err, "  Error: --markdown and -x are two formats: choose one\n"))
		TH_LOG("%s", o.err);
	EXPECT_EQ('\0', o.out[0]) TH_LOG("%s", o.out);
	done(&o);
}

/*
 * One run has no spread: report prints "(1 run)", not "± 0", and --save
 * writes null, not 0, for stddev and ci95.
 */
TEST_F(scratch, one_run_has_no_spread)
{
	struct outcome o;
	char *text;

	run(stat_main, ARGV("ctxstat", "-e", "instructions", "--save", self->save, "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	done(&o);
	text = read_file(self->save);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"mean\": 1000000, \"stddev\": null, \"ci95\": null}")) TH_LOG("%s", text);
	free(text);
	run(cmd_report, ARGV("report", self->save), &o);
	EXPECT_NE(NULL, strstr(o.out, "1.000M (1 run)")) TH_LOG("%s", o.out);
	EXPECT_EQ(NULL, strstr(o.out, "± 0")) TH_LOG("%s", o.out);
	done(&o);
}

/*
 * --warmup 2: the command runs twice before the measured runs, and
 * nothing of it is counted (no session) or kept.
 */
TEST_F(scratch, warmup)
{
	char script[256], *text;
	struct outcome o;

	snprintf(script, sizeof(script), "echo x >> %s", self->count);
	run(stat_main, ARGV("ctxstat", "--warmup", "2", "-r", "3", "--no-noise-check",
			    "-e", "instructions", "sh", "-c", script), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(3, fake_nl.sessions);
	EXPECT_NE(NULL, strstr(o.err, "(3 runs)")) TH_LOG("%s", o.err);
	done(&o);
	text = read_file(self->count);
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("x\nx\nx\nx\nx\n", text);
	free(text);
	fake_nl_reset();
	run(cmd_compare, ARGV("compare", "--warmup", "1", "-r", "2", "--no-noise-check",
				   "-e", "instructions", "sh", "-c", script, "---", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(4, fake_nl.sessions);
	done(&o);
	text = read_file(self->count);
	EXPECT_STREQ("x\nx\nx\nx\nx\nx\nx\nx\n", text);
	free(text);
}

/*
 * Markdown: a "|" in a benchmark name (the default name is the command
 * line) split the row, and "<not counted>" is raw HTML a renderer hides.
 */
TEST_F(scratch, markdown_escapes)
{
	struct outcome o;
	FILE *f = fopen(self->save, "w");

	fputs("{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
	      " {\"benchmark\": \"sh -c a|b\", \"config\": \"base\", \"command\": [], \"runs\": 2,"
	      "  \"elapsed_ns\": [1, 1], \"events\": [{\"name\": \"cycles\", \"values\": [],"
	      "  \"error\": \"not supported\"}]}]}\n", f);
	fclose(f);
	run(cmd_report, ARGV("report", "--markdown", self->save), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.out, "| sh -c a\\|b | cycles | \\<not counted\\> |\n")) TH_LOG("%s", o.out);
	done(&o);
}

/* de_DE: compare's B/A interval read "1,0500 [1,0500,1,0500]". */
TEST(comma_locale_interval)
{
	const char *why = comma_locale();
	struct outcome o;

	if (why)
		SKIP(return, "%s", why);
	fake_nl_reset();
	fake_nl.base[1] = 1050000;
	run(cmd_compare, ARGV("compare", "-r", "2", "-e", "instructions", "--no-noise-check",
				   "true", "---", "true"), &o);
	EXPECT_NE(NULL, strstr(o.out, "1,0500 [1,0500; 1,0500]")) TH_LOG("%s", o.out);
	done(&o);
	setlocale(LC_ALL, "C");
}

TEST_HARNESS_MAIN
