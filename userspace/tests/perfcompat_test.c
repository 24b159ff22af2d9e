// SPDX-License-Identifier: GPL-2.0
/*
 * perf compatibility tests: perf 6.1's options and defaults that scripts
 * written for perf stat rely on, end to end against tests/fake_nl.c.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "fake_nl.h"
#include "runs_fixture.h"

/*
 * perf's stat+csv_summary.sh: no command and no target is system wide;
 * --interval-count 1 ends it after one interval, then the summary, with
 * or without its "summary" field.
 */
TEST(interval_count_and_csv_summary)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-x", " ", "-I", "20",
			    "--interval-count", "2", "--summary"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_TRUE(fake_nl.target.flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE);
	EXPECT_EQ(2, count_lines(o.err, " instructions ") - 1) TH_LOG("%s", o.err);
	EXPECT_EQ(1, count_lines(o.err, "         summary ")) TH_LOG("%s", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-x", " ", "-I", "20",
			    "--interval-count", "1", "--summary", "--no-csv-summary"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, count_lines(o.err, "summary")) TH_LOG("%s", o.err);
	EXPECT_EQ(2, count_lines(o.err, " instructions ")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * System wide without -e: perf's cpu-clock (a task clock was counted),
 * and no "seconds user"/"seconds sys" (they are the command's, not the
 * system's, and perf leaves them out).
 */
TEST(system_wide_defaults)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_NE(NULL, strstr(o.err, " msec cpu-clock ")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, " msec cpu-clock:t ")) TH_LOG("%s", o.err);
	EXPECT_EQ(NULL, strstr(o.err, "task-clock")) TH_LOG("%s", o.err);
	EXPECT_EQ(NULL, strstr(o.err, "seconds user")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "seconds user")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, " msec task-clock ")) TH_LOG("%s", o.err);
	done(&o);
	/* --no-twins: perf's 8 rows */
	run(stat_main, ARGV("ctxstat", "--no-twins", "-x,", "true"), &o);
	EXPECT_EQ(8, count_lines(o.err, ",")) TH_LOG("%s", o.err);
	EXPECT_EQ(NULL, strstr(o.err, ":t")) TH_LOG("%s", o.err);
	done(&o);
}

/* -x '\t' is a tab (it printed a backslash and a t). */
TEST(tab_separator)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "-x", "\\t", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_EQ(0, strncmp(o.err, "1000000\t\tinstructions\t", 22)) TH_LOG("%s", o.err);
	done(&o);
}

/* --no-big-num: no thousands separators, whatever the locale says. */
TEST(no_big_num)
{
	const char *why = comma_locale();
	struct outcome o;

	if (why)
		SKIP(return, "%s", why);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "         1.000.000      instructions")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "--no-big-num", "-e", "instructions", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "           1000000      instructions")) TH_LOG("%s", o.err);
	done(&o);
	setlocale(LC_ALL, "C");
}

/* --quiet prints no counts; -i counts the command without its children. */
TEST(quiet_and_no_inherit)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "--quiet", "-i", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_STREQ("", o.err);
	EXPECT_FALSE(fake_nl.target.flags & CTXCOUNT_TARGET_F_INHERIT);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "true"), &o);
	EXPECT_TRUE(fake_nl.target.flags & CTXCOUNT_TARGET_F_INHERIT);
	done(&o);
}

/*
 * A fake sysfs: CPU 0 and 1 (the fake module's -A CPUs) on @sockets
 * sockets (1: both on socket 0, core 0), node per socket.
 */
static void topology(char *root, size_t len, int sockets)
{
	char path[256];
	FILE *f;
	int cpu;

	snprintf(root, len, "/tmp/ctxstat-topo-XXXXXX");
	if (!mkdtemp(root))
		abort();
	for (cpu = 0; cpu < 2; cpu++) {
		int socket = sockets > 1 ? cpu : 0;

		snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/cpu%d/topology "
			 "%s/devices/system/node/node%d/cpu%d", root, cpu, root, socket, cpu);
		if (system(path))
			abort();
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/physical_package_id",
			 root, cpu);
		f = fopen(path, "w");
		fprintf(f, "%d\n", socket);
		fclose(f);
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/core_id",
			 root, cpu);
		f = fopen(path, "w");
		fprintf(f, "0\n");
		fclose(f);
	}
	setenv("CTX_SYSFS_ROOT", root, 1);
}

static void topology_done(const char *root)
{
	char cmd[96];

	unsetenv("CTX_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
}

/*
 * --per-core, --per-socket, --per-node (exit 129 before): the CPUs'
 * rows summed by sysfs's topology, perf 6.1's ids and CPU counts first;
 * the fake gives CPU 1 a quarter of each count.
 */
TEST(aggregation_modes)
{
	struct outcome o;
	char root[64];

	fake_nl_reset();
	topology(root, sizeof(root), 1);
	run(stat_main, ARGV("ctxstat", "-a", "--per-core", "-e", "instructions", "-x,", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "S0-D0-C0,2,1000000,,instructions,")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "--per-die", "-e", "instructions", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "\nS0-D0           2            1000000      instructions "))
		TH_LOG("%s", o.err);
	done(&o);
	topology_done(root);
	fake_nl_reset();
	topology(root, sizeof(root), 2);
	run(stat_main, ARGV("ctxstat", "-a", "--per-socket", "-e", "instructions", "-x,", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "S0,1,750000,,instructions,")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "S1,1,250000,,instructions,")) TH_LOG("%s", o.err);
	done(&o);
	/* :t and --breakdown per socket: each row's context rows after it */
	run(stat_main, ARGV("ctxstat", "-a", "--per-socket", "--breakdown", "-e",
			    "instructions,instructions:t", "-x,", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "S1,1,250000,,instructions,")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "S1,1,2,,instructions [hardirq],")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "S1,1,249998,,instructions:t,")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "--per-node", "-e", "instructions", "-j", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "{\"node\" : \"N1\", \"aggregate-number\" : 1, \"counter-value\" : \"250000.000000\", "))
		TH_LOG("%s", o.err);
	done(&o);
	/* perf 7.2: {"node" : "N0", "counters" : 2, "counter-value" : ... */
	run(stat_main, ARGV("ctxstat", "--perf-dialect", "7.2", "-a", "--per-node", "-e",
			    "instructions", "-j", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "{\"node\" : \"N1\", \"counters\" : 1, \"counter-value\" : \"250000.000000\", "))
		TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "--per-socket", "-e", "instructions", "-I", "20",
			    "--interval-count", "1", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "#           time socket cpus             counts unit events\n"))
		TH_LOG("%s", o.err);
	done(&o);
	topology_done(root);
}

/*
 * @root's CPUs 0 and 1 (topology()'s) in two clusters, CPU 0 in cluster
 * 1 and CPU 1 in cluster 0 (perf's order is the ids', not the CPUs'),
 * each CPU with its own L1 (data and instruction), L2 and L3: two L3
 * instances, named by their CPUs. Each cache has the seven files perf
 * reads of it.
 */
static void clusters_and_caches(const char *root)
{
	static const char *const index_files[] = {
		"coherency_line_size", "number_of_sets", "ways_of_associativity",
		"type", "size",
	};
	static const int level[] = { 1, 1, 2, 3 };
	char path[256];
	int cpu, index;
	size_t i;
	FILE *f;

	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/cluster_id",
			 root, cpu);
		f = fopen(path, "w");
		fprintf(f, "%d\n", !cpu);
		fclose(f);
		for (index = 0; index < 4; index++) {
			snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/cpu%d/cache/index%d",
				 root, cpu, index);
			if (system(path))
				abort();
			for (i = 0; i < ARRAY_SIZE(index_files); i++) {
				snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/%s",
					 root, cpu, index, index_files[i]);
				f = fopen(path, "w");
				fputs(i < 3 ? "64\n" : i == 3 ? "Unified\n" : "1024K\n", f);
				fclose(f);
			}
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/level",
				 root, cpu, index);
			f = fopen(path, "w");
			fprintf(f, "%d\n", level[index]);
			fclose(f);
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
				 root, cpu, index);
			f = fopen(path, "w");
			fprintf(f, "%d\n", cpu);
			fclose(f);
		}
	}
}

/*
 * --per-cluster and --per-cache (unknown options before), perf 7.2's
 * rows: its ids (S0-D0-CLS0, S0-D0-L3-ID1) and CPU counts first, padded
 * in 20 and 22 columns in the standard format, under the keys "cluster"
 * and "cache" in JSON; the fake gives CPU 1 a quarter of each count.
 */
TEST(per_cluster_and_per_cache)
{
	struct outcome o;
	char root[64];
	char *lower;

	topology(root, sizeof(root), 1);
	clusters_and_caches(root);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-cluster", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	lower = strstr(o.err, "\nS0-D0-CLS0              1             250000      instructions ");
	EXPECT_NE(NULL, lower) TH_LOG("%s", o.err);
	EXPECT_LT(lower, strstr(o.err, "\nS0-D0-CLS1              1             750000      instructions "))
		TH_LOG("%s", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-cluster", "-e", "instructions", "-x,", "true"), &o);
	EXPECT_STREQ("S0-D0-CLS0,1,250000,,instructions,1000000,100.00,,\n"
		     "S0-D0-CLS1,1,750000,,instructions,1000000,100.00,,\n", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-cluster", "-e", "instructions", "-j", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "{\"cluster\" : \"S0-D0-CLS1\", \"aggregate-number\" : 1, \"counter-value\" : \"750000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", "))
		TH_LOG("%s", o.err);
	done(&o);

	/* no level: the highest, L3 here, an instance per CPU */
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-cache", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	lower = strstr(o.err, "\nS0-D0-L3-ID0              1             750000      instructions ");
	EXPECT_NE(NULL, lower) TH_LOG("%s", o.err);
	EXPECT_LT(lower, strstr(o.err, "\nS0-D0-L3-ID1              1             250000      instructions "))
		TH_LOG("%s", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-cache", "-e", "instructions", "-x,", "true"), &o);
	EXPECT_STREQ("S0-D0-L3-ID0,1,750000,,instructions,1000000,100.00,,\n"
		     "S0-D0-L3-ID1,1,250000,,instructions,1000000,100.00,,\n", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-cache=l2", "-e", "instructions", "-j", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "{\"cache\" : \"S0-D0-L2-ID1\", \"aggregate-number\" : 1, \"counter-value\" : \"250000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", "))
		TH_LOG("%s", o.err);
	done(&o);

	/* -I: perf 7.2's header, the names padded as the ids */
	run(stat_main, ARGV("ctxstat", "-a", "--per-cache", "-e", "instructions", "-I", "20",
			    "--interval-count", "1", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "#           time cache                  cpus             counts unit events\n"))
		TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "--per-cluster", "-e", "instructions", "-I", "20",
			    "--interval-count", "1", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "#           time cluster              cpus             counts unit events\n"))
		TH_LOG("%s", o.err);
	done(&o);
	topology_done(root);
}

/*
 * -p 1,2 (perf takes a list; it was "bad pid"): a session per pid, their
 * counts summed (the fake counts base + run in each, 1000000 and then
 * 1000001), the header naming the list; every session deleted.
 */
TEST(pid_list)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-p", "1,2", "-e", "instructions", "-x,", "--", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(2, fake_nl.sessions);
	EXPECT_EQ(0, fake_nl.live);
	EXPECT_EQ(2, fake_nl.target.pid);
	EXPECT_NE(NULL, strstr(o.err, "2000001,,instructions,2000001,100.00,,")) TH_LOG("%s", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-p", "1,2", "-e", "instructions", "--", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, " Performance counter stats for process id '1,2':\n")) TH_LOG("%s", o.err);
	done(&o);
	/* a failed second session leaves none behind */
	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_NEW;
	fake_nl.fail_at = 2;
	fake_nl.fail_err = -ESRCH;
	run(stat_main, ARGV("ctxstat", "-p", "1,2", "-e", "instructions", "--", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_EQ(0, fake_nl.live);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: no process 2\n")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * The module gave up waiting for the target (-EAGAIN): ctxstat asks
 * again, three times in all, then says what the module said.
 */
TEST(new_given_up_is_asked_again)
{
	static const char msg[] = "the target's exec or perf context held up its counters";
	struct outcome o;

	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_NEW;
	fake_nl.fail_at = 1;
	fake_nl.fail_times = 2;
	fake_nl.fail_err = -EAGAIN;
	fake_nl.fail_msg = msg;
	run(stat_main, ARGV("ctxstat", "-v", "-e", "instructions", "--", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.sessions);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: the target's exec or perf context held up its counters: trying again (3 of 3)\n"))
		TH_LOG("%s", o.err);
	done(&o);

	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_NEW;
	fake_nl.fail_at = 1;
	fake_nl.fail_times = 3;
	fake_nl.fail_err = -EAGAIN;
	fake_nl.fail_msg = msg;
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "--", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_EQ(0, fake_nl.live);
	EXPECT_NE(NULL, strstr(o.err, msg)) TH_LOG("%s", o.err);
	EXPECT_EQ(NULL, strstr(o.err, "trying again")) TH_LOG("-v only: %s", o.err);
	done(&o);
}

/*
 * START, STOP and READ that the module gave up waiting on (-EAGAIN) are
 * asked again until they go through; a START or STOP that the module went
 * on with meanwhile was done, which the next one's -EALREADY says.
 */
TEST(held_target_commands_are_asked_again)
{
	static const char msg[] = "the target's perf context is held";
	static const uint8_t cmds[] = {
		CTXCOUNT_CMD_SESSION_START, CTXCOUNT_CMD_SESSION_STOP,
		CTXCOUNT_CMD_SESSION_READ,
	};
	struct outcome o;
	unsigned int i;

	for (i = 0; i < sizeof(cmds); i++) {
		fake_nl_reset();
		fake_nl.fail_cmd = cmds[i];
		fake_nl.fail_at = 1;
		fake_nl.fail_times = 4;
		fake_nl.fail_err = -EAGAIN;
		fake_nl.fail_msg = msg;
		if (cmds[i] != CTXCOUNT_CMD_SESSION_READ)
			fake_nl.then_err = -EALREADY;
		run(stat_main, ARGV("ctxstat", "-v", "-x,", "-e", "instructions", "--", "true"), &o);
		EXPECT_EQ(0, o.code) TH_LOG("command %u: %s", cmds[i], o.err);
		EXPECT_NE(NULL, strstr(o.err, "ctxstat: the target's perf context is held: trying again (5)\n"))
			TH_LOG("command %u: %s", cmds[i], o.err);
		/* perf stat's counts go to stderr. */
		EXPECT_NE(NULL, strstr(o.err, ",instructions")) TH_LOG("command %u: %s", cmds[i], o.err);
		EXPECT_EQ(0, fake_nl.live);
		done(&o);
	}

	/* Anything else is said at once. */
	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_START;
	fake_nl.fail_at = 1;
	fake_nl.fail_err = -EALREADY;
	run(stat_main, ARGV("ctxstat", "-e", "instructions", "--", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "cannot start counting")) TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
