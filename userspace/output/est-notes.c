// SPDX-License-Identifier: GPL-2.0
/*
 * est-notes: the module's estimate in ctxstat's words (see output/est-notes.h).
 */
#include <inttypes.h>

#include "output/est-notes.h"

const char *cxs_est_reason(uint32_t state)
{
	switch (state) {
	case CTXCOUNT_EST_NOT_MEASURED:
		return "the module measures it for instructions, branches and cycles only";
	case CTXCOUNT_EST_UNSTABLE:
		return "its calibration rounds disagreed on this CPU";
	case CTXCOUNT_EST_DRIVER_READ:
		return "the counter is read through its driver";
	default:
		/* Applied, disabled, not needed, or a module before version 5. */
		return NULL;
	}
}

void cxs_est_notes(FILE *f, const struct cxs_event_list *l,
		   const struct ctxc_reply *rp, uint32_t features)
{
	const struct ctxc_event_val *v;
	uint32_t done = 0;
	const char *why;
	int i, c;

	for (i = 0; i < l->nr; i++) {
		c = l->ev[i].counter;
		/* A counter's note once: events differing in :t share it. */
		if (c < 0 || c >= CTXCOUNT_MAX_EVENTS || (done & (1U << c)))
			continue;
		done |= 1U << c;
		v = &rp->ev[c];
		if (!v->present || v->error)
			continue;
		why = cxs_est_reason(v->est_state);
		if (why)
			fprintf(f, "ctxstat: %s: no irq entry/exit estimate in :t (%s)\n",
				l->ev[i].name, why);
		else if (v->est_state == CTXCOUNT_EST_APPLIED)
			fprintf(f, "ctxstat: %s: irq entry/exit estimate %" PRIu64 " +- %" PRIu64 "\n",
				l->ev[i].name,
				v->bucket[CTXCOUNT_BUCKET_IRQ_ENTRY_EST],
				v->est_error);
	}
	if ((features & CTXCOUNT_FEATURE_EST_KERNEL) &&
	    !(features & CTXCOUNT_FEATURE_EST_USER))
		fprintf(f, "ctxstat: interrupts of user mode are estimated with kernel mode's figures: a privileged ctxstat measures user mode once\n");
}
