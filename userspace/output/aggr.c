// SPDX-License-Identifier: GPL-2.0
/*
 * aggr: perf 6.1's cpumap.c (aggr_cpu_id__socket/die/core/node, the
 * order of aggr_cpu_id__cmp) on the ids ctxstat needs, and perf 7.2's
 * --per-cluster and --per-cache (cpumap.c's aggr_cpu_id__cluster,
 * builtin-stat.c's aggr_cpu_id__cache); sums per row with
 * stats/counts.c's cxs_counter_accumulate(), as perf sums val, ena and run.
 * A core's id stays perf 6.1's (perf 7.2 adds the cluster to it).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/aggr.h"
#include "util/util.h"

/* cpuN/topology/@what, -1 when unreadable (perf's sysfs__read_int). */
static int topology_int(int cpu, const char *what)
{
	char path[256];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s",
		 cxs_sysfs_root(), cpu, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The node whose directory links cpuN: perf's cpunode_map. */
static int cpu_node(int cpu)
{
	char path[256];
	struct dirent *d;
	int node = -1, n;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/devices/system/node", cxs_sysfs_root());
	dir = opendir(path);
	while (dir && node < 0 && (d = readdir(dir))) {
		if (sscanf(d->d_name, "node%d", &n) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/node/node%d/cpu%d",
			 cxs_sysfs_root(), n, cpu);
		if (!access(path, F_OK))
			node = n;
	}
	if (dir)
		closedir(dir);
	return node;
}

void cxs_aggr_cpu_id(int cpu, struct cxs_aggr_id *id)
{
	id->socket = topology_int(cpu, "physical_package_id");
	id->die = topology_int(cpu, "die_id");
	/* "There is no die_id on legacy system." */
	if (id->die == -1)
		id->die = 0;
	/* perf: "There is no cluster_id on legacy system." */
	id->cluster = topology_int(cpu, "cluster_id");
	if (id->cluster < 0)
		id->cluster = 0;
	id->cache_lvl = -1;
	id->cache = -1;
	id->core = topology_int(cpu, "core_id");
	id->node = cpu_node(cpu);
}

/*
 * cpuN/cache/index@index/@what's first line into @buf (at least its
 * start); false when it cannot be read, as perf's sysfs__read_*() fail.
 */
static bool cache_file(int cpu, int index, const char *what,
		       char *buf, size_t len)
{
	char path[256];
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/%s",
		 cxs_sysfs_root(), cpu, index, what);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	return ok;
}

struct cache_index {
	int level;
	int first_cpu;		/* of its shared_cpu_list: the instance's id */
};

/*
 * perf's build_caches_for_cpu(): @cpu's cache/index0, index1... up to the
 * first missing one, CXS_MAX_CACHE_LEVEL at most. perf reads seven files
 * of each (its perf.data header's cache description) and gives up on
 * the CPU's caches altogether when one of them cannot be read: -1 then,
 * else how many indexes @idx got.
 */
static int read_cache_indexes(int cpu, struct cache_index *idx)
{
	static const char *const described[] = {
		"coherency_line_size", "number_of_sets", "ways_of_associativity",
		"type", "size",
	};
	char path[256], buf[256];
	size_t i;
	int k;

	for (k = 0; k < CXS_MAX_CACHE_LEVEL; k++) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d",
			 cxs_sysfs_root(), cpu, k);
		if (access(path, F_OK))
			break;
		if (!cache_file(cpu, k, "level", buf, sizeof(buf)))
			return -1;
		idx[k].level = atoi(buf);
		for (i = 0; i < ARRAY_SIZE(described); i++)
			if (!cache_file(cpu, k, described[i], buf, sizeof(buf)))
				return -1;
		if (!cache_file(cpu, k, "shared_cpu_list", buf, sizeof(buf)))
			return -1;
		/*
		 * perf's cpu__get_cache_id_from_map(): the list's lowest CPU
		 * (sysfs lists them in order), or this one's if it has none.
		 */
		if (sscanf(buf, "%d", &idx[k].first_cpu) != 1)
			idx[k].first_cpu = cpu;
	}
	return k;
}

void cxs_aggr_cpu_cache(int cpu, int level, struct cxs_aggr_id *id)
{
	struct cache_index idx[CXS_MAX_CACHE_LEVEL];
	int n = read_cache_indexes(cpu, idx), top = 0, k;

	id->cache_lvl = -1;
	id->cache = -1;
	if (n <= 0)
		return;
	if (!level) {
		for (k = 1; k < n; k++)
			if (idx[k].level > idx[top].level)
				top = k;
		id->cache_lvl = idx[top].level;
		id->cache = idx[top].first_cpu;
		return;
	}
	id->cache_lvl = level;
	for (k = 0; k < n; k++)
		if (idx[k].level == level)
			id->cache = idx[k].first_cpu;
}

/* @id with only @mode's fields, the others -1 (perf's empty id). */
static void keep_fields(enum cxs_aggr mode, struct cxs_aggr_id *id)
{
	if (mode != CXS_AGGR_NODE)
		id->node = -1;
	if (mode == CXS_AGGR_NODE)
		id->socket = -1;
	if (mode == CXS_AGGR_NODE || mode == CXS_AGGR_SOCKET)
		id->die = -1;
	if (mode != CXS_AGGR_CLUSTER)
		id->cluster = -1;
	if (mode != CXS_AGGR_CORE)
		id->core = -1;
}

static int id_cmp(const struct cxs_aggr_id *a, const struct cxs_aggr_id *b)
{
	if (a->node != b->node)
		return a->node - b->node;
	if (a->socket != b->socket)
		return a->socket - b->socket;
	if (a->die != b->die)
		return a->die - b->die;
	if (a->cluster != b->cluster)
		return a->cluster - b->cluster;
	if (a->cache_lvl != b->cache_lvl)
		return a->cache_lvl - b->cache_lvl;
	if (a->cache != b->cache)
		return a->cache - b->cache;
	return a->core - b->core;
}

static int cmp_ids(const void *x, const void *y)
{
	return id_cmp(x, y);
}

void cxs_aggr_rows_free(struct cxs_aggr_rows *rows)
{
	int i;

	for (i = 0; rows->counters && i < rows->nr * CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&rows->counters[i]);
	free(rows->counters);
	free(rows->id);
	free(rows->nr_cpus);
	memset(rows, 0, sizeof(*rows));
}

int cxs_aggr_rows_build(struct cxs_aggr_rows *rows, enum cxs_aggr mode,
			int cache_level, int nr_cpus, const int *cpu_ids,
			const struct cxs_counter_values *cpu_counters,
			int nr_counters)
{
	struct cxs_aggr_id *cpu_id = calloc(nr_cpus ?: 1, sizeof(*cpu_id));
	int k, j, i, err = 0;

	memset(rows, 0, sizeof(*rows));
	rows->id = calloc(nr_cpus ?: 1, sizeof(*rows->id));
	rows->nr_cpus = calloc(nr_cpus ?: 1, sizeof(*rows->nr_cpus));
	rows->counters = calloc((size_t)(nr_cpus ?: 1) * CTXCOUNT_MAX_EVENTS,
				sizeof(*rows->counters));
	if (!cpu_id || !rows->id || !rows->nr_cpus || !rows->counters) {
		free(cpu_id);
		cxs_aggr_rows_free(rows);
		return -ENOMEM;
	}
	/* the distinct ids, sorted as perf's aggr map */
	for (k = 0; k < nr_cpus; k++) {
		cxs_aggr_cpu_id(cpu_ids[k], &cpu_id[k]);
		if (mode == CXS_AGGR_CACHE)
			cxs_aggr_cpu_cache(cpu_ids[k], cache_level, &cpu_id[k]);
		keep_fields(mode, &cpu_id[k]);
		for (j = 0; j < rows->nr && id_cmp(&rows->id[j], &cpu_id[k]); j++)
			;
		if (j == rows->nr)
			rows->id[rows->nr++] = cpu_id[k];
	}
	qsort(rows->id, rows->nr, sizeof(*rows->id), cmp_ids);
	for (k = 0; k < nr_cpus && !err; k++) {
		for (j = 0; id_cmp(&rows->id[j], &cpu_id[k]); j++)
			;
		rows->nr_cpus[j]++;
		for (i = 0; i < nr_counters && !err; i++)
			err = cxs_counter_accumulate(
				&rows->counters[j * CTXCOUNT_MAX_EVENTS + i],
				&cpu_counters[k * CTXCOUNT_MAX_EVENTS + i]);
	}
	free(cpu_id);
	if (err)
		cxs_aggr_rows_free(rows);
	return err;
}
