// SPDX-License-Identifier: GPL-2.0
/*
 * --per-thread on the command line: an aggregation mode among -A and
 * --per-* (perf's OPT_SET_UINT, the last one wins), perf's rule (-p or
 * -a, not -C, not a command alone) and what ctxstat refuses with it for
 * now, each refusal naming the combination.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "options/args.h"

#define ARGV(...) ((char *[]){ "ctxstat", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ctxstat", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(a, ...) cxs_args_parse(a, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), \
				     err, sizeof(err))
#define COMPARE(a, ...) cxs_args_parse_compare(a, ARGC(__VA_ARGS__) - 1, \
					       ARGV(__VA_ARGS__) + 1, err, sizeof(err))

TEST(accepted_with_p_and_a)
{
	struct cxs_args a;
	char err[200];

	ASSERT_EQ(0, PARSE(&a, "--per-thread", "-p", "42"));
	EXPECT_TRUE(cxs_args_per_thread(&a));
	EXPECT_EQ(CXS_AGGR_THREAD, a.aggr);
	/* no per-CPU READ: the rows are threads' */
	EXPECT_FALSE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "-a", "--per-thread", "--", "sleep", "1"));
	EXPECT_TRUE(cxs_args_per_thread(&a) && a.system_wide);
	ASSERT_EQ(0, PARSE(&a, "-p", "1,2", "--per-thread", "-x", ",", "sleep", "1"));
	/* perf's "or only --per-thread": no target is -a */
	ASSERT_EQ(0, PARSE(&a, "--per-thread"));
	EXPECT_TRUE(a.implied_all && cxs_args_per_thread(&a));
	ASSERT_EQ(0, PARSE(&a, "--per-thread", "-a", "-j", "--breakdown", "-i"));
	EXPECT_EQ(CXS_AGGR_THREAD, a.aggr);
	EXPECT_STREQ("--per-thread", cxs_aggr_option(a.aggr));
}

/* perf's OPT_SET_UINT: the last of -A, --per-core, --per-thread wins. */
TEST(last_aggregation_wins)
{
	struct cxs_args a;
	char err[200];

	ASSERT_EQ(0, PARSE(&a, "-a", "-A", "--per-thread"));
	EXPECT_EQ(CXS_AGGR_THREAD, a.aggr);
	EXPECT_FALSE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "-a", "--per-thread", "-A"));
	EXPECT_EQ(CXS_AGGR_NONE, a.aggr);
	EXPECT_TRUE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "-a", "--per-thread", "--per-core"));
	EXPECT_EQ(CXS_AGGR_CORE, a.aggr);
	EXPECT_TRUE(a.no_aggr);
	/* -A's own rule then applies, not --per-thread's */
	EXPECT_EQ(-1, PARSE(&a, "-p", "1", "--per-thread", "-A"));
	EXPECT_STREQ("both cgroup and no-aggregation modes only available in system-wide mode", err);
	ASSERT_EQ(0, PARSE(&a, "-p", "1", "-A", "--per-thread"));
}

TEST(perf_rule)
{
	struct cxs_args a;
	char err[200];

	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "true"));
	EXPECT_STREQ("--per-thread needs -p or -a, as in perf: not a command alone (-a --per-thread -- <command>)",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-C", "0"));
	EXPECT_STREQ("--per-thread and -C are exclusive: --per-thread needs -p or -a, as in perf (task events, not CPU counters)",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "-a", "-C", "0", "--per-thread", "true"));
	EXPECT_STREQ("--per-thread and -C are exclusive: --per-thread needs -p or -a, as in perf (task events, not CPU counters)",
		     err);
}

TEST(not_yet)
{
	struct cxs_args a;
	char err[200];

	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-a", "-I", "100"));
	EXPECT_STREQ("--per-thread and -I are exclusive (not yet supported)", err);
	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-p", "1", "-r", "2", "true"));
	EXPECT_STREQ("--per-thread prints the threads of one run: -r and --repeat-until do not apply",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-a", "-r", "0", "true"));
	EXPECT_STREQ("--per-thread prints the threads of one run: -r and --repeat-until do not apply",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-a", "--repeat-until", "1%", "true"));
	EXPECT_STREQ("--per-thread prints the threads of one run: -r and --repeat-until do not apply",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-a", "--irq-sources"));
	EXPECT_STREQ("--per-thread and --irq-sources are exclusive: the module has no sources per thread",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--per-thread", "-a", "--save", "f.json", "true"));
	EXPECT_STREQ("--save keeps whole runs' totals: not with --per-thread", err);
	/* -r 1 is one run */
	ASSERT_EQ(0, PARSE(&a, "--per-thread", "-a", "-r", "1", "true"));
}

TEST(compare_refuses)
{
	struct cxs_args a;
	char err[200];

	EXPECT_EQ(-1, COMPARE(&a, "compare", "--per-thread", "true", "---", "false"));
	EXPECT_STREQ("compare runs two commands: --per-thread does not apply", err);
}

TEST_HARNESS_MAIN
