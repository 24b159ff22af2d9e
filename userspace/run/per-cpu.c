// SPDX-License-Identifier: GPL-2.0
/*
 * per-cpu: -C's CPU list and -A's per-CPU rows and values (see run/per-cpu.h).
 * One run only (options/args.c refuses -A with -r): the values are kept once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/per-cpu.h"

/* Room for a row per possible CPU, the most a READ has. */
static int cpu_rows_cap(void)
{
	struct cxs_cpulist *l = malloc(sizeof(*l));
	int cap = CXS_MAX_CPUS;

	if (l && !cxs_cpulist_read(l, "/sys/devices/system/cpu/possible"))
		cap = l->nr;
	free(l);
	return cap;
}

/*
 * perf 7.x counts on the CPUs of -C its PMUs have, after a warning, and
 * fails when none is left: so does ctxstat in its dialect, with the online
 * CPUs. @l keeps its online CPUs; 0, or -1 when none is.
 */
static int drop_offline(struct cxs_cpulist *l, const struct cxs_cpulist *online,
			const char *asked, const char *online_text)
{
	int i, n = 0;

	for (i = 0; i < l->nr; i++)
		if (cxs_cpulist_has(online, l->cpu[i]))
			l->cpu[n++] = l->cpu[i];
	if (n == l->nr)
		return 0;
	fprintf(stderr, "WARNING: A requested CPU in '%s' is not online (CPUs %s)\n",
		asked, online_text);
	l->nr = n;
	if (n)
		return 0;
	fprintf(stderr, "Error:\nNo supported events found.\n");
	return -1;
}

/*
 * Every CPU of @l online (the module checks it too, after the proofs):
 * 0, or -1 after saying which is not; perf 7.x's dialect: drop_offline().
 */
static int check_online(struct cxs_cpulist *l, const struct cxs_args *a)
{
	struct cxs_cpulist *online = malloc(sizeof(*online));
	char online_text[4096];
	int i, ret = 0;

	/* Without the file, the module's check is the only one. */
	if (!online || cxs_cpulist_read_text(online, "/sys/devices/system/cpu/online",
					     online_text, sizeof(online_text))) {
		free(online);
		return 0;
	}
	if (a->dialect == CXS_PERF_7_2) {
		ret = drop_offline(l, online, a->cpu_list, online_text);
		free(online);
		return ret;
	}
	for (i = 0; i < l->nr && !ret; i++) {
		if (cxs_cpulist_has(online, l->cpu[i]))
			continue;
		fprintf(stderr, "ctxstat: -C: CPU %d is not online\n", l->cpu[i]);
		ret = -1;
	}
	free(online);
	return ret;
}

int cxs_percpu_setup(struct cxs_percpu *pc, const struct cxs_args *a)
{
	char err[128];

	memset(pc, 0, sizeof(*pc));
	if (a->cpu_list) {
		pc->cpu_list = malloc(sizeof(*pc->cpu_list));
		if (!pc->cpu_list ||
		    cxs_cpulist_parse(pc->cpu_list, a->cpu_list, err, sizeof(err))) {
			fprintf(stderr, "ctxstat: -C: %s\n",
				pc->cpu_list ? err : "out of memory");
			return -1;
		}
		if (check_online(pc->cpu_list, a))
			return -1;
	}
	if (a->no_aggr) {
		pc->cpus.cap = cpu_rows_cap();
		pc->cpus.v = calloc(pc->cpus.cap, sizeof(*pc->cpus.v));
		if (!pc->cpus.v) {
			fprintf(stderr, "ctxstat: out of memory\n");
			return -1;
		}
	}
	return 0;
}

int cxs_percpu_rows_unsupported(struct cxs_percpu *pc)
{
	struct cxs_cpulist *online = NULL;
	const struct cxs_cpulist *l = pc->cpu_list;
	int k, err = 0;

	if (!l) {
		online = malloc(sizeof(*online));
		err = online ? cxs_cpulist_read(online, "/sys/devices/system/cpu/online") :
			       -ENOMEM;
		l = online;
	}
	if (!err && l->nr > pc->cpus.cap)
		err = -E2BIG;
	if (err) {
		fprintf(stderr, "ctxstat: the online CPUs: %s\n", strerror(-err));
		free(online);
		return err;
	}
	pc->cpus.nr = l->nr;
	for (k = 0; k < l->nr; k++) {
		memset(&pc->cpus.v[k], 0, sizeof(pc->cpus.v[k]));
		pc->cpus.v[k].cpu = l->cpu[k];
	}
	free(online);
	return 0;
}

int cxs_row_keep(struct cxs_counter_values *c, const struct ctxc_event_val *v,
		 int error, const struct cxs_sources *src)
{
	uint64_t rows[CXS_SOURCE_ROWS];
	struct cxs_counter_reading rd;

	c->error = error;
	if (error || !v->present || v->error)
		return 0;
	cxs_sources_reading(src, v, rows, &rd);
	return cxs_counter_add(c, &rd);
}

int cxs_percpu_keep(struct cxs_percpu *pc, int nr_counters,
		    const struct cxs_counter_values *counters,
		    const struct cxs_sources *src)
{
	int k, i;

	if (!pc->cpus.nr)
		return 0;
	pc->cpu_ids = calloc(pc->cpus.nr, sizeof(*pc->cpu_ids));
	pc->cpu_counters = calloc((size_t)pc->cpus.nr * CTXCOUNT_MAX_EVENTS,
				  sizeof(*pc->cpu_counters));
	if (!pc->cpu_ids || !pc->cpu_counters)
		return -ENOMEM;
	pc->nr_cpus = pc->cpus.nr;
	for (k = 0; k < pc->nr_cpus; k++) {
		pc->cpu_ids[k] = pc->cpus.v[k].cpu;
		for (i = 0; i < nr_counters; i++)
			if (cxs_row_keep(&pc->cpu_counters[k * CTXCOUNT_MAX_EVENTS + i],
				     &pc->cpus.v[k].ev[i], counters[i].error,
				     src))
				return -ENOMEM;
	}
	return 0;
}

void cxs_percpu_free(struct cxs_percpu *pc)
{
	int i;

	for (i = 0; pc->cpu_counters && i < pc->nr_cpus * CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&pc->cpu_counters[i]);
	free(pc->cpu_counters);
	free(pc->cpu_ids);
	free(pc->cpus.v);
	free(pc->cpu_list);
	memset(pc, 0, sizeof(*pc));
}
