/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu: perf's PMU-qualified events, "pmu/term=value,.../" and
 * "pmu/alias/" (cpu/event=0x3c,umask=0/, armv8_pmuv3/cpu_cycles/,
 * msr/tsc/), resolved as perf resolves them, from sysfs: the PMU's type,
 * its format fields (which bits of which config a term fills) and its
 * event aliases. $CTX_SYSFS_ROOT replaces /sys (tests).
 */
#ifndef CTXSTAT_EVENTS_PMU_H
#define CTXSTAT_EVENTS_PMU_H

#include <stddef.h>

#include "events/events.h"

/*
 * @pmu's event of @terms (between the slashes) into @ev's type and
 * config; a name= term renames @ev. 0, or -1 with the reason in @err.
 */
int cxs_pmu_event_parse(const char *pmu, const char *terms,
			struct cxs_event *ev, char *err, size_t errlen);

#endif
