/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libctxcount: a client of the ctxcount module's generic netlink family
 * (include/uapi/linux/ctxcount.h, the protocol it speaks): connect,
 * make a session, start, read, stop and delete it, ask the module's
 * STATS, run a user-mode calibration step. Each request is one call that
 * returns 0 or the kernel's negative errno, with the kernel's extended
 * ack message in the handle; replies come back as the plain structs
 * below, indexed as the protocol indexes them.
 *
 * This header is the library's whole interface, and needs nothing but
 * the UAPI header: libnl, which carries the messages, stays inside
 * (link with pkg-config's libctxcount flags).
 */
#ifndef CTXCOUNT_CTXCOUNT_H
#define CTXCOUNT_CTXCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/ctxcount.h>

struct nl_sock;

#define CTXC_EXTACK_MAX 256

struct ctxc_target {
	uint32_t pid;		/* 0 with CTXCOUNT_TARGET_F_SYSTEM_WIDE, _ALL_THREADS */
	uint32_t flags;		/* CTXCOUNT_TARGET_F_* */
	/* With SYSTEM_WIDE: the CPUs to count on (nr_cpus 0: all) */
	const int *cpus;
	int nr_cpus;
	/* CTXCOUNT_SESSION_F_*, sent beside the target when not 0 */
	uint32_t session_flags;
	/* CTXCOUNT_A_MAX_SOURCES, sent when not 0 (with F_IRQ_SOURCES) */
	uint32_t max_sources;
};

/* Source ids index arrays: CTXCOUNT_SOURCE_ID_OUTSIDE .. _ID_MAX. */
#define CTXC_SOURCE_IDS (CTXCOUNT_SOURCE_ID_MAX + 1)

struct ctxc_event_req {
	uint32_t type;
	uint64_t config;
	uint32_t flags;
	bool has_perf_fd;	/* send perf_fd as the event's proof */
	int perf_fd;		/* perf_event_open() fd of the same event */
};

/* One event of a SESSION_NEW or SESSION_READ reply. */
struct ctxc_event_val {
	bool present;		/* the reply carried this index */
	int error;		/* 0 or -errno */
	uint64_t full;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t bucket[CTXCOUNT_BUCKET_MAX + 1];
	/* enum ctxcount_est_state (0 from a module before version 5) */
	uint32_t est_state;
	/* the estimate's uncertainty (counts) */
	uint64_t est_error;
	/* CTXCOUNT_EVENT_A_SOURCES: the hardirq bucket by source id */
	uint64_t src[CTXC_SOURCE_IDS];
};

/* One CTXCOUNT_SOURCES_A_SOURCE of a READ reply. */
struct ctxc_source {
	bool present;		/* the reply described this id */
	uint32_t kind;		/* enum ctxcount_source_kind */
	uint32_t irq;		/* irq number or vector */
	bool has_hwirq;
	uint64_t hwirq;
	char name[CTXCOUNT_SOURCE_NAME_LEN];
	uint64_t count;		/* handler runs */
};

/* One CPU's share of a SESSION_READ reply (CTXCOUNT_READ_F_PER_CPU). */
struct ctxc_cpu_val {
	int cpu;
	struct ctxc_event_val ev[CTXCOUNT_MAX_EVENTS];
	/* CTXCOUNT_CPU_A_SOURCE_COUNTS: handler runs by source id */
	uint64_t src_count[CTXC_SOURCE_IDS];
};

/* Room for per-CPU values, owned by the caller of the READ. */
struct ctxc_cpus {
	int nr;			/* CPUs the reply had */
	int cap;		/* room in v */
	struct ctxc_cpu_val *v;
};

/**
 * struct ctxc_thread_val - one thread's row of a per-thread READ
 * @tid: the root thread the row counts (with its children, as perf's
 *	inherited task events count them)
 * @pid: its process
 * @comm: its comm at SESSION_NEW
 * @ev: its events, by the session's index; those the reply did not
 *	carry are not @present
 */
struct ctxc_thread_val {
	uint32_t tid;
	uint32_t pid;
	char comm[CTXCOUNT_THREAD_COMM_LEN];
	struct ctxc_event_val ev[CTXCOUNT_MAX_EVENTS];
};

/**
 * typedef ctxc_thread_fn - what ctxc_session_read_threads() calls per row
 * @row: the row, whole; it lives until the function returns (copy what
 *	you keep)
 * @arg: ctxc_session_read_threads()'s @arg
 *
 * Return: 0, or a negative errno that ends the READ's rows (no more calls)
 * and that the READ returns.
 */
typedef int (*ctxc_thread_fn)(const struct ctxc_thread_val *row, void *arg);

struct ctxc_reply {
	uint32_t session_id;
	uint64_t tasks_seen;
	uint64_t tasks_lost;
	uint32_t tasks_now;	/* tasks in the monitored set (READ) */
	uint32_t cpus_lost;	/* CPUs that came online without counters */
	uint32_t stats_sessions;
	uint32_t stats_features;
	int nr_events;		/* highest index seen + 1 */
	struct ctxc_event_val ev[CTXCOUNT_MAX_EVENTS];
	/* CTXCOUNT_A_SOURCES (a session with sources): by source id */
	bool has_sources;
	struct ctxc_source src[CTXC_SOURCE_IDS];
};

/*
 * One connection to the module, filled by ctxc_open(). The caller reads
 * extack after a failed request (and version if it likes); the rest is
 * the library's.
 */
struct ctxc_sock {
	struct nl_sock *sk;
	int family;
	/* The module's CTXCOUNT_GENL_VERSION (-errno: unknown) */
	int version;
	/*
	 * A request's answer was not read whole (a receive failed: the
	 * kernel drops what does not fit in the socket's buffer, acks
	 * included). What comes next on the socket is not known to answer
	 * the next request, and an answer may never come: every request
	 * fails at once from then on, without sending anything.
	 */
	bool broken;
	/* The kernel's extended ack message of the last failed request. */
	char extack[CTXC_EXTACK_MAX];
};

/*
 * Connect and resolve the family; -ENOENT when the module is not loaded
 * (never loads it: a dump of the families, not a lookup by name).
 */
int ctxc_open(struct ctxc_sock *nl);
void ctxc_close(struct ctxc_sock *nl);

/*
 * Transactions: 0 or the negative errno from the kernel (see nl->extack);
 * -EIO when the answer could not be read (then nl->broken: no later
 * request waits for an answer that may never come).
 */
int ctxc_session_new(struct ctxc_sock *nl, const struct ctxc_target *target,
		     const struct ctxc_event_req *ev, int nr_events,
		     struct ctxc_reply *reply);
int ctxc_session_cmd(struct ctxc_sock *nl, uint8_t cmd, uint32_t session_id);
/* One step (enum ctxcount_calibrate) of a user-mode calibration. */
int ctxc_calibrate(struct ctxc_sock *nl, uint32_t step);
int ctxc_session_read(struct ctxc_sock *nl, uint32_t session_id,
		      struct ctxc_reply *reply);
int ctxc_stats(struct ctxc_sock *nl, struct ctxc_reply *reply);
/*
 * READ with a row per CPU into @cpus (room for every possible CPU), as a
 * dump: the module must be of version 5 at least (the caller checks
 * ctxc_family_version()).
 * ctxc_session_read() is a dump too from version 5 on.
 */
int ctxc_session_read_cpus(struct ctxc_sock *nl, uint32_t session_id,
			   struct ctxc_reply *reply,
			   struct ctxc_cpus *cpus);
/**
 * ctxc_session_read_threads() - READ with a row per thread
 * @nl: the connection
 * @session_id: a session with CTXCOUNT_SESSION_F_PER_THREAD (version 6)
 * @reply: the session's totals, as ctxc_session_read()'s
 * @fn: called with each thread's row, in the module's order, as the
 *	dump's messages bring it
 * @arg: passed to @fn
 *
 * A READ of every thread of a machine is large: the rows are handed
 * over one by one, and the library keeps none of them (nor memory for
 * them) after @fn returns.
 *
 * Return: 0, @fn's error, or as ctxc_session_read(). On an error @fn may
 * have had some of the rows already: they are not the READ's whole answer.
 */
int ctxc_session_read_threads(struct ctxc_sock *nl, uint32_t session_id,
			      struct ctxc_reply *reply,
			      ctxc_thread_fn fn, void *arg);
/*
 * The family's version (CTXCOUNT_GENL_VERSION of the loaded module), or
 * -errno.
 */
int ctxc_family_version(struct ctxc_sock *nl);

#endif
