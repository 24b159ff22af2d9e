/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlclient: the ctxcount generic netlink client. Message building and
 * parsing are separate functions over plain structs, so the host tests can
 * check them without the module; ctx_nl_* transactions glue them to a
 * libnl socket.
 */
#ifndef CTXSTAT_LIB_NLCLIENT_H
#define CTXSTAT_LIB_NLCLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/ctxcount.h>
#include <linux/netlink.h>
#include <netlink/msg.h>

#define CTX_NL_EXTACK_MAX 256

struct ctx_nl_target {
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
#define CTX_NL_SOURCE_IDS (CTXCOUNT_SOURCE_ID_MAX + 1)

struct ctx_nl_event_req {
	uint32_t type;
	uint64_t config;
	uint32_t flags;
	bool has_perf_fd;	/* send perf_fd as the event's proof */
	int perf_fd;		/* perf_event_open() fd of the same event */
};

/* One event of a SESSION_NEW or SESSION_READ reply. */
struct ctx_nl_event_val {
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
	uint64_t src[CTX_NL_SOURCE_IDS];
};

/* One CTXCOUNT_SOURCES_A_SOURCE of a READ reply. */
struct ctx_nl_source {
	bool present;		/* the reply described this id */
	uint32_t kind;		/* enum ctxcount_source_kind */
	uint32_t irq;		/* irq number or vector */
	bool has_hwirq;
	uint64_t hwirq;
	char name[CTXCOUNT_SOURCE_NAME_LEN];
	uint64_t count;		/* handler runs */
};

/* One CPU's share of a SESSION_READ reply (CTXCOUNT_READ_F_PER_CPU). */
struct ctx_nl_cpu_val {
	int cpu;
	struct ctx_nl_event_val ev[CTXCOUNT_MAX_EVENTS];
	/* CTXCOUNT_CPU_A_SOURCE_COUNTS: handler runs by source id */
	uint64_t src_count[CTX_NL_SOURCE_IDS];
};

/* Room for per-CPU values, owned by the caller of the READ. */
struct ctx_nl_cpus {
	int nr;			/* CPUs the reply had */
	int cap;		/* room in v */
	struct ctx_nl_cpu_val *v;
};

/* One thread's row of a SESSION_READ reply (CTXCOUNT_READ_F_PER_THREAD). */
struct ctx_nl_thread_val {
	uint32_t tid;
	uint32_t pid;
	char comm[CTXCOUNT_THREAD_COMM_LEN];	/* at SESSION_NEW */
	struct ctx_nl_event_val ev[CTXCOUNT_MAX_EVENTS];
};

/*
 * Per-thread rows, grown as READs bring them (a system has more threads
 * than CPUs, and nobody knows how many beforehand); @v is the owner's to
 * free.
 */
struct ctx_nl_threads {
	int nr;
	int cap;
	struct ctx_nl_thread_val *v;
};

struct ctx_nl_reply {
	uint32_t session_id;
	uint64_t tasks_seen;
	uint64_t tasks_lost;
	uint32_t tasks_now;	/* tasks in the monitored set (READ) */
	uint32_t cpus_lost;	/* CPUs that came online without counters */
	uint32_t stats_sessions;
	uint32_t stats_features;
	int nr_events;		/* highest index seen + 1 */
	struct ctx_nl_event_val ev[CTXCOUNT_MAX_EVENTS];
	/* CTXCOUNT_A_SOURCES (a session with sources): by source id */
	bool has_sources;
	struct ctx_nl_source src[CTX_NL_SOURCE_IDS];
};

struct ctx_nl {
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
	char extack[CTX_NL_EXTACK_MAX];
};

/* Message builders: NULL on allocation failure. */
struct nl_msg *ctx_nl_build_session_new(int family,
					const struct ctx_nl_target *target,
					const struct ctx_nl_event_req *ev,
					int nr_events);
struct nl_msg *ctx_nl_build_session_cmd(int family, uint8_t cmd,
					uint32_t session_id);
/* A SESSION_READ with CTXCOUNT_A_READ_FLAGS @flags (sent when not 0). */
struct nl_msg *ctx_nl_build_session_read(int family, uint32_t session_id,
					 uint32_t flags);
/* The same as a dump (NLM_F_DUMP, version 5): answered part by part. */
struct nl_msg *ctx_nl_build_session_read_dump(int family, uint32_t session_id,
					      uint32_t flags);
struct nl_msg *ctx_nl_build_stats(int family);
/* A CALIBRATE step (module-wide since protocol version 5: no session). */
struct nl_msg *ctx_nl_build_calibrate(int family, uint32_t step);

/* Parse a reply (SESSION_NEW, SESSION_READ or STATS); 0 or -EINVAL. */
int ctx_nl_parse_reply(struct nlmsghdr *nlh, struct ctx_nl_reply *r);
/*
 * The same, and a READ's CTXCOUNT_A_CPU nests into @cpus: 0, -EINVAL, or
 * -E2BIG (more CPUs than @cpus has room for).
 */
int ctx_nl_parse_reply_cpus(struct nlmsghdr *nlh, struct ctx_nl_reply *r,
			    struct ctx_nl_cpus *cpus);

/*
 * One message of a READ dump added to @r and @cpus (NULL: no per-CPU
 * rows), which hold the earlier ones' (zeroed before the first): a CPU
 * nest with the CPU of the last row filled continues that row. 0,
 * -EINVAL, or -E2BIG (more CPUs than @cpus has room for).
 */
int ctx_nl_parse_read_part(struct nlmsghdr *nlh, struct ctx_nl_reply *r,
			   struct ctx_nl_cpus *cpus);

/*
 * The CTXCOUNT_A_THREAD nests of one READ message (a reply, or a dump's
 * part) appended to @t, which grows to hold them: a nest with the tid of
 * the last row continues that row. 0, -EINVAL, or -ENOMEM.
 */
int ctx_nl_parse_thread_part(struct nlmsghdr *nlh, struct ctx_nl_threads *t);

/*
 * Copy the NLMSGERR_ATTR_MSG of an NLMSG_ERROR or NLMSG_DONE message into
 * @buf; returns its length, 0 when there is none.
 */
int ctx_nl_extack_msg(const struct nlmsghdr *nlh, char *buf, size_t len);

/* Connect and resolve the family; -ENOENT when the module is not loaded. */
int ctx_nl_open(struct ctx_nl *nl);
void ctx_nl_close(struct ctx_nl *nl);

/*
 * Transactions: 0 or the negative errno from the kernel (see nl->extack);
 * -EIO when the answer could not be read (then nl->broken: no later
 * request waits for an answer that may never come).
 */
/* Send @msg (consumed) and collect its reply into @reply (may be NULL). */
int ctx_nl_transact(struct ctx_nl *nl, struct nl_msg *msg,
		    struct ctx_nl_reply *reply);
int ctx_nl_session_new(struct ctx_nl *nl, const struct ctx_nl_target *target,
		       const struct ctx_nl_event_req *ev, int nr_events,
		       struct ctx_nl_reply *reply);
int ctx_nl_session_cmd(struct ctx_nl *nl, uint8_t cmd, uint32_t session_id);
/* One step (enum ctxcount_calibrate) of a user-mode calibration. */
int ctx_nl_calibrate(struct ctx_nl *nl, uint32_t step);
int ctx_nl_session_read(struct ctx_nl *nl, uint32_t session_id,
			struct ctx_nl_reply *reply);
int ctx_nl_stats(struct ctx_nl *nl, struct ctx_nl_reply *reply);
/*
 * READ with a row per CPU into @cpus (room for every possible CPU), as a
 * dump: the module must be of version 5 at least (run/module.c says so).
 * ctx_nl_session_read() is a dump too from version 5 on.
 */
int ctx_nl_session_read_cpus(struct ctx_nl *nl, uint32_t session_id,
			     struct ctx_nl_reply *reply,
			     struct ctx_nl_cpus *cpus);
/*
 * READ with a row per thread (a session with CTXCOUNT_SESSION_F_PER_THREAD,
 * version 6) as a dump, the rows appended to @threads: several sessions'
 * rows follow each other.
 */
int ctx_nl_session_read_threads(struct ctx_nl *nl, uint32_t session_id,
				struct ctx_nl_reply *reply,
				struct ctx_nl_threads *threads);
/*
 * The family's version (CTXCOUNT_GENL_VERSION of the loaded module), or
 * -errno.
 */
int ctx_nl_family_version(struct ctx_nl *nl);

#endif
