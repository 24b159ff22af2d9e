// SPDX-License-Identifier: GPL-2.0
/*
 * detailed tests: perf's -d, -dd and -ddd (events/detailed.c): perf
 * 6.1's events in its order and spelling, after the default set's or
 * -e's, with :t twins as the default set has them; those a fake
 * perf_event_open() says the PMU has not got share one counter never
 * asked for, so that a machine without them does not pass the module's
 * 16 counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "events/detailed.h"
#include "options/args.h"

/* perf 6.1's detailed_attrs, very_detailed_attrs, very_very_detailed_attrs */
#define HW_CACHE(cache, op, res) \
	(PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 PERF_COUNT_HW_CACHE_RESULT_##res << 16)

static const struct {
	const char *name;
	uint64_t config;
} perf_detailed[] = {
	{ "L1-dcache-loads", HW_CACHE(L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", HW_CACHE(L1D, READ, MISS) },
	{ "LLC-loads", HW_CACHE(LL, READ, ACCESS) },
	{ "LLC-load-misses", HW_CACHE(LL, READ, MISS) },
	{ "L1-icache-loads", HW_CACHE(L1I, READ, ACCESS) },
	{ "L1-icache-load-misses", HW_CACHE(L1I, READ, MISS) },
	{ "dTLB-loads", HW_CACHE(DTLB, READ, ACCESS) },
	{ "dTLB-load-misses", HW_CACHE(DTLB, READ, MISS) },
	{ "iTLB-loads", HW_CACHE(ITLB, READ, ACCESS) },
	{ "iTLB-load-misses", HW_CACHE(ITLB, READ, MISS) },
	{ "L1-dcache-prefetches", HW_CACHE(L1D, PREFETCH, ACCESS) },
	{ "L1-dcache-prefetch-misses", HW_CACHE(L1D, PREFETCH, MISS) },
};

/* The fake PMU: the configs it has not got (ENOENT), and what it was asked. */
static uint64_t lacks[16];
static int nr_lacks, opened, refuse_err;

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	int i;

	(void)group_fd, (void)flags;
	opened++;
	/* on ctxstat itself, any CPU, never counting */
	if (pid != 0 || cpu != -1 || !attr->disabled) {
		errno = EINVAL;
		return -1;
	}
	if (refuse_err) {
		errno = refuse_err;
		return -1;
	}
	for (i = 0; i < nr_lacks; i++)
		if (attr->type == PERF_TYPE_HW_CACHE && attr->config == lacks[i]) {
			errno = ENOENT;
			return -1;
		}
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void pmu_has_all(void)
{
	nr_lacks = opened = refuse_err = 0;
}

static void pmu_lacks(uint64_t config)
{
	lacks[nr_lacks++] = config;
}

/* Each level's events, perf's names, perf's order; -dddd is -ddd. */
TEST(levels_are_perfs)
{
	const char *const *names;
	size_t i;

	EXPECT_EQ(0, cxs_detailed_events(0, &names));
	EXPECT_EQ(4, cxs_detailed_events(1, &names));
	EXPECT_EQ(10, cxs_detailed_events(2, &names));
	EXPECT_EQ(12, cxs_detailed_events(3, &names));
	EXPECT_EQ(12, cxs_detailed_events(4, &names));
	ASSERT_EQ(ARRAY_SIZE(perf_detailed), cxs_detailed_events(3, &names));
	for (i = 0; i < ARRAY_SIZE(perf_detailed); i++) {
		struct cxs_event ev;
		char err[128];

		EXPECT_STREQ(perf_detailed[i].name, names[i]);
		ASSERT_EQ(0, cxs_event_parse(names[i], &ev, err, sizeof(err))) TH_LOG("%s", err);
		EXPECT_EQ(PERF_TYPE_HW_CACHE, ev.type);
		EXPECT_EQ(perf_detailed[i].config, ev.config) TH_LOG("%s", names[i]);
	}
}

/*
 * -d on the default set, with twins: the default rows, then each of -d's
 * and its :t twin on one counter, every one checked on ctxstat itself.
 */
TEST(d_after_the_defaults_with_twins)
{
	struct cxs_event_list l;
	char err[256];
	int i;

	memset(&l, 0, sizeof(l));
	pmu_has_all();
	ASSERT_EQ(0, cxs_events_add_defaults(&l, false, true, err, sizeof(err)));
	ASSERT_EQ(13, l.nr);
	ASSERT_EQ(0, cxs_events_add_detailed(&l, 1, true, false, fake_open, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(4, opened);
	ASSERT_EQ(13 + 8, l.nr);
	EXPECT_EQ(8 + 4, l.nr_counters);
	for (i = 0; i < 4; i++) {
		const struct cxs_event *full = &l.ev[13 + 2 * i], *twin = full + 1;
		char name[64];

		EXPECT_STREQ(perf_detailed[i].name, full->name);
		snprintf(name, sizeof(name), "%s:t", perf_detailed[i].name);
		EXPECT_STREQ(name, twin->name);
		EXPECT_FALSE(full->task_only);
		EXPECT_TRUE(twin->task_only);
		EXPECT_EQ(full->counter, twin->counter);
		EXPECT_EQ(8 + i, full->counter);
		EXPECT_EQ(0, l.counters[full->counter].open_err);
		EXPECT_EQ(perf_detailed[i].config, l.counters[full->counter].config);
	}
}

/*
 * A PMU without any of them (a VM's): -ddd's twelve, and their twins,
 * share one counter with perf's "not supported" errno; the default set's
 * eight counters and it stay within the module's 16.
 */
TEST(ddd_without_a_pmu_shares_one_counter)
{
	struct cxs_event_list l;
	char err[256];
	size_t i;

	memset(&l, 0, sizeof(l));
	pmu_has_all();
	for (i = 0; i < ARRAY_SIZE(perf_detailed); i++)
		pmu_lacks(perf_detailed[i].config);
	ASSERT_EQ(0, cxs_events_add_defaults(&l, false, true, err, sizeof(err)));
	ASSERT_EQ(0, cxs_events_add_detailed(&l, 3, true, false, fake_open, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(8 + 1, l.nr_counters);
	EXPECT_EQ(ENOENT, l.counters[8].open_err);
	ASSERT_EQ(13 + 24, l.nr);
	for (i = 0; i < ARRAY_SIZE(perf_detailed); i++) {
		EXPECT_STREQ(perf_detailed[i].name, l.ev[13 + 2 * i].name);
		EXPECT_EQ(8, l.ev[13 + 2 * i].counter);
		EXPECT_EQ(8, l.ev[14 + 2 * i].counter);
		/* each row keeps its own event, for stat record's attr */
		EXPECT_EQ(perf_detailed[i].config, l.ev[13 + 2 * i].config);
	}
	/* --no-twins: perf's rows, one for one */
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, cxs_events_add_defaults(&l, false, false, err, sizeof(err)));
	ASSERT_EQ(0, cxs_events_add_detailed(&l, 3, false, false, fake_open, err, sizeof(err)));
	EXPECT_EQ(8 + 12, l.nr);
	EXPECT_EQ(9, l.nr_counters);
}

/*
 * Some of them: those the PMU has count on counters of their own, the
 * others share one; a refusal (EACCES) is not "not supported" and is
 * left to the run's proof.
 */
TEST(dd_with_some_of_them)
{
	struct cxs_event_list l;
	char err[256];
	int i;

	memset(&l, 0, sizeof(l));
	pmu_has_all();
	pmu_lacks(perf_detailed[4].config);	/* L1-icache-loads, as on Intel */
	pmu_lacks(perf_detailed[8].config);	/* iTLB-loads */
	ASSERT_EQ(0, cxs_events_add(&l, "task-clock", err, sizeof(err)));
	ASSERT_EQ(0, cxs_events_add_detailed(&l, 2, false, false, fake_open, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(1 + 10, l.nr);
	/* task-clock, then 8 of their own and one for the two lacking */
	EXPECT_EQ(1 + 8 + 1, l.nr_counters);
	EXPECT_EQ(l.ev[5].counter, l.ev[9].counter);
	EXPECT_EQ(ENOENT, l.counters[l.ev[5].counter].open_err);
	for (i = 1; i <= 10; i++)
		if (i != 5 && i != 9)
			EXPECT_EQ(0, l.counters[l.ev[i].counter].open_err) TH_LOG("%s", l.ev[i].name);
	memset(&l, 0, sizeof(l));
	pmu_has_all();
	refuse_err = EACCES;
	ASSERT_EQ(0, cxs_events_add_detailed(&l, 1, false, false, fake_open, err, sizeof(err)));
	EXPECT_EQ(4, l.nr_counters);
	EXPECT_EQ(0, l.counters[0].open_err);
}

/*
 * A PMU with all twelve: 8 + 10 counters for -dd pass the module's 16,
 * which the error says; the list is left as it was.
 */
TEST(too_many_for_the_module)
{
	struct cxs_event_list l;
	char err[256];

	memset(&l, 0, sizeof(l));
	pmu_has_all();
	ASSERT_EQ(0, cxs_events_add_defaults(&l, false, true, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_events_add_detailed(&l, 2, true, false, fake_open, err, sizeof(err)));
	EXPECT_STREQ("-dd adds perf's detailed events: too many distinct events: at most 16 counters",
		     err);
	EXPECT_EQ(13, l.nr);
	EXPECT_EQ(8, l.nr_counters);
	EXPECT_EQ(-1, cxs_events_add_detailed(&l, 5, true, false, fake_open, err, sizeof(err)));
	EXPECT_EQ(0, strncmp(err, "-ddd adds", 9)) TH_LOG("%s", err);
}

/* -d, -dd, --detailed: a count, as perf's OPT_INCR. */
TEST(option_counts)
{
	struct cxs_args a;
	char err[128];
	char *one[] = { "ctxstat", "-d", "true", NULL };
	char *three[] = { "ctxstat", "-dd", "--detailed", "-e", "cycles", "true", NULL };

	ASSERT_EQ(0, cxs_args_parse(&a, 3, one, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1, a.detailed);
	EXPECT_FALSE(a.perf_only);
	ASSERT_EQ(0, cxs_args_parse(&a, 6, three, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(3, a.detailed);
	EXPECT_EQ(1, a.nr_event_specs);
}

TEST_HARNESS_MAIN
