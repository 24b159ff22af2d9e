/* SPDX-License-Identifier: GPL-2.0 */
/*
 * group: what perf stat does with a group of events ("{a,b}"), which it
 * opens as one: the first event (the leader) alone, each other in the
 * leader's group, so that the PMU's driver refuses a member the group
 * has no room for (x86's and arm's validate_group(): EINVAL). ctxstat
 * counts every counter pinned on its own; it opens each group as perf
 * does only to do what perf 6.1's stat_handle_error() does then:
 *
 * - a leader perf cannot open, "not supported" or not, ends counting
 *   with perf's message ("The cycles event is not supported.");
 * - a member perf does not support here (EINVAL included) is
 *   <not supported>, whatever counts the same event elsewhere;
 * - in a weak group (:W) perf opens the events apart after EINVAL or
 *   EBADF, so that every one counts: so does ctxstat.
 */
#ifndef CTXSTAT_EVENTS_GROUP_H
#define CTXSTAT_EVENTS_GROUP_H

#include "events/events.h"
#include "events/proof.h"

/*
 * Open each group of @l of two events or more on @t with @open, after
 * the proofs (@fds, one per counter: -1 for a counter perf does not
 * support), then close what it opened. A member perf would not have
 * opened gets a counter of its own with its errno in open_err; with
 * @verbose perf -v's warning says so. 0, or -errno after printing why.
 */
int cxs_groups_check(struct cxs_event_list *l, const struct cxs_proof_target *t,
		     const int *fds, bool verbose, cxs_perf_open_fn open);

/*
 * The proofs of @l (cxs_proofs_open()), then its groups opened as perf
 * opens them (cxs_groups_check()): a member perf would not have opened
 * gets a counter of its own, without a proof. 0, or -errno after
 * printing why (nothing left open).
 */
int cxs_groups_proofs_open(struct cxs_event_list *l,
			   const struct cxs_proof_target *t, bool verbose,
			   int *fds);

#endif
