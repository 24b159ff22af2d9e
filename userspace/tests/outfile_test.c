// SPDX-License-Identifier: GPL-2.0
/*
 * outfile tests: -o as perf writes it (its "# started on" line, --append,
 * "-o -"), a file left as it was when counting fails before it prints,
 * and write errors exiting 1 for stat, compare and report. Against
 * tests/fake_nl.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"
#include "builtin.h"

FIXTURE(scratch) {
	char dir[64], out[96], save[96];
};

FIXTURE_SETUP(scratch)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/ctxstat-out-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->out, sizeof(self->out), "%s/keep.txt", self->dir);
	snprintf(self->save, sizeof(self->save), "%s/s.json", self->dir);
	fake_nl_reset();
}

FIXTURE_TEARDOWN(scratch)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("%s failed", cmd);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

/* No module: the file is not truncated (it was, before exiting 1). */
TEST_F(scratch, file_kept_when_counting_fails)
{
	struct outcome o;
	char *text;

	write_text(self->out, "precious\n");
	fake_nl.open_err = -ENOENT;
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-o", self->out, "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "kernel module not loaded")) TH_LOG("%s", o.err);
	text = read_file(self->out);
	EXPECT_STREQ("precious\n", text);
	free(text);
	done(&o);
}

/* perf's first line and a blank one, in every format; --append adds. */
TEST_F(scratch, started_on_line_and_append)
{
	struct outcome o;
	char *text;

	write_text(self->out, "precious\n");
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-x,", "-o", self->out,
			    "--append", "true"), &o);
	EXPECT_EQ(0, o.code);
	text = read_file(self->out);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, strncmp(text, "precious\n# started on ", 22)) TH_LOG("%s", text);
	/* ctime's own newline, then perf's: a blank line before the rows */
	EXPECT_NE(NULL, strstr(text, "\n\n1000000,,instructions,")) TH_LOG("%s", text);
	free(text);
	done(&o);
	/*
	 * JSON: nothing but JSON lines, as perf 7.2 writes them (no
	 * "# started on", no blank line): perf 7.2's stat+json_output.sh
	 * reads the file as one JSON array of its lines.
	 */
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-j", "-o", self->out, "true"), &o);
	text = read_file(self->out);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, strncmp(text, "{\"counter-value\" : \"1000000", 27)) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "\n\n")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "precious"));
	free(text);
	done(&o);
	/* "-o -": the default stream, stderr, without that line */
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-x,", "-o", "-", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_EQ(0, strncmp(o.err, "100000", 6)) TH_LOG("[%s]", o.err);
	EXPECT_NE(NULL, strstr(o.err, ",,instructions,")) TH_LOG("[%s]", o.err);
	done(&o);
}

/* Write errors exit 1 with a message (they exited 0). */
TEST_F(scratch, write_errors)
{
	struct outcome o;

	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-o", "/dev/full", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: cannot write to /dev/full: No space left on device\n"))
		TH_LOG("%s", o.err);
	done(&o);
	run(cmd_compare, ARGV("compare", "-r", "2", "-e", "instructions", "--no-noise-check",
				   "-o", "/dev/full", "--save", self->save, "true", "---", "true"),
	    &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat compare: cannot write to /dev/full: No space left on device\n"))
		TH_LOG("%s", o.err);
	done(&o);
	run(cmd_report, ARGV("report", "-o", "/dev/full", self->save), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat report: cannot write to /dev/full: No space left on device\n"))
		TH_LOG("%s", o.err);
	done(&o);
	run(cmd_report, ARGV("report", "-o", self->dir, self->save), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "Is a directory")) TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
