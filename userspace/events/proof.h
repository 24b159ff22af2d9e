/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proof: the perf events that SESSION_NEW needs, one per kernel counter,
 * opened with perf_event_open(2) on the session's target, so that the
 * kernel's own perf rules decide what ctxstat may count
 * (include/uapi/linux/ctxcount.h). They are opened disabled and closed
 * once the session exists.
 *
 * As perf stat does: an event the kernel does not support here is
 * <not supported>, not an error; an event refused with EACCES that counts
 * the kernel is retried without the kernel and hypervisor when
 * kernel.perf_event_paranoid is above 1, and renamed as perf renames it
 * ("task-clock" becomes "task-clock:u"); any other refusal stops counting
 * with perf's explanation.
 */
#ifndef CTXSTAT_EVENTS_PROOF_H
#define CTXSTAT_EVENTS_PROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "events/events.h"

/* perf_event_open(2): an fd, or -1 with errno set. Replaceable for tests. */
typedef int (*cxs_perf_open_fn)(struct perf_event_attr *attr, pid_t pid,
				int cpu, int group_fd, unsigned long flags);

/* Where the proofs are opened. */
struct cxs_proof_target {
	pid_t pid;		/* the target thread; -1: system-wide */
	int cpu;		/* -1, or with pid -1 an online CPU */
	bool inherit;		/* CTXCOUNT_TARGET_F_INHERIT */
};

enum cxs_proof_outcome {
	CXS_PROOF_OPEN,		/* the fd proves the event */
	CXS_PROOF_NOT_SUPPORTED,/* perf: "not supported" (<not supported>) */
	CXS_PROOF_REFUSED,	/* EACCES/EPERM, after the fallback if any */
	CXS_PROOF_FAILED,	/* anything else */
};

struct cxs_proof {
	int fd;			/* >= 0 when open */
	int err;		/* errno of the last attempt; 0 when open */
	bool fell_back;		/* opened only without kernel and hypervisor */
	char msg[160];		/* perf's fallback message, for -v */
};

/* The attributes of counter @c's proof on @t: disabled, never counting. */
void cxs_proof_attr(struct perf_event_attr *attr, const struct cxs_counter *c,
		    const struct cxs_proof_target *t);

/*
 * Open the proof of counter @c on @t. After perf's EACCES fallback
 * (@paranoid is kernel.perf_event_paranoid) @c excludes kernel and
 * hypervisor. @open is perf_event_open(2), or a test's replacement.
 */
enum cxs_proof_outcome cxs_proof_open(struct cxs_proof *p,
				      struct cxs_counter *c,
				      const struct cxs_proof_target *t,
				      int paranoid, cxs_perf_open_fn open);

/* The real perf_event_open(2) (events/perf-open.c). */
int cxs_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);

/*
 * kernel.perf_event_paranoid as perf reads it; INT_MAX when unreadable
 * (events/perf-open.c).
 */
int cxs_perf_event_paranoid(void);

/*
 * perf's name for an event after the fallback: ":u" added, or "u" when
 * the name already has a ':' or '/' ("cycles:t" -> "cycles:tu").
 * 0, or -1 when it does not fit in @len (then unchanged).
 */
int cxs_proof_fallback_name(char *name, size_t len);

/*
 * After counter @counter fell back: its displayed events get perf's new
 * names and its flags.
 */
void cxs_proof_rename(struct cxs_event_list *l, int counter);

/* Why an event was refused, as perf says it, with what would allow it. */
void cxs_proof_print_refusal(FILE *f, const char *event, int err,
			     int paranoid, const struct cxs_proof_target *t);

/* Is @err what perf stat calls "not supported" for an event. */
bool cxs_proof_not_supported(int err);

/* An online CPU (the first), for a system-wide proof. */
int cxs_proof_any_cpu(void);

/*
 * The proofs of every counter of @l into @fds (one per counter; -1 for a
 * counter perf does not support here). Falls back and renames as perf;
 * with @verbose says so as perf -v does; a counter perf refused before
 * (open_err: in its group, or -d's check) gets none. 0, or -errno after
 * printing why (nothing left open). cxs_groups_proofs_open()
 * (events/group.h) adds the groups.
 */
int cxs_proofs_open(struct cxs_event_list *l, const struct cxs_proof_target *t,
		    bool verbose, int *fds);
void cxs_proofs_close(int *fds, int n);

#endif
