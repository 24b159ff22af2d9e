// SPDX-License-Identifier: GPL-2.0
/* args tests: every option, long and short, and the usage errors. */
#include <string.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "options/args.h"

#define ARGV(...) ((char *[]){ "ctxstat", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ctxstat", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(a, ...) cxs_args_parse(a, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), \
				     err, sizeof(err))

TEST(command_only)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_EQ(1, a.repeat);
	EXPECT_EQ(0, a.nr_event_specs);
	EXPECT_EQ(1, a.cmd_argc);
	EXPECT_STREQ("true", a.cmd[0]);
	EXPECT_EQ(NULL, a.cmd[1]);
	EXPECT_FALSE(a.json);
	EXPECT_EQ(NULL, a.field_sep);
}

TEST(short_options)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "-e", "cycles", "-e", "instructions:t,cs",
			   "-r", "5", "-x", ";", "-o", "out.txt", "-v", "-v",
			   "ls", "-l"));
	EXPECT_EQ(2, a.nr_event_specs);
	EXPECT_STREQ("cycles", a.event_specs[0]);
	EXPECT_STREQ("instructions:t,cs", a.event_specs[1]);
	EXPECT_EQ(5, a.repeat);
	EXPECT_STREQ(";", a.field_sep);
	EXPECT_STREQ("out.txt", a.output);
	EXPECT_EQ(2, a.verbose);
	/* The workload's own options are not ours. */
	EXPECT_EQ(2, a.cmd_argc);
	EXPECT_STREQ("ls", a.cmd[0]);
	EXPECT_STREQ("-l", a.cmd[1]);
}

TEST(long_options)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "--event", "cycles", "--event=page-faults",
			   "--repeat", "3", "--json", "--output=o",
			   "--verbose", "--breakdown", "--", "sleep", "1"));
	EXPECT_EQ(2, a.nr_event_specs);
	EXPECT_STREQ("page-faults", a.event_specs[1]);
	EXPECT_EQ(3, a.repeat);
	EXPECT_TRUE(a.json);
	EXPECT_STREQ("o", a.output);
	EXPECT_EQ(1, a.verbose);
	EXPECT_TRUE(a.breakdown);
	EXPECT_STREQ("sleep", a.cmd[0]);
	ASSERT_EQ(0, PARSE(&a, "--json-output", "--field-separator", ",", "-h"));
	EXPECT_TRUE(a.help);
	ASSERT_EQ(0, PARSE(&a, "-j", "--null", "true"));
	EXPECT_TRUE(a.json);
	EXPECT_TRUE(a.null_run);
	ASSERT_EQ(0, PARSE(&a, "--list"));
	EXPECT_TRUE(a.list);
}

TEST(targets)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "-p", "1234"));
	EXPECT_EQ(1234, a.pid);
	EXPECT_EQ(NULL, a.cmd);
	ASSERT_EQ(0, PARSE(&a, "--pid=42", "sleep", "1"));
	EXPECT_EQ(42, a.pid);
	EXPECT_STREQ("sleep", a.cmd[0]);
	/* perf's list of pids */
	ASSERT_EQ(0, PARSE(&a, "-p", "10,20,30"));
	EXPECT_EQ(3, a.nr_pids);
	EXPECT_EQ(10, a.pid);
	EXPECT_EQ(30, a.pids[2]);
	EXPECT_STREQ("10,20,30", a.pid_list);
	EXPECT_EQ(-1, PARSE(&a, "-p", "10,,20"));
	EXPECT_EQ(-1, PARSE(&a, "-p", "10,"));
	EXPECT_EQ(-1, PARSE(&a, "-p", "10,10"));
	EXPECT_STREQ("-p: pid 10 twice in '10,10'", err);
	EXPECT_EQ(-1, PARSE(&a, "-p", "1,2,3,4,5,6,7,8,9"));
	EXPECT_STREQ("-p: at most 8 pids (a counting session each)", err);
	EXPECT_EQ(-1, PARSE(&a, "-p", "1,x"));
	EXPECT_STREQ("bad pid 'x' in '1,x'", err);
	EXPECT_EQ(-1, PARSE(&a, "-p", "1,2", "--irq-sources"));
	ASSERT_EQ(0, PARSE(&a, "-p", "1", "--irq-sources"));
	ASSERT_EQ(0, PARSE(&a, "-a"));
	EXPECT_TRUE(a.system_wide);
	ASSERT_EQ(0, PARSE(&a, "--all-cpus", "-n", "sleep", "1"));
	EXPECT_TRUE(a.system_wide);
	EXPECT_TRUE(a.null_run);
}

TEST(usage_errors)
{
	struct cxs_args a;
	char err[128];

	EXPECT_EQ(-1, PARSE(&a, "--bogus", "true"));
	EXPECT_STREQ("unknown option `bogus'", err);
	EXPECT_EQ(-1, PARSE(&a, "-Z", "true"));
	EXPECT_STREQ("unknown switch `Z'", err);
	EXPECT_EQ(-1, PARSE(&a, "-r", "3x", "true"));
	/* at most 100,000 runs; compare's 2 x runs overflowed at 2e9 */
	EXPECT_EQ(-1, PARSE(&a, "-r", "2000000000", "true"));
	EXPECT_STREQ("bad repeat count '2000000000' (1 to 100000, or 0: until Ctrl-C)", err);
	EXPECT_EQ(-1, PARSE(&a, "-p", "99999999", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-I", "99999999999", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-p", "-5"));
	EXPECT_EQ(-1, PARSE(&a, "-p", "abc"));
	EXPECT_EQ(-1, PARSE(&a, "-x", "", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-x", ",", "-j", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-p", "1", "-a"));
	EXPECT_EQ(-1, PARSE(&a, "-r", "2", "-p", "1"));
	EXPECT_EQ(-1, PARSE(&a, "-n", "-e", "cycles", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-n"));
	EXPECT_STREQ("a command, -p <pid> or -a is required", err);
	/* After the command, "-e" is the command's. */
	EXPECT_EQ(0, PARSE(&a, "true", "-e"));
}

/*
 * -I: perf's name and letter; below 10 ms refused with perf 5.x's words;
 * one run only (-r 1 is one run); --summary only with it.
 */
TEST(interval)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "-I", "100", "-x,", "true"));
	EXPECT_EQ(100, a.interval_ms);
	EXPECT_FALSE(a.summary);
	ASSERT_EQ(0, PARSE(&a, "--interval-print=10", "--summary", "-a"));
	EXPECT_EQ(10, a.interval_ms);
	EXPECT_TRUE(a.summary);
	ASSERT_EQ(0, PARSE(&a, "-I", "1000", "-p", "1", "--breakdown"));
	ASSERT_EQ(0, PARSE(&a, "-I", "100", "-r", "1", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-I", "9", "true"));
	EXPECT_STREQ("print interval must be >= 10ms", err);
	/* perf 6.1: -I 0 is no interval */
	ASSERT_EQ(0, PARSE(&a, "-I", "0", "true"));
	EXPECT_EQ(0, a.interval_ms);
	EXPECT_EQ(-1, PARSE(&a, "-I", "1x", "true"));
	EXPECT_STREQ("bad interval '1x' (milliseconds, at most 86400000)", err);
	ASSERT_EQ(0, PARSE(&a, "-I", "100", "--interval-count", "3", "true"));
	EXPECT_EQ(3, a.interval_count);
	EXPECT_EQ(-1, PARSE(&a, "--interval-count", "3", "true"));
	EXPECT_STREQ("interval-count option should be used together with interval-print.", err);
	EXPECT_EQ(-1, PARSE(&a, "-I", "100", "-r", "3", "true"));
	EXPECT_STREQ("-I prints the intervals of one run: -r and --repeat-until do not apply",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "-I", "100", "--repeat-until", "1%", "true"));
	EXPECT_NE(NULL, strstr(err, "-r and --repeat-until do not apply"));
	EXPECT_EQ(-1, PARSE(&a, "--summary", "true"));
	EXPECT_STREQ("--summary needs -I", err);
	EXPECT_EQ(-1, PARSE(&a, "-I", "100", "-n", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-I", "100", "--save", "x.json", "true"));
}

/*
 * perf 6.1's options and spellings: -r 0 (forever), -x '\\t' (a tab),
 * --json-output, --append, -B/--no-big-num, --no-merge, -g, -i, -S,
 * --quiet, --no-csv-summary, the aggregation modes; no command and no
 * target is system wide, as perf.
 */
TEST(perf_options)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "-r", "0", "true"));
	EXPECT_TRUE(a.forever);
	EXPECT_EQ(1, a.repeat);
	EXPECT_EQ(-1, PARSE(&a, "-r", "0", "-a"));
	EXPECT_STREQ("--repeat needs a command to repeat", err);
	EXPECT_EQ(-1, PARSE(&a, "-r", "0", "--save", "x.json", "true"));
	ASSERT_EQ(0, PARSE(&a, "-x", "\\t", "true"));
	EXPECT_STREQ("\t", a.field_sep);
	ASSERT_EQ(0, PARSE(&a, "--json-output", "-o", "f", "--append", "true"));
	EXPECT_TRUE(a.json);
	EXPECT_TRUE(a.append);
	/* a prefix, as perf's parser and getopt take it */
	ASSERT_EQ(0, PARSE(&a, "--json", "true"));
	EXPECT_TRUE(a.json);
	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_EQ(-1, a.big_num);
	ASSERT_EQ(0, PARSE(&a, "-B", "true"));
	EXPECT_EQ(1, a.big_num);
	/* --scale: perf's default, a no-op for scripts (counts are always scaled) */
	ASSERT_EQ(0, PARSE(&a, "--no-big-num", "--no-merge", "-g", "-i", "-S", "--quiet",
			   "--no-twins", "--scale", "true"));
	EXPECT_EQ(0, a.big_num);
	EXPECT_TRUE(a.no_inherit && a.sync && a.quiet && a.no_twins);
	ASSERT_EQ(0, PARSE(&a, "-e", "cycles"));
	EXPECT_TRUE(a.system_wide && a.all_cpus && a.implied_all);
	ASSERT_EQ(0, PARSE(&a, "-I", "1000", "--summary", "--no-csv-summary", "-x", " "));
	EXPECT_TRUE(a.no_csv_summary && a.system_wide);
	ASSERT_EQ(0, PARSE(&a, "--per-core", "-a"));
	EXPECT_EQ(CXS_AGGR_CORE, a.aggr);
	EXPECT_TRUE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "--per-socket", "-C", "0"));
	EXPECT_EQ(CXS_AGGR_SOCKET, a.aggr);
	EXPECT_EQ(-1, PARSE(&a, "--per-node", "-p", "1"));
	EXPECT_EQ(-1, PARSE(&a, "--per-die", "-a", "-r", "2", "true"));
	EXPECT_STREQ("--per-die prints the CPUs of one run: -r and --repeat-until do not apply", err);
}

/*
 * --per-cluster, and --per-cache with perf's levels: none (each CPU's
 * highest), L1 to L4 in either case, after '=' only; anything else
 * refused in perf's words, naming the option for its help lines.
 */
TEST(per_cluster_and_per_cache)
{
	struct cxs_args a;
	char err[256];

	ASSERT_EQ(0, PARSE(&a, "--per-cluster", "-a"));
	EXPECT_EQ(CXS_AGGR_CLUSTER, a.aggr);
	EXPECT_TRUE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "--per-cache", "-a", "true"));
	EXPECT_EQ(CXS_AGGR_CACHE, a.aggr);
	EXPECT_TRUE(a.no_aggr);
	EXPECT_EQ(0, a.cache_level);
	ASSERT_EQ(1, a.cmd_argc);
	EXPECT_STREQ("true", a.cmd[0]);
	ASSERT_EQ(0, PARSE(&a, "--per-cache=L2", "-a"));
	EXPECT_EQ(2, a.cache_level);
	ASSERT_EQ(0, PARSE(&a, "--per-cache=l1", "-C", "0"));
	EXPECT_EQ(1, a.cache_level);
	ASSERT_EQ(0, PARSE(&a, "--per-cache=L4", "-a"));
	EXPECT_EQ(4, a.cache_level);
	/* the last aggregation wins, as in perf */
	ASSERT_EQ(0, PARSE(&a, "--per-cache=L3", "--per-cluster", "-a"));
	EXPECT_EQ(CXS_AGGR_CLUSTER, a.aggr);
	/* a level without '=' is the command, as perf's optional value */
	ASSERT_EQ(0, PARSE(&a, "--per-cache", "-a", "L3"));
	EXPECT_EQ(0, a.cache_level);
	EXPECT_STREQ("L3", a.cmd[0]);

	EXPECT_EQ(-1, PARSE(&a, "--per-cache=L5", "-a"));
	EXPECT_STREQ("ctxstat only supports max cache level of 4, as perf", err);
	EXPECT_STREQ("per-cache", a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "--per-cache=L0", "-a"));
	EXPECT_STREQ("Cache level must be of form L[1-4], or l[1-4]", err);
	EXPECT_EQ(-1, PARSE(&a, "--per-cache=3", "-a"));
	EXPECT_STREQ("Cache level must be of form L[1-4], or l[1-4]", err);
	EXPECT_EQ(-1, PARSE(&a, "--per-cache=L10", "-a"));
	EXPECT_STREQ("Cache level must be of form L[1-4], or l[1-4]", err);
	EXPECT_EQ(-1, PARSE(&a, "--per-cache=", "-a"));
	EXPECT_STREQ("Cache level must be of form L[1-4], or l[1-4]", err);
	EXPECT_EQ(-1, PARSE(&a, "--per-cache=Lx", "-a"));
	EXPECT_STREQ("Cache level must be of form L[1-4], or l[1-4]", err);
	/* the CPU modes' rules: system wide, one run */
	EXPECT_EQ(-1, PARSE(&a, "--per-cluster", "-p", "1"));
	EXPECT_STREQ("both cgroup and no-aggregation modes only available in system-wide mode", err);
	EXPECT_EQ(-1, PARSE(&a, "--per-cache", "-a", "-r", "2", "true"));
	EXPECT_STREQ("--per-cache prints the CPUs of one run: -r and --repeat-until do not apply", err);
}

/*
 * perf stat record and report, as perf's parser takes them: a first
 * non-option of three letters or more that begins the word, stat's
 * options before and (record) after it; -o is record's data file.
 */
TEST(perf_stat_record_and_report)
{
	struct cxs_args a;
	char err[256];

	ASSERT_EQ(0, PARSE(&a, "record", "-o", "-", "true")) TH_LOG("%s", err);
	EXPECT_TRUE(a.record);
	EXPECT_STREQ("-", a.record_file);
	EXPECT_EQ(NULL, a.output);
	ASSERT_EQ(1, a.cmd_argc);
	EXPECT_STREQ("true", a.cmd[0]);
	ASSERT_EQ(0, PARSE(&a, "-e", "cycles", "rec", "-e", "instructions", "--", "true"));
	EXPECT_TRUE(a.record);
	EXPECT_STREQ("perf.data", a.record_file);
	EXPECT_EQ(2, a.nr_event_specs);
	EXPECT_STREQ("true", a.cmd[0]);
	/* a second "record" is the command's */
	ASSERT_EQ(0, PARSE(&a, "record", "record"));
	EXPECT_STREQ("record", a.cmd[0]);
	EXPECT_EQ(-1, PARSE(&a, "record", "-r", "0", "true"));
	EXPECT_NE(NULL, strstr(err, "Cannot use -r 0 with stat record"));
	EXPECT_EQ(-1, PARSE(&a, "record", "-I", "100", "true"));
	EXPECT_NE(NULL, strstr(err, "-I with stat record is not supported by ctxstat"));
	ASSERT_EQ(0, PARSE(&a, "-e", "cycles", "rep", "-i", "-"));
	EXPECT_TRUE(a.report);
	ASSERT_EQ(3, a.cmd_argc);
	EXPECT_STREQ("rep", a.cmd[0]);
	EXPECT_STREQ("-i", a.cmd[1]);
	/* two letters are a command, as perf's strlen > 2 */
	ASSERT_EQ(0, PARSE(&a, "re", "x"));
	EXPECT_FALSE(a.record || a.report);
}

/*
 * perf's options that ctxstat lacks are named as such (they were an
 * "unknown option" and 90 lines of usage).
 */
TEST(perf_only_options)
{
	struct cxs_args a;
	char err[256];

	/* each with what to use instead (tests/perfonly_test.c: all of them) */
	EXPECT_EQ(-1, PARSE(&a, "--no-scale", "-a"));
	EXPECT_TRUE(a.perf_only);
	EXPECT_STREQ("perf option not supported by ctxstat: --no-scale (no unscaled counts: a multiplexed counter's count is always scaled to the whole run, as perf scales it by default)",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "-t", "42"));
	EXPECT_STREQ("perf option not supported by ctxstat: --tid (use -p pid --per-thread, a row per thread: the ctxcount module counts a process with all its threads)",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "-M", "IPC", "true"));
	EXPECT_NE(NULL, strstr(err, "perf option not supported by ctxstat: --metrics (no metrics: "));
	EXPECT_EQ(-1, PARSE(&a, "--filter", "x", "true"));
	EXPECT_STREQ("perf option not supported by ctxstat: --filter (no event filters: the ctxcount module takes an event's type and config only)",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--timeout", "100", "true"));
	EXPECT_STREQ("perf option not supported by ctxstat: --timeout (use timeout(1) as the command: ctxstat -- timeout 2 cmd; with -a or -p, sleep 2 as the command)",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "--bpf-counters", "true"));
	EXPECT_TRUE(a.perf_only);
	/* after "--" it is a command */
	ASSERT_EQ(0, PARSE(&a, "--", "record"));
	EXPECT_STREQ("record", a.cmd[0]);
	EXPECT_FALSE(a.record);
	/* an unknown option is still one */
	EXPECT_EQ(-1, PARSE(&a, "--bogus", "true"));
	EXPECT_FALSE(a.perf_only);
}

/*
 * -D: perf's delay in ms, 0 none; its negative "start disabled" waits
 * for --control, which ctxstat has not got: refused, saying so.
 */
TEST(delay)
{
	struct cxs_args a;
	char err[256];

	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_EQ(0, a.delay_ms);
	ASSERT_EQ(0, PARSE(&a, "-D", "1000", "true"));
	EXPECT_EQ(1000, a.delay_ms);
	ASSERT_EQ(0, PARSE(&a, "--delay=250", "-a"));
	EXPECT_EQ(250, a.delay_ms);
	ASSERT_EQ(0, PARSE(&a, "-D0", "true"));
	EXPECT_EQ(0, a.delay_ms);
	ASSERT_EQ(0, PARSE(&a, "-D", "86400000", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-D", "86400001", "true"));
	EXPECT_STREQ("bad delay '86400001' (milliseconds, 0 to 86400000)", err);
	EXPECT_STREQ("delay", a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "-D", "1s", "true"));
	EXPECT_STREQ("bad delay '1s' (milliseconds, 0 to 86400000)", err);
	EXPECT_EQ(-1, PARSE(&a, "-D", "-1", "true"));
	EXPECT_STREQ("-D -1: perf's negative delay waits for --control to enable counting, which ctxstat does not have",
		     err);
	EXPECT_FALSE(a.perf_only);
	EXPECT_EQ(-1, PARSE(&a, "--delay", "-20", "true"));
	EXPECT_NE(NULL, strstr(err, "-D -20: perf's negative delay")) TH_LOG("%s", err);
	EXPECT_EQ(-1, PARSE(&a, "-D", "true"));
	EXPECT_STREQ("bad delay 'true' (milliseconds, 0 to 86400000)", err);
}

/*
 * A prefix of several options is ambiguous, not unknown: perf's parser
 * names the options it could be ("Ambiguous option: per (could be ...");
 * ctxstat names them all. A prefix of one option is that option.
 */
TEST(ambiguous_prefixes)
{
	struct cxs_args a;
	char err[256];

	EXPECT_EQ(-1, PARSE(&a, "--per", "-a"));
	EXPECT_STREQ("Ambiguous option: per (could be --per-core, --per-die, --per-socket, --per-node, --per-cluster, --per-cache, --per-thread, --perf-dialect or --percore-show-thread)",
		     err);
	EXPECT_FALSE(a.perf_only);
	EXPECT_EQ(NULL, a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "--rep=3", "true"));
	EXPECT_STREQ("Ambiguous option: rep (could be --repeat, --repeat-until or --repeat-event)",
		     err);
	EXPECT_EQ(0, PARSE(&a, "--sum", "-I", "100", "-a"));
	EXPECT_TRUE(a.summary);
	EXPECT_EQ(0, PARSE(&a, "--per-s", "-a"));
	EXPECT_EQ(CXS_AGGR_SOCKET, a.aggr);
	/* two of them: perf's words exactly */
	EXPECT_EQ(-1, PARSE(&a, "--no-i", "true"));
	EXPECT_STREQ("Ambiguous option: no-i (could be --no-irq-estimate or --no-inherit)", err);
	/* no option at all is still unknown */
	EXPECT_EQ(-1, PARSE(&a, "--pex", "-a"));
	EXPECT_STREQ("unknown option `pex'", err);
}

/*
 * An error in an option's value names the option, whose --help lines
 * follow the error (perf's parse_options_usage()); an error of several
 * options names none, its message names them.
 */
TEST(error_names_its_option)
{
	struct cxs_args a;
	char err[128];

	EXPECT_EQ(-1, PARSE(&a, "-r", "x", "true"));
	EXPECT_STREQ("repeat", a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "--pid=1,1"));
	EXPECT_STREQ("pid", a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "--irq-s=99", "true"));
	EXPECT_STREQ("irq-sources", a.err_option);
	EXPECT_EQ(-1, cxs_args_parse(&a, 2, ARGV("-e"), err, sizeof(err)));
	EXPECT_STREQ("event", a.err_option);
	EXPECT_EQ(-1, cxs_args_parse(&a, 2, ARGV("--interval-p"), err, sizeof(err)));
	EXPECT_STREQ("interval-print", a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "-x", ",", "-j", "true"));
	EXPECT_EQ(NULL, a.err_option);
	EXPECT_EQ(-1, PARSE(&a, "--bogus", "true"));
	EXPECT_EQ(NULL, a.err_option);
}

TEST(missing_value)
{
	struct cxs_args a;
	char err[128];

	EXPECT_EQ(-1, cxs_args_parse(&a, 2, ARGV("-e"), err, sizeof(err)));
	EXPECT_STREQ("switch `e' requires a value", err);
	EXPECT_EQ(-1, cxs_args_parse(&a, 2, ARGV("--repeat"), err, sizeof(err)));
	EXPECT_STREQ("option `repeat' requires a value", err);
}

#define CARGV(...) ((char *[]){ "compare", __VA_ARGS__, NULL })
#define CARGC(...) ((int)(sizeof((char *[]){ "compare", __VA_ARGS__ }) / sizeof(char *)))
#define CPARSE(a, ...) cxs_args_parse_compare(a, CARGC(__VA_ARGS__), \
					      CARGV(__VA_ARGS__), err, sizeof(err))

TEST(compare_two_commands)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, CPARSE(&a, "-e", "instructions:t", "-r", "6", "--",
			    "./bench", "-n", "1", "---", "./bench2", "-n", "2"));
	EXPECT_TRUE(a.compare);
	EXPECT_EQ(6, a.repeat);
	EXPECT_EQ(3, a.cmd_argc);
	EXPECT_STREQ("./bench", a.cmd[0]);
	EXPECT_STREQ("1", a.cmd[2]);
	EXPECT_EQ(NULL, a.cmd[3]);
	EXPECT_EQ(3, a.cmd_b_argc);
	EXPECT_STREQ("./bench2", a.cmd_b[0]);
	EXPECT_STREQ("2", a.cmd_b[2]);
	EXPECT_EQ(NULL, a.cmd_b[3]);
}

/* Without -r: 10 runs each; without "--" the command still starts it. */
TEST(compare_defaults)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, CPARSE(&a, "true", "---", "false"));
	EXPECT_EQ(CXS_COMPARE_DEFAULT_RUNS, a.repeat);
	EXPECT_EQ(1, a.cmd_argc);
	EXPECT_EQ(1, a.cmd_b_argc);
}

TEST(compare_usage_errors)
{
	struct cxs_args a;
	char err[128];

	EXPECT_EQ(-1, CPARSE(&a, "true"));
	EXPECT_NE(NULL, strstr(err, "<command A> --- <command B>"));
	EXPECT_EQ(-1, CPARSE(&a, "--", "---", "true"));
	EXPECT_NE(NULL, strstr(err, "empty command A"));
	EXPECT_EQ(-1, CPARSE(&a, "true", "---"));
	EXPECT_NE(NULL, strstr(err, "empty command B"));
	EXPECT_EQ(-1, CPARSE(&a, "-r", "1", "true", "---", "true"));
	EXPECT_NE(NULL, strstr(err, "at least 2 runs"));
	EXPECT_EQ(-1, CPARSE(&a, "-a", "true", "---", "true"));
	EXPECT_EQ(-1, CPARSE(&a, "-p", "1", "true", "---", "true"));
	EXPECT_EQ(-1, CPARSE(&a, "-j", "true", "---", "true"));
	EXPECT_EQ(-1, CPARSE(&a, "-I", "100", "true", "---", "true"));
	EXPECT_STREQ("compare runs two commands: -I does not apply", err);
	EXPECT_EQ(-1, CPARSE(&a, "-r", "0", "true", "---", "true"));
	EXPECT_STREQ("compare runs two commands: -r 0 does not apply", err);
	/* perf's target options: not "use -p", which compare refuses too */
	EXPECT_EQ(-1, CPARSE(&a, "--tid", "1", "true", "---", "true"));
	EXPECT_STREQ("compare runs two commands: --tid does not apply", err);
	EXPECT_EQ(-1, CPARSE(&a, "-t", "1", "true", "---", "true"));
	EXPECT_STREQ("compare runs two commands: --tid does not apply", err);
	EXPECT_EQ(-1, CPARSE(&a, "-G", "grp", "true", "---", "true"));
	EXPECT_STREQ("compare runs two commands: --cgroup does not apply", err);
	EXPECT_EQ(-1, CPARSE(&a, "--table", "true", "---", "true"));
	EXPECT_STREQ("perf option not supported by ctxstat: --table (use --save file.json: it keeps every run's wall time and counts)",
		     err);
	EXPECT_EQ(-1, CPARSE(&a, "--summary", "true", "---", "true"));
	EXPECT_EQ(-1, CPARSE(&a, "--repeat-event", "cycles", "true", "---", "true"));
	/* two configurations: two names, else report could not tell them apart */
	EXPECT_EQ(-1, CPARSE(&a, "--label", "base", "true", "---", "true"));
	EXPECT_NE(NULL, strstr(err, "--label for compare is '<A label>,<B label>'"));
	EXPECT_EQ(-1, CPARSE(&a, "--label", "x,x", "true", "---", "true"));
	EXPECT_NE(NULL, strstr(err, "--label for compare is '<A label>,<B label>'"));
	EXPECT_EQ(0, CPARSE(&a, "--label", "base,patched", "true", "---", "true"));
	EXPECT_EQ(0, CPARSE(&a, "-h"));
	EXPECT_TRUE(a.help);
}

TEST(repeat_until)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "--repeat-until", "0.5%", "--repeat-event",
			   "instructions:t", "-e", "instructions:t", "true"));
	EXPECT_EQ(0.5, a.repeat_until);
	EXPECT_STREQ("instructions:t", a.repeat_event);
	EXPECT_FALSE(a.repeat_set);
	ASSERT_EQ(0, PARSE(&a, "--repeat-until", "2", "-r", "30", "true"));
	EXPECT_EQ(2.0, a.repeat_until);
	EXPECT_TRUE(a.repeat_set);
	EXPECT_EQ(30, a.repeat);
	EXPECT_EQ(-1, PARSE(&a, "--repeat-until", "0%", "true"));
	EXPECT_NE(NULL, strstr(err, "bad --repeat-until '0%'"));
	EXPECT_EQ(-1, PARSE(&a, "--repeat-until", "100", "true"));
	EXPECT_EQ(-1, PARSE(&a, "--repeat-until", "1%%", "true"));
	EXPECT_EQ(-1, PARSE(&a, "--repeat-until", "x", "true"));
	EXPECT_EQ(-1, PARSE(&a, "--repeat-until", "1", "-p", "1"));
	EXPECT_EQ(-1, PARSE(&a, "--repeat-event", "cycles", "true"));
	EXPECT_NE(NULL, strstr(err, "--repeat-event needs --repeat-until"));
}

TEST(save_name_label)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "--save", "base.json", "--name", "hackbench",
			   "--label", "6.1", "--no-noise-check", "--no-irq-estimate",
			   "true"));
	EXPECT_STREQ("base.json", a.save);
	EXPECT_STREQ("hackbench", a.name);
	EXPECT_STREQ("6.1", a.label);
	EXPECT_TRUE(a.no_noise_check);
	EXPECT_TRUE(a.no_irq_estimate);
	EXPECT_EQ(-1, PARSE(&a, "-n", "--save", "x.json", "true"));
}

/* Option values are C numbers: 0.5% means a half whatever the locale. */
TEST(comma_locale_percent)
{
	char *argv[] = { "ctxstat", "--repeat-until", "0.5%", "true", NULL };
	const char *why = comma_locale();
	struct cxs_args a;
	char err[256];

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, cxs_args_parse(&a, 4, argv, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0.5, a.repeat_until);
}

/* --irq-sources[=N]: a breakdown with sources, N within the protocol's. */
TEST(irq_sources)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_FALSE(a.irq_sources);
	EXPECT_EQ(0, a.max_sources);
	ASSERT_EQ(0, PARSE(&a, "--irq-sources", "true"));
	EXPECT_TRUE(a.irq_sources);
	EXPECT_TRUE(a.breakdown);
	EXPECT_EQ(0, a.max_sources);
	EXPECT_STREQ("true", a.cmd[0]);
	ASSERT_EQ(0, PARSE(&a, "--irq-sources=64", "-a"));
	EXPECT_EQ(64, a.max_sources);
	ASSERT_EQ(0, PARSE(&a, "--irq-sources=1", "true"));
	EXPECT_EQ(1, a.max_sources);
	EXPECT_EQ(-1, PARSE(&a, "--irq-sources=0", "true"));
	EXPECT_STREQ("bad --irq-sources '0' (1 to 64 sources)", err);
	EXPECT_EQ(-1, PARSE(&a, "--irq-sources=65", "true"));
	EXPECT_EQ(-1, PARSE(&a, "--irq-sources=4x", "true"));
	EXPECT_EQ(-1, PARSE(&a, "--irq-sources", "-n", "true"));
	EXPECT_STREQ("-n counts nothing to split by interrupt source", err);
	/* --perf-dialect: the two perf versions, else the build's */
	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_EQ(cxs_perf_dialect_default(), a.dialect);
	ASSERT_EQ(0, PARSE(&a, "--perf-dialect", "7.2", "true"));
	EXPECT_EQ(CXS_PERF_7_2, a.dialect);
	ASSERT_EQ(0, PARSE(&a, "--perf-dialect=6.1", "true"));
	EXPECT_EQ(CXS_PERF_6_1, a.dialect);
	EXPECT_EQ(-1, PARSE(&a, "--perf-dialect", "7", "true"));
	EXPECT_STREQ("bad --perf-dialect '7' (6.1 or 7.2: the perf whose output to print)", err);
	/* $CTXSTAT_PERF_DIALECT sets the default; the option still wins */
	setenv("CTXSTAT_PERF_DIALECT", "7.2", 1);
	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_EQ(CXS_PERF_7_2, a.dialect);
	ASSERT_EQ(0, PARSE(&a, "--perf-dialect=6.1", "true"));
	EXPECT_EQ(CXS_PERF_6_1, a.dialect);
	setenv("CTXSTAT_PERF_DIALECT", "6.1", 1);
	ASSERT_EQ(0, PARSE(&a, "true"));
	EXPECT_EQ(CXS_PERF_6_1, a.dialect);
	EXPECT_EQ(-1, cxs_args_parse_compare(&a, 5,
		(char *[]){ "compare", "--irq-sources", "a", "---", "b", NULL },
		err, sizeof(err)));
	EXPECT_STREQ("compare runs two commands: --irq-sources does not apply", err);
}

TEST_HARNESS_MAIN
