// SPDX-License-Identifier: GPL-2.0
/* stat-data: the in-memory stat record's rounds and its freeing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfdata/stat-data.h"

int cxs_stat_add_round(struct cxs_stat_data *d, uint64_t type, uint64_t time)
{
	struct cxs_stat_round *r;
	struct cxs_stat_value *v;

	v = calloc(cxs_stat_nr_values(d) ?: 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	r = realloc(d->rounds, (d->nr_rounds + 1) * sizeof(*r));
	if (!r) {
		free(v);
		return -ENOMEM;
	}
	d->rounds = r;
	r[d->nr_rounds++] = (struct cxs_stat_round){ .type = type, .time = time, .v = v };
	return 0;
}

void cxs_stat_set_name(struct cxs_stat_data *d, int e, const char *s)
{
	snprintf(d->ev[e].name, sizeof(d->ev[e].name), "%s", s);
}

void cxs_stat_data_free(struct cxs_stat_data *d)
{
	int i;

	for (i = 0; i < d->nr_events; i++)
		free(d->ev[i].ids);
	for (i = 0; i < d->nr_cmdline; i++)
		free(d->cmdline[i]);
	for (i = 0; i < d->nr_rounds; i++)
		free(d->rounds[i].v);
	free(d->ev);
	free(d->cpus);
	free(d->pids);
	free(d->comms);
	free(d->cmdline);
	free(d->rounds);
	*d = (struct cxs_stat_data){ 0 };
}
