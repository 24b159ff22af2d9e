// SPDX-License-Identifier: GPL-2.0
/*
 * evlist tests: perf's event list syntax (commas, groups, a PMU event's
 * own commas) and PMU events resolved from a fake sysfs tree
 * ($CTX_SYSFS_ROOT), as perf resolves them from the real one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "events/events.h"

#define ADD(l, specs) cxs_events_add(l, specs, err, sizeof(err))

/* "-e ," ran and printed an empty block; perf: a syntax error. */
TEST(empty_events_are_syntax_errors)
{
	static const char *const bad[] = {
		",", "cycles,,instructions", "cycles,", ",cycles", "{}",
		"{cycles,}", "{cycles", "cycles}", "{cycles}x", "{cycles}:",
		"{{cycles}}", "cycles/",
	};
	struct cxs_event_list l;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&l, 0, sizeof(l));
		EXPECT_EQ(-1, ADD(&l, bad[i])) TH_LOG("'%s' accepted", bad[i]);
		EXPECT_EQ(0, l.nr) TH_LOG("'%s'", bad[i]);
	}
	memset(&l, 0, sizeof(l));
	EXPECT_EQ(-1, ADD(&l, ","));
	EXPECT_STREQ("event syntax error: ',': an empty event", err);
}

/*
 * Groups: their events, each with the group's modifiers (perf's
 * "{cycles,instructions}:u" counts cycles:u and instructions:u), each
 * knowing its group's first event when the group has two or more, and
 * whether it is weak (:W), for events/group.c.
 */
TEST(groups)
{
	struct cxs_event_list l;
	char err[256];

	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, "{cycles,instructions},branches")) TH_LOG("%s", err);
	ASSERT_EQ(3, l.nr);
	EXPECT_STREQ("cycles", l.ev[0].name);
	EXPECT_STREQ("instructions", l.ev[1].name);
	EXPECT_STREQ("branches", l.ev[2].name);
	EXPECT_EQ(0, l.ev[0].group);
	EXPECT_EQ(0, l.ev[1].group);
	EXPECT_EQ(-1, l.ev[2].group);
	EXPECT_FALSE(l.ev[1].weak_group);
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, "branches,{cycles},{cycles:u,instructions}:W")) TH_LOG("%s", err);
	EXPECT_EQ(-1, l.ev[0].group);
	EXPECT_EQ(-1, l.ev[1].group);
	EXPECT_EQ(2, l.ev[2].group);
	EXPECT_EQ(2, l.ev[3].group);
	EXPECT_TRUE(l.ev[2].weak_group && l.ev[3].weak_group);
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, "{cycles,instructions:k,cycles:t}:u")) TH_LOG("%s", err);
	ASSERT_EQ(3, l.nr);
	EXPECT_STREQ("cycles:u", l.ev[0].name);
	EXPECT_STREQ("instructions:ku", l.ev[1].name);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_HV, l.ev[1].flags);
	EXPECT_STREQ("cycles:tu", l.ev[2].name);
	EXPECT_TRUE(l.ev[2].task_only);
	/* cycles:u and cycles:tu share a counter */
	EXPECT_EQ(l.ev[0].counter, l.ev[2].counter);
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, "{cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles}:W"))
		TH_LOG("%s", err);
	EXPECT_EQ(10, l.nr);
	EXPECT_EQ(1, l.nr_counters);
	EXPECT_STREQ("cycles", l.ev[9].name);
	EXPECT_EQ(0, l.ev[9].group);
	EXPECT_TRUE(l.ev[9].weak_group);
	memset(&l, 0, sizeof(l));
	EXPECT_EQ(-1, ADD(&l, "{cycles}:x"));
	EXPECT_NE(NULL, strstr(err, "unknown modifier 'x'")) TH_LOG("%s", err);
	EXPECT_EQ(-1, ADD(&l, "{slots,topdown-retiring}"));
}

/*
 * perf 6.1's lexer skips blanks between an event list's tokens:
 * "cycles, instructions" (as people type it after a comma) counts both.
 * ctxstat takes them around a list's or a group's events only, and
 * names the rows without them. A blank is no event, and it separates
 * nothing: a list of blanks, "cycles, ,instructions" and "cycles
 * instructions" stay syntax errors, as in perf.
 */
TEST(blanks_around_commas)
{
	static const char *const bad[] = {
		" ", " , ", "cycles, ,instructions", "cycles ,", "{ }",
		"{cycles, }", "cycles instructions",
	};
	struct cxs_event_list l;
	char err[256];
	size_t i;

	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, "cycles, instructions")) TH_LOG("%s", err);
	ASSERT_EQ(2, l.nr);
	EXPECT_STREQ("cycles", l.ev[0].name);
	EXPECT_STREQ("instructions", l.ev[1].name);
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, " cycles:t ,\tinstructions:u\n, { branches , cycles }:k "))
		TH_LOG("%s", err);
	ASSERT_EQ(4, l.nr);
	EXPECT_STREQ("cycles:t", l.ev[0].name);
	EXPECT_STREQ("instructions:u", l.ev[1].name);
	EXPECT_STREQ("branches:k", l.ev[2].name);
	EXPECT_STREQ("cycles:k", l.ev[3].name);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&l, 0, sizeof(l));
		EXPECT_EQ(-1, ADD(&l, bad[i])) TH_LOG("'%s' accepted", bad[i]);
		EXPECT_EQ(0, l.nr) TH_LOG("'%s'", bad[i]);
	}
	memset(&l, 0, sizeof(l));
	EXPECT_EQ(-1, ADD(&l, "cycles, ,instructions"));
	EXPECT_STREQ("event syntax error: 'cycles, ,instructions': an empty event", err);
}

/* A fake /sys with the PMUs of the guests (x86's cpu and msr, arm64's). */
static void make_sysfs(const char *root)
{
	static const char *const files[][2] = {
		{ "cpu/type", "4\n" },
		{ "cpu/format/event", "config:0-7\n" },
		{ "cpu/format/umask", "config:8-15\n" },
		{ "cpu/format/cmask", "config:24-31\n" },
		{ "cpu/format/any", "config:21\n" },
		{ "cpu/format/ldlat", "config1:0-15\n" },
		{ "cpu/events/cpu-cycles", "event=0x3c\n" },
		{ "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n" },
		{ "cpu/events/inst-retired", "event=0xc0,umask=0x00\n" },
		{ "msr/type", "10\n" },
		{ "msr/format/event", "config:0-63\n" },
		{ "msr/events/tsc", "event=0x00\n" },
		{ "armv8_pmuv3/type", "8\n" },
		{ "armv8_pmuv3/format/event", "config:0-15\n" },
		{ "armv8_pmuv3/events/cpu_cycles", "event=0x0011\n" },
	};
	char path[512], cmd[600];
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", root,
			 files[i][0]);
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
		if (system(cmd))
			abort();
		f = fopen(path, "w");
		fputs(files[i][1], f);
		fclose(f);
	}
}

/* The fake tree in @root, $CTX_SYSFS_ROOT pointing there. */
static void sysfs_setup(char *root, size_t len)
{
	snprintf(root, len, "/tmp/ctxstat-sysfs-XXXXXX");
	if (!mkdtemp(root))
		abort();
	make_sysfs(root);
	setenv("CTX_SYSFS_ROOT", root, 1);
}

static void sysfs_teardown(const char *root)
{
	char cmd[96];

	unsetenv("CTX_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
}

#define PARSE_OK(spec) ASSERT_EQ(0, cxs_event_parse(spec, &ev, err, sizeof(err))) \
	TH_LOG("%s: %s", spec, err)

/* PMU-qualified names, as perf resolves them (ctxstat knew none). */
TEST(pmu_events)
{
	struct cxs_event ev;
	char err[256], root[64];

	sysfs_setup(root, sizeof(root));
	PARSE_OK("cpu/event=0x3c,umask=0x1/");
	EXPECT_EQ(4, ev.type);
	EXPECT_EQ(0x13c, ev.config);
	EXPECT_STREQ("cpu/event=0x3c,umask=0x1/", ev.name);
	PARSE_OK("cpu/event=60,cmask=2,any/");
	EXPECT_EQ(0x0220003c, ev.config);
	PARSE_OK("cpu/cpu-cycles/");
	EXPECT_EQ(0x3c, ev.config);
	PARSE_OK("cpu/inst-retired,cmask=1/u");
	EXPECT_EQ(0x010000c0, ev.config);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV, ev.flags);
	PARSE_OK("cpu/config=0x1234/:tk");
	EXPECT_EQ(0x1234, ev.config);
	EXPECT_TRUE(ev.task_only);
	PARSE_OK("cpu/event=0xc0,name=retired/");
	EXPECT_STREQ("retired", ev.name);
	PARSE_OK("armv8_pmuv3/cpu_cycles/");
	EXPECT_EQ(8, ev.type);
	EXPECT_EQ(0x11, ev.config);
	PARSE_OK("msr/tsc/");
	EXPECT_EQ(10, ev.type);
	EXPECT_EQ(0, ev.config);
	/* config1 (a load latency): the module takes the config only */
	EXPECT_EQ(-1, cxs_event_parse("cpu/mem-loads/", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "cpu/mem-loads/: not supported by ctxstat: it needs config1"))
		TH_LOG("%s", err);
	EXPECT_EQ(-1, cxs_event_parse("cpu/event=0x1ff/", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "does not fit")) TH_LOG("%s", err);
	EXPECT_EQ(-1, cxs_event_parse("cpu/bogus=1/", &ev, err, sizeof(err)));
	EXPECT_STREQ("PMU cpu has no term or event 'bogus' (perf list)", err);
	EXPECT_EQ(-1, cxs_event_parse("cpu/event=xyz/", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("nopmu/event=1/", &ev, err, sizeof(err)));
	EXPECT_STREQ("Cannot find PMU `nopmu'. Missing kernel support? (perf list)", err);
	EXPECT_EQ(-1, cxs_event_parse("../cpu/event=1/", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("cpu//", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("cpu/event=1", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("cpu/event=1/x", &ev, err, sizeof(err)));
	sysfs_teardown(root);
}

/* A PMU event's commas are its own; groups of them too. */
TEST(pmu_events_in_lists)
{
	struct cxs_event_list l;
	char err[256], root[64];

	sysfs_setup(root, sizeof(root));
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, ADD(&l, "cpu/event=0x3c,umask=0x1/,cycles,{msr/tsc/,cpu/event=0xc0/k}:u"))
		TH_LOG("%s", err);
	ASSERT_EQ(4, l.nr);
	EXPECT_STREQ("cpu/event=0x3c,umask=0x1/", l.ev[0].name);
	EXPECT_STREQ("cycles", l.ev[1].name);
	EXPECT_STREQ("msr/tsc/u", l.ev[2].name);
	EXPECT_STREQ("cpu/event=0xc0/ku", l.ev[3].name);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_HV, l.ev[3].flags);
	sysfs_teardown(root);
}

TEST_HARNESS_MAIN
