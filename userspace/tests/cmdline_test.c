// SPDX-License-Identifier: GPL-2.0
/*
 * cmdline tests: the built ctxstat binary as a perf user types it (issue
 * 34): a usage error shows the lines of the option at fault, not the
 * whole help; an ambiguous prefix names its options; perf's --scale and
 * "perf stat"'s word order are taken; --help and --version fail on a
 * full disk. -n (a null run) needs no module.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "run_ctxstat.h"


#define ARGV(...) ((char *const[]){ "ctxstat", __VA_ARGS__, NULL })
#define RUN(...) run_ctxstat(ARGV(__VA_ARGS__), NULL, out, sizeof(out))
#define RUN_TO(path, ...) run_ctxstat(ARGV(__VA_ARGS__), path, out, sizeof(out))

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The usage lines that begin every usage error of ctxstat's. */
#define STAT_USAGE \
	"Usage: ctxstat [<options>] [--] <command> [<args>]\n" \
	"       ctxstat [<options>] [-p <pid> | -a | -C <cpus>] [-A] [<command>]\n" \
	"       ctxstat compare [<options>] [--] <command A> --- <command B>\n" \
	"       ctxstat [<options>] record [-o <file>] [<options>] [--] <command>\n" \
	"       ctxstat report [<options>] <file.json>...  |  ctxstat report -i <file>\n"

/*
 * perf's parse-options: the error, the usage lines, the option's own
 * help lines; ctxstat printed its 122 lines of help after the error.
 */
TEST(usage_error_shows_its_option_only)
{
	char out[16384];

	EXPECT_EQ(129, RUN("-r"));
	EXPECT_STREQ("  Error: switch `r' requires a value\n\n" STAT_USAGE "\n"
		     "    -r, --repeat <n>      run the command n times, print mean and stddev;\n"
		     "                          0: print each run, until Ctrl-C\n", out);
	EXPECT_EQ(129, RUN("--pid", "1,x"));
	EXPECT_TRUE(starts(out, "  Error: bad pid 'x' in '1,x'\n\n" STAT_USAGE "\n"
			       "    -p, --pid <pid>       count an existing process"))
		TH_LOG("%s", out);
	EXPECT_EQ(11, count_lines(out)) TH_LOG("%s", out);
	/* two options at fault: both, as the message names them */
	EXPECT_EQ(129, RUN("-x", ",", "-j", "true"));
	EXPECT_NE(NULL, strstr(out, "\n    -x, --field-separator <sep>\n"
				    "                          CSV output with this separator (perf's fields)\n"
				    "    -j, --json-output     JSON output, one object per line\n"))
		TH_LOG("%s", out);
	EXPECT_EQ(11, count_lines(out)) TH_LOG("%s", out);
	/* an unknown option has no lines of its own: the usage lines only */
	EXPECT_EQ(129, RUN("--bogus", "true"));
	EXPECT_STREQ("  Error: unknown option `bogus'\n\n" STAT_USAGE, out);
	/* compare's and report's errors: their own options' lines */
	EXPECT_EQ(129, RUN("compare", "-r", "x", "a", "---", "b"));
	EXPECT_NE(NULL, strstr(out, "\n    -r, --repeat <n>      runs per command (default 10; with\n"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "--threshold")) TH_LOG("%s", out);
	EXPECT_EQ(129, RUN("report", "--threshold"));
	EXPECT_NE(NULL, strstr(out, "\n        --threshold <rel>%\n")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "--markdown")) TH_LOG("%s", out);
}

/* perf: "Error: Ambiguous option: per (could be --per-node or ...)" */
TEST(ambiguous_option_names_its_candidates)
{
	char out[16384];

	EXPECT_EQ(129, RUN("--per", "-a"));
	EXPECT_TRUE(starts(out, "  Error: Ambiguous option: per (could be --per-core, --per-die, --per-socket, --per-node, --per-cluster, --per-cache, --per-thread, --perf-dialect or --percore-show-thread)\n\n" STAT_USAGE "\n"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\n        --per-core        with -a or -C, a row per core (S0-D0-C1)\n"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\n        --per-thread      with -p or -a, a row per thread (comm-tid)\n"))
		TH_LOG("%s", out);
	EXPECT_EQ(21, count_lines(out)) TH_LOG("%s", out);
}

/* A bad --per-cache level: perf's words, then that option's lines. */
TEST(bad_cache_level_shows_per_cache)
{
	char out[8192];

	EXPECT_EQ(129, RUN("--per-cache=L9", "-a", "true"));
	EXPECT_STREQ("  Error: ctxstat only supports max cache level of 4, as perf\n\n"
		     STAT_USAGE "\n"
		     "        --per-cache[=L]   with -a or -C, a row per level-L cache (S0-D0-L3-ID0);\n"
		     "                          L1 to L4, default: each CPU's highest level\n", out);
}

/* perf's --scale (its default) is a no-op in scripts; so it is here. */
TEST(scale_is_accepted)
{
	char out[8192];

	EXPECT_EQ(0, RUN("--scale", "-n", "true")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Performance counter stats for 'true'")) TH_LOG("%s", out);
}

/*
 * "ctxstat stat <perf stat's arguments>": the "stat" is perf's
 * subcommand, skipped; it ran coreutils' stat. After "--", or after an
 * option, "stat" is the command.
 */
TEST(stat_word_as_perf)
{
	char out[16384];

	EXPECT_EQ(0, RUN("stat", "-n", "--", "true")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Performance counter stats for 'true'")) TH_LOG("%s", out);
	EXPECT_EQ(3, RUN("stat", "-n", "sh", "-c", "exit 3")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN("stat", "--help")) TH_LOG("%s", out);
	EXPECT_TRUE(starts(out, "Usage: ctxstat")) TH_LOG("%s", out);
	/* perf's stat record: record's own refusal says it was taken so */
	EXPECT_EQ(129, RUN("stat", "record", "-n", "true"));
	EXPECT_NE(NULL, strstr(out, "-n counts nothing to record")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN("-n", "--", "stat", "/")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Performance counter stats for 'stat /'")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN("-n", "stat", "/")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Performance counter stats for 'stat /'")) TH_LOG("%s", out);
}

/* `ctxstat --help > /dev/full` exited 0; a failed write is an error. */
TEST(help_to_a_full_disk_fails)
{
	static const char *const full =
		"cannot write to standard output: No space left on device\n";
	char out[4096];

	if (access("/dev/full", W_OK))
		SKIP(return, "no /dev/full");
	EXPECT_EQ(1, RUN_TO("/dev/full", "--help"));
	EXPECT_NE(NULL, strstr(out, "ctxstat: ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, full)) TH_LOG("%s", out);
	EXPECT_EQ(1, RUN_TO("/dev/full", "--version"));
	EXPECT_NE(NULL, strstr(out, full)) TH_LOG("%s", out);
	EXPECT_EQ(1, RUN_TO("/dev/full", "--list"));
	EXPECT_NE(NULL, strstr(out, full)) TH_LOG("%s", out);
	EXPECT_EQ(1, RUN_TO("/dev/full", "compare", "--help"));
	EXPECT_NE(NULL, strstr(out, full)) TH_LOG("%s", out);
	EXPECT_EQ(1, RUN_TO("/dev/full", "report", "--help"));
	EXPECT_NE(NULL, strstr(out, full)) TH_LOG("%s", out);
	/* and to a file that takes it, 0 */
	EXPECT_EQ(0, RUN_TO("/dev/null", "--help"));
	EXPECT_STREQ("", out);
}

TEST_HARNESS_MAIN
