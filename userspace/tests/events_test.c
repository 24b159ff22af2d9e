// SPDX-License-Identifier: GPL-2.0
/*
 * events tests: every class of name against the numbers in
 * <linux/perf_event.h>, modifiers, raw codes, unknown names, and the
 * dedupe of :t twins into one counter.
 */
#include <string.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "events/events.h"

#define PARSE_OK(spec) ASSERT_EQ(0, cxs_event_parse(spec, &ev, err, sizeof(err)))

TEST(hardware_names_and_aliases)
{
	struct cxs_event ev;
	char err[256];

	PARSE_OK("cycles");
	EXPECT_EQ(PERF_TYPE_HARDWARE, ev.type);
	EXPECT_EQ(0, ev.config);
	PARSE_OK("cpu-cycles");
	EXPECT_EQ(0, ev.config);
	PARSE_OK("instructions");
	EXPECT_EQ(1, ev.config);
	PARSE_OK("cache-references");
	EXPECT_EQ(2, ev.config);
	PARSE_OK("cache-misses");
	EXPECT_EQ(3, ev.config);
	PARSE_OK("branches");
	EXPECT_EQ(4, ev.config);
	PARSE_OK("branch-instructions");
	EXPECT_EQ(4, ev.config);
	PARSE_OK("branch-misses");
	EXPECT_EQ(5, ev.config);
	PARSE_OK("bus-cycles");
	EXPECT_EQ(6, ev.config);
	PARSE_OK("stalled-cycles-frontend");
	EXPECT_EQ(7, ev.config);
	PARSE_OK("stalled-cycles-backend");
	EXPECT_EQ(8, ev.config);
	PARSE_OK("ref-cycles");
	EXPECT_EQ(9, ev.config);
	EXPECT_FALSE(ev.task_only);
	EXPECT_EQ(0, ev.flags);
	EXPECT_STREQ("ref-cycles", ev.name);
}

TEST(software_names_and_aliases)
{
	struct cxs_event ev;
	char err[256];

	PARSE_OK("cpu-clock");
	EXPECT_EQ(PERF_TYPE_SOFTWARE, ev.type);
	EXPECT_EQ(0, ev.config);
	PARSE_OK("task-clock");
	EXPECT_EQ(1, ev.config);
	PARSE_OK("page-faults");
	EXPECT_EQ(2, ev.config);
	PARSE_OK("faults");
	EXPECT_EQ(2, ev.config);
	PARSE_OK("context-switches");
	EXPECT_EQ(3, ev.config);
	PARSE_OK("cs");
	EXPECT_EQ(3, ev.config);
	PARSE_OK("cpu-migrations");
	EXPECT_EQ(4, ev.config);
	PARSE_OK("migrations");
	EXPECT_EQ(4, ev.config);
	PARSE_OK("minor-faults");
	EXPECT_EQ(5, ev.config);
	PARSE_OK("major-faults");
	EXPECT_EQ(6, ev.config);
	PARSE_OK("alignment-faults");
	EXPECT_EQ(7, ev.config);
	PARSE_OK("emulation-faults");
	EXPECT_EQ(8, ev.config);
	EXPECT_EQ(PERF_TYPE_SOFTWARE, ev.type);
}

/* config = cache id | op << 8 | result << 16 (perf_event.h). */
TEST(hardware_cache_events)
{
	struct cxs_event ev;
	char err[256];

	PARSE_OK("L1-dcache-loads");
	EXPECT_EQ(PERF_TYPE_HW_CACHE, ev.type);
	EXPECT_EQ(0x000000, ev.config);
	PARSE_OK("L1-dcache-load-misses");
	EXPECT_EQ(0x010000, ev.config);
	PARSE_OK("L1-icache-load-misses");
	EXPECT_EQ(0x010001, ev.config);
	PARSE_OK("LLC-stores");
	EXPECT_EQ(0x000102, ev.config);
	PARSE_OK("LLC-store-misses");
	EXPECT_EQ(0x010102, ev.config);
	PARSE_OK("dTLB-prefetch-misses");
	EXPECT_EQ(0x010203, ev.config);
	PARSE_OK("iTLB-loads");
	EXPECT_EQ(0x000004, ev.config);
	PARSE_OK("branch-loads");
	EXPECT_EQ(0x000005, ev.config);
	PARSE_OK("node-prefetches");
	EXPECT_EQ(0x000206, ev.config);
}

/*
 * perf 6.1's spellings, case included (its lexer matches them exactly:
 * it rejects L1-DCACHE-LOADS, llc-loads, dtlb-loads, which ctxstat took),
 * its aliases, an op or a result alone, and an op a cache lacks refused.
 */
TEST(hardware_cache_spellings)
{
	struct cxs_event ev;
	char err[256];

	PARSE_OK("l1d-loads");
	EXPECT_EQ(0x000000, ev.config);
	PARSE_OK("L1-data-load-miss");
	EXPECT_EQ(0x010000, ev.config);
	PARSE_OK("L1-dcache-misses");	/* the op defaults to read */
	EXPECT_EQ(0x010000, ev.config);
	PARSE_OK("L1-dcache");		/* read, access */
	EXPECT_EQ(0x000000, ev.config);
	PARSE_OK("L2-store-misses");
	EXPECT_EQ(0x010102, ev.config);
	PARSE_OK("d-tlb-speculative-read-miss");
	EXPECT_EQ(0x010203, ev.config);
	PARSE_OK("Instruction-TLB-read-access");
	EXPECT_EQ(0x000004, ev.config);
	PARSE_OK("bpu-loads");
	EXPECT_EQ(0x000005, ev.config);
	EXPECT_STREQ("bpu-loads", ev.name);
	EXPECT_EQ(-1, cxs_event_parse("L1-DCACHE-LOADS", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("llc-loads", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "did you mean 'LLC-loads'"));
	EXPECT_EQ(-1, cxs_event_parse("dtlb-loads", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("iTLB-stores", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("L1-icache-store-misses", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("L1-dcache-loads-loads", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("L1-dcache-misses-misses", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("L1-dcache-", &ev, err, sizeof(err)));
}

TEST(raw_events)
{
	struct cxs_event ev;
	char err[256];

	PARSE_OK("r1a2");
	EXPECT_EQ(PERF_TYPE_RAW, ev.type);
	EXPECT_EQ(0x1a2, ev.config);
	PARSE_OK("rC0:u");
	EXPECT_EQ(0xc0, ev.config);
	EXPECT_EQ(-1, cxs_event_parse("r", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("rxyz", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("r11111111111111111", &ev, err, sizeof(err)));
}

/* perf: naming any of u/k/h excludes the ones not named. */
TEST(modifiers)
{
	struct cxs_event ev;
	char err[256];

	PARSE_OK("cycles:t");
	EXPECT_TRUE(ev.task_only);
	EXPECT_EQ(0, ev.flags);
	PARSE_OK("cycles:u");
	EXPECT_FALSE(ev.task_only);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV,
		  ev.flags);
	PARSE_OK("cycles:k");
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_USER | CTXCOUNT_EVENT_F_EXCLUDE_HV,
		  ev.flags);
	PARSE_OK("cycles:tu");
	EXPECT_TRUE(ev.task_only);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV,
		  ev.flags);
	PARSE_OK("cycles:kt");
	EXPECT_TRUE(ev.task_only);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_USER | CTXCOUNT_EVENT_F_EXCLUDE_HV,
		  ev.flags);
	PARSE_OK("cycles:uk");
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_HV, ev.flags);
	PARSE_OK("cycles:h");
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_USER | CTXCOUNT_EVENT_F_EXCLUDE_KERNEL,
		  ev.flags);
	EXPECT_STREQ("cycles:h", ev.name);
	EXPECT_EQ(-1, cxs_event_parse("cycles:x", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "unknown modifier 'x'"));
	EXPECT_EQ(-1, cxs_event_parse("cycles:t:u", &ev, err, sizeof(err)));
}

/*
 * perf's check_modifier(): each letter once, p up to three times (it
 * accepted cycles:tt and cycles:uu); perf's letters that change nothing
 * a count shows are taken, the others refused by name.
 */
TEST(modifier_rules)
{
	struct cxs_event ev;
	char err[256];

	EXPECT_EQ(-1, cxs_event_parse("cycles:tt", &ev, err, sizeof(err)));
	EXPECT_STREQ("bad event modifier 'tt' in 'cycles:tt' (each at most once)", err);
	EXPECT_EQ(-1, cxs_event_parse("cycles:uu", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("cycles:utu", &ev, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_event_parse("cycles:", &ev, err, sizeof(err)));
	PARSE_OK("cycles:ppp");
	EXPECT_EQ(0, ev.flags);
	EXPECT_EQ(-1, cxs_event_parse("cycles:pppp", &ev, err, sizeof(err)));
	PARSE_OK("cycles:uWDP");
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV,
		  ev.flags);
	EXPECT_EQ(-1, cxs_event_parse("cycles:G", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "modifier 'G' in 'cycles:G' is perf's but not supported by ctxstat"));
	EXPECT_EQ(-1, cxs_event_parse("cycles:b", &ev, err, sizeof(err)));
}

TEST(unknown_events)
{
	struct cxs_event ev;
	char err[256];

	EXPECT_EQ(-1, cxs_event_parse("cyles", &ev, err, sizeof(err)));
	EXPECT_STREQ("unknown event 'cyles'; did you mean 'cycles'? (ctxstat --list)", err);
	EXPECT_EQ(-1, cxs_event_parse("L1-dcache-lod-misses:t", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "did you mean 'L1-dcache-load-misses'"));
	EXPECT_EQ(-1, cxs_event_parse("zzzzzzzzzzzz", &ev, err, sizeof(err)));
	EXPECT_STREQ("unknown event 'zzzzzzzzzzzz' (ctxstat --list shows the known ones)", err);
	EXPECT_EQ(-1, cxs_event_parse("", &ev, err, sizeof(err)));
}

/*
 * perf's tool event duration_time: perf 6.1 gives it the dummy software
 * event's attr; ctxstat measures it and asks the module for nothing.
 */
TEST(duration_time_is_a_tool_event)
{
	struct cxs_event_list l;
	struct cxs_event ev;
	char err[256];

	ASSERT_EQ(0, cxs_event_parse("duration_time", &ev, err, sizeof(err)));
	EXPECT_EQ(CXS_TOOL_DURATION_TIME, ev.tool);
	EXPECT_TRUE(cxs_event_is_tool(&ev));
	EXPECT_EQ(PERF_TYPE_SOFTWARE, ev.type);
	EXPECT_EQ(PERF_COUNT_SW_DUMMY, ev.config);
	EXPECT_FALSE(cxs_event_is_clock(&ev));
	ASSERT_EQ(0, cxs_event_parse("task-clock", &ev, err, sizeof(err)));
	EXPECT_FALSE(cxs_event_is_tool(&ev));
	/* perf takes u/k/h on it (and ignores them) */
	EXPECT_EQ(0, cxs_event_parse("duration_time:u", &ev, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(-1, cxs_event_parse("duration_time:t", &ev, err, sizeof(err)));
	EXPECT_STREQ("'duration_time:t': duration_time is the run's wall-clock time, measured by ctxstat, not counted in a context: no :t",
		     err);
	EXPECT_EQ(-1, cxs_event_parse("duration_tme", &ev, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "did you mean 'duration_time'")) TH_LOG("%s", err);
	EXPECT_TRUE(cxs_event_known("duration_time"));
	/* its counter is its own: not the dummy software event's, nor shared */
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add(&l, "task-clock,duration_time,duration_time", err, sizeof(err)));
	EXPECT_EQ(2, l.nr_counters);
	EXPECT_EQ(CXS_TOOL_NONE, l.counters[0].tool);
	EXPECT_EQ(CXS_TOOL_DURATION_TIME, l.counters[1].tool);
	EXPECT_EQ(1, l.ev[2].counter);
	/* perf 6.1 makes a group with it count nothing else: refused */
	EXPECT_EQ(-1, cxs_events_add(&l, "{duration_time,task-clock}", err, sizeof(err)));
	EXPECT_STREQ("event syntax error: '{duration_time,task-clock}': a tool event in a group: name it outside the braces",
		     err);
	EXPECT_EQ(3, l.nr) TH_LOG("a refused list is left out whole");
	EXPECT_EQ(0, cxs_events_add(&l, "{duration_time}", err, sizeof(err))) TH_LOG("%s", err);
}

TEST(dedupe_task_twins)
{
	struct cxs_event_list l;
	char err[256];

	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add(&l, "cycles,cycles:t,instructions", err, sizeof(err)));
	ASSERT_EQ(0, cxs_events_add(&l, "cycles:u,cycles:tu,cpu-cycles", err, sizeof(err)));
	EXPECT_EQ(6, l.nr);
	EXPECT_EQ(3, l.nr_counters);
	EXPECT_EQ(0, l.ev[0].counter);
	EXPECT_EQ(0, l.ev[1].counter);
	EXPECT_EQ(1, l.ev[2].counter);
	EXPECT_EQ(2, l.ev[3].counter);
	EXPECT_EQ(2, l.ev[4].counter);
	/* An alias is the same event. */
	EXPECT_EQ(0, l.ev[5].counter);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV,
		  l.counters[2].flags);
	EXPECT_EQ(PERF_COUNT_HW_INSTRUCTIONS, l.counters[1].config);
}

TEST(defaults)
{
	struct cxs_event_list l;
	char err[256];

	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add_defaults(&l, false, true, err, sizeof(err)));
	EXPECT_EQ(13, l.nr);
	EXPECT_EQ(8, l.nr_counters);
	EXPECT_STREQ("task-clock", l.ev[0].name);
	EXPECT_STREQ("task-clock:t", l.ev[1].name);
	EXPECT_TRUE(l.ev[1].task_only);
	EXPECT_EQ(l.ev[0].counter, l.ev[1].counter);
	EXPECT_STREQ("branch-misses:t", l.ev[12].name);
}

/*
 * System wide, perf 6.1 counts cpu-clock (a task clock of every task
 * would be meaningless: "CPUs utilized" was wrong); --no-twins gives
 * perf's 8 rows exactly.
 */
TEST(defaults_system_wide_and_no_twins)
{
	static const char *const perf[] = {
		"cpu-clock", "context-switches", "cpu-migrations", "page-faults",
		"cycles", "instructions", "branches", "branch-misses",
	};
	struct cxs_event_list l;
	char err[256];
	int i;

	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add_defaults(&l, true, true, err, sizeof(err)));
	EXPECT_STREQ("cpu-clock", l.ev[0].name);
	EXPECT_STREQ("cpu-clock:t", l.ev[1].name);
	EXPECT_EQ(PERF_COUNT_SW_CPU_CLOCK, l.counters[0].config);
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add_defaults(&l, true, false, err, sizeof(err)));
	ASSERT_EQ(8, l.nr);
	for (i = 0; i < 8; i++)
		EXPECT_STREQ(perf[i], l.ev[i].name);
}

TEST(counter_limit)
{
	struct cxs_event_list l;
	char err[256];

	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add(&l, "r1,r2,r3,r4,r5,r6,r7,r8,r9,ra,rb,rc,rd,re,rf,r10", err, sizeof(err)));
	EXPECT_EQ(CTXCOUNT_MAX_EVENTS, l.nr_counters);
	/* A twin of a counted event still fits; a 17th counter does not. */
	EXPECT_EQ(0, cxs_events_add(&l, "r1:t", err, sizeof(err)));
	EXPECT_EQ(-1, cxs_events_add(&l, "r11", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "at most 16 counters"));
	EXPECT_EQ(-1, cxs_events_add(&l, "", err, sizeof(err)));
}

TEST_HARNESS_MAIN
