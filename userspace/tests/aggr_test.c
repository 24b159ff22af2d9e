// SPDX-License-Identifier: GPL-2.0
/*
 * aggr tests: --per-cluster's and --per-cache's ids read from a fake
 * sysfs ($CTX_SYSFS_ROOT) as perf reads them (cpumap.c's
 * aggr_cpu_id__cluster, builtin-stat.c's cpu__get_cache_details), the
 * CPUs' rows summed per id and sorted as perf's aggr_cpu_id__cmp.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "output/aggr.h"

/* @text into @root/@path, its directories made first. */
static void put(const char *root, const char *path, const char *text)
{
	char full[512], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(full, 0755) && errno != EEXIST)
			abort();
		*slash = '/';
	}
	f = fopen(full, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

/*
 * cpu@cpu's cache/index@index as Linux describes a cache: the seven files
 * perf reads of it.
 */
static void put_cache(const char *root, int cpu, int index, int level,
		      const char *type, const char *shared_cpu_list)
{
	static const char *const fixed[][2] = {
		{ "coherency_line_size", "64\n" }, { "number_of_sets", "64\n" },
		{ "ways_of_associativity", "8\n" }, { "size", "32K\n" },
	};
	char path[128], text[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fixed); i++) {
		snprintf(path, sizeof(path), "devices/system/cpu/cpu%d/cache/index%d/%s",
			 cpu, index, fixed[i][0]);
		put(root, path, fixed[i][1]);
	}
	snprintf(path, sizeof(path), "devices/system/cpu/cpu%d/cache/index%d/level",
		 cpu, index);
	snprintf(text, sizeof(text), "%d\n", level);
	put(root, path, text);
	snprintf(path, sizeof(path), "devices/system/cpu/cpu%d/cache/index%d/type",
		 cpu, index);
	snprintf(text, sizeof(text), "%s\n", type);
	put(root, path, text);
	snprintf(path, sizeof(path), "devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
		 cpu, index);
	snprintf(text, sizeof(text), "%s\n", shared_cpu_list);
	put(root, path, text);
}

static void put_topology(const char *root, int cpu, const char *what, int value)
{
	char path[128], text[16];

	snprintf(path, sizeof(path), "devices/system/cpu/cpu%d/topology/%s", cpu, what);
	snprintf(text, sizeof(text), "%d\n", value);
	put(root, path, text);
}

static void remove_tree(const char *root)
{
	char cmd[96];

	unsetenv("CTX_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		abort();
}

#define NR_CPUS 4

/*
 * Four CPUs of one socket (no die_id) in two clusters of two, each
 * cluster with its own L2 and L3 (two L3 instances): CPUs 0 and 1 in
 * cluster 16, 2 and 3 in cluster 8, so that perf's order is not the
 * CPUs'. L1 data and instruction caches per CPU. CPU k counts 10^k in
 * the one counter, so that every sum says which CPUs it holds.
 */
FIXTURE(two_clusters) {
	char root[64];
	int cpu_ids[NR_CPUS];
	struct cxs_counter_values *counters;
	struct cxs_aggr_rows rows;
};

FIXTURE_SETUP(two_clusters)
{
	static const char *const shared[] = { "0-1", "0-1", "2-3", "2-3" };
	struct cxs_counter_reading rd = { .time_enabled = 1000, .time_running = 1000 };
	char own[8];
	int cpu;

	snprintf(self->root, sizeof(self->root), "/tmp/ctxstat-aggr-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		snprintf(own, sizeof(own), "%d", cpu);
		put_topology(self->root, cpu, "physical_package_id", 0);
		put_topology(self->root, cpu, "core_id", cpu);
		put_topology(self->root, cpu, "cluster_id", cpu < 2 ? 16 : 8);
		put_cache(self->root, cpu, 0, 1, "Data", own);
		put_cache(self->root, cpu, 1, 1, "Instruction", own);
		put_cache(self->root, cpu, 2, 2, "Unified", shared[cpu]);
		put_cache(self->root, cpu, 3, 3, "Unified", shared[cpu]);
	}
	setenv("CTX_SYSFS_ROOT", self->root, 1);
	/* listed out of order: the rows' order is perf's, not this one */
	self->cpu_ids[0] = 2;
	self->cpu_ids[1] = 0;
	self->cpu_ids[2] = 3;
	self->cpu_ids[3] = 1;
	self->counters = calloc(NR_CPUS * CTXCOUNT_MAX_EVENTS, sizeof(*self->counters));
	ASSERT_NE(NULL, self->counters);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		rd.full = 1;
		for (int k = 0; k < self->cpu_ids[cpu]; k++)
			rd.full *= 10;
		ASSERT_EQ(0, cxs_counter_add(&self->counters[cpu * CTXCOUNT_MAX_EVENTS], &rd));
	}
}

FIXTURE_TEARDOWN(two_clusters)
{
	cxs_aggr_rows_free(&self->rows);
	for (int i = 0; i < NR_CPUS * CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&self->counters[i]);
	free(self->counters);
	remove_tree(self->root);
}

static double row_sum(const struct cxs_aggr_rows *rows, int k)
{
	return cxs_sample_mean(&rows->counters[k * CTXCOUNT_MAX_EVENTS].full);
}

/* Only the mode's fields are set; the others are -1, as perf's ids. */
static void expect_id(struct __test_metadata *_metadata,
		      const struct cxs_aggr_id *id, int socket, int die,
		      int cluster, int cache_lvl, int cache)
{
	EXPECT_EQ(socket, id->socket);
	EXPECT_EQ(die, id->die);
	EXPECT_EQ(cluster, id->cluster);
	EXPECT_EQ(cache_lvl, id->cache_lvl);
	EXPECT_EQ(cache, id->cache);
	EXPECT_EQ(-1, id->core);
	EXPECT_EQ(-1, id->node);
}

/* A row per cluster, the lower cluster_id first: 8 (CPUs 2, 3), 16. */
TEST_F(two_clusters, per_cluster)
{
	ASSERT_EQ(0, cxs_aggr_rows_build(&self->rows, CXS_AGGR_CLUSTER, 0, NR_CPUS,
					 self->cpu_ids, self->counters, 1));
	ASSERT_EQ(2, self->rows.nr);
	expect_id(_metadata, &self->rows.id[0], 0, 0, 8, -1, -1);
	EXPECT_EQ(2, self->rows.nr_cpus[0]);
	EXPECT_EQ(1100, row_sum(&self->rows, 0));
	expect_id(_metadata, &self->rows.id[1], 0, 0, 16, -1, -1);
	EXPECT_EQ(2, self->rows.nr_cpus[1]);
	EXPECT_EQ(11, row_sum(&self->rows, 1));
}

/*
 * No level: each CPU's highest, L3, whose two instances are named by
 * their first CPUs, 0 and 2.
 */
TEST_F(two_clusters, per_cache_highest_level)
{
	ASSERT_EQ(0, cxs_aggr_rows_build(&self->rows, CXS_AGGR_CACHE, 0, NR_CPUS,
					 self->cpu_ids, self->counters, 1));
	ASSERT_EQ(2, self->rows.nr);
	expect_id(_metadata, &self->rows.id[0], 0, 0, -1, 3, 0);
	EXPECT_EQ(2, self->rows.nr_cpus[0]);
	EXPECT_EQ(11, row_sum(&self->rows, 0));
	expect_id(_metadata, &self->rows.id[1], 0, 0, -1, 3, 2);
	EXPECT_EQ(2, self->rows.nr_cpus[1]);
	EXPECT_EQ(1100, row_sum(&self->rows, 1));
}

/* L1: a row per CPU (data and instruction share the CPU's list). */
TEST_F(two_clusters, per_cache_level_1)
{
	int k;

	ASSERT_EQ(0, cxs_aggr_rows_build(&self->rows, CXS_AGGR_CACHE, 1, NR_CPUS,
					 self->cpu_ids, self->counters, 1));
	ASSERT_EQ(4, self->rows.nr);
	for (k = 0; k < 4; k++) {
		expect_id(_metadata, &self->rows.id[k], 0, 0, -1, 1, k);
		EXPECT_EQ(1, self->rows.nr_cpus[k]);
	}
	EXPECT_EQ(1000, row_sum(&self->rows, 3));
}

/* A level these CPUs have not got: perf's L4 with id -1, one row. */
TEST_F(two_clusters, per_cache_missing_level)
{
	ASSERT_EQ(0, cxs_aggr_rows_build(&self->rows, CXS_AGGR_CACHE, 4, NR_CPUS,
					 self->cpu_ids, self->counters, 1));
	ASSERT_EQ(1, self->rows.nr);
	expect_id(_metadata, &self->rows.id[0], 0, 0, -1, 4, -1);
	EXPECT_EQ(4, self->rows.nr_cpus[0]);
	EXPECT_EQ(1111, row_sum(&self->rows, 0));
}

/*
 * The same ids under the older modes: --per-socket sums all four, and
 * --per-core keeps perf 6.1's ids (no cluster).
 */
TEST_F(two_clusters, older_modes_unchanged)
{
	ASSERT_EQ(0, cxs_aggr_rows_build(&self->rows, CXS_AGGR_SOCKET, 0, NR_CPUS,
					 self->cpu_ids, self->counters, 1));
	ASSERT_EQ(1, self->rows.nr);
	EXPECT_EQ(-1, self->rows.id[0].cluster);
	EXPECT_EQ(-1, self->rows.id[0].cache);
	EXPECT_EQ(1111, row_sum(&self->rows, 0));
	cxs_aggr_rows_free(&self->rows);
	ASSERT_EQ(0, cxs_aggr_rows_build(&self->rows, CXS_AGGR_CORE, 0, NR_CPUS,
					 self->cpu_ids, self->counters, 1));
	ASSERT_EQ(4, self->rows.nr);
	EXPECT_EQ(0, self->rows.id[0].core);
	EXPECT_EQ(-1, self->rows.id[0].cluster);
	EXPECT_EQ(1, row_sum(&self->rows, 0));
}

/*
 * What perf does where sysfs has less: no cluster_id is cluster 0; a
 * cache perf cannot describe (a file of the seven missing) gives the CPU
 * no cache id at all; an empty shared_cpu_list names the instance by the
 * CPU itself; perf reads index0 to index3 only, and stops at the first
 * index missing.
 */
TEST(sparse_sysfs)
{
	struct cxs_aggr_id id;
	char root[64], path[160];

	snprintf(root, sizeof(root), "/tmp/ctxstat-aggr-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(root));
	setenv("CTX_SYSFS_ROOT", root, 1);
	put_topology(root, 3, "physical_package_id", 1);
	put_topology(root, 3, "die_id", 2);
	put_cache(root, 3, 0, 1, "Data", "3");
	put_cache(root, 3, 1, 2, "Unified", "");
	cxs_aggr_cpu_id(3, &id);
	EXPECT_EQ(1, id.socket);
	EXPECT_EQ(2, id.die);
	EXPECT_EQ(0, id.cluster);
	EXPECT_EQ(-1, id.cache_lvl);
	EXPECT_EQ(-1, id.cache);
	cxs_aggr_cpu_cache(3, 0, &id);
	EXPECT_EQ(2, id.cache_lvl);
	EXPECT_EQ(3, id.cache);
	put_topology(root, 3, "cluster_id", 5);
	cxs_aggr_cpu_id(3, &id);
	EXPECT_EQ(5, id.cluster);

	/* index4 is beyond perf's reach; a missing index2 ends the list */
	put_cache(root, 3, 4, 4, "Unified", "0-7");
	put_cache(root, 3, 3, 3, "Unified", "0-3");
	cxs_aggr_cpu_cache(3, 0, &id);
	EXPECT_EQ(2, id.cache_lvl);
	cxs_aggr_cpu_cache(3, 3, &id);
	EXPECT_EQ(3, id.cache_lvl);
	EXPECT_EQ(-1, id.cache);
	put_cache(root, 3, 2, 3, "Unified", "2-3");
	cxs_aggr_cpu_cache(3, 0, &id);
	EXPECT_EQ(3, id.cache_lvl);
	EXPECT_EQ(2, id.cache);

	/* one file of the seven missing: no cache id, -1 and -1 */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu3/cache/index1/number_of_sets",
		 root);
	ASSERT_EQ(0, unlink(path));
	cxs_aggr_cpu_cache(3, 1, &id);
	EXPECT_EQ(-1, id.cache_lvl);
	EXPECT_EQ(-1, id.cache);

	/* no cache directory at all: the same */
	cxs_aggr_cpu_cache(1, 0, &id);
	EXPECT_EQ(-1, id.cache_lvl);
	EXPECT_EQ(-1, id.cache);
	remove_tree(root);
}

TEST_HARNESS_MAIN
