/* SPDX-License-Identifier: GPL-2.0 */
/*
 * est-notes: what ctxstat says about the module's estimate of what
 * interrupts leave in :t (CTXCOUNT_BUCKET_IRQ_ENTRY_EST): where it is not
 * applied and why, its uncertainty, and whether user mode is measured.
 */
#ifndef CTXSTAT_OUTPUT_EST_NOTES_H
#define CTXSTAT_OUTPUT_EST_NOTES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <ctxcount/ctxcount.h>

#include "events/events.h"

/* Why the estimate is not applied, in words; NULL when it is (or n/a). */
const char *cxs_est_reason(uint32_t state);

/*
 * With -v, a line per event of @l whose :t or breakdown the estimate
 * touches: not applied (and why), or its uncertainty; and one line when
 * the module (STATS @features) has not measured user mode.
 */
void cxs_est_notes(FILE *f, const struct cxs_event_list *l,
		   const struct ctxc_reply *rp, uint32_t features);

#endif /* CTXSTAT_OUTPUT_EST_NOTES_H */
