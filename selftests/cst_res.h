/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_res: a reply of the ctxcount family as the selftests see it: every
 * attribute it carried, with flags for which came, how often and out of
 * range, so that a test checks the raw attributes, not a client's view
 * of them. cst_nl.c fills these in; tests read them.
 */
#ifndef CST_RES_H
#define CST_RES_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/ctxcount.h>

struct nlmsghdr;

/* The outcome of one request: the ack's error and extended ack. */
struct cst_ack {
	int err;			/* 0 or a negative errno */
	bool from_kernel;		/* an ack came (not a local failure) */
	bool has_msg;
	char msg[512];			/* NLMSGERR_ATTR_MSG */
	bool has_off;
	unsigned int off;		/* NLMSGERR_ATTR_OFFS */
	bool has_miss;
	unsigned int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE */
};

struct cst_ev_res {
	bool has_index, has_error, has_full, has_enabled, has_running;
	bool has_buckets;
	uint32_t index;
	int32_t error;
	uint64_t full, enabled, running;
	int nbuckets;			/* bucket attributes seen */
	int dup_buckets;		/* bucket types seen twice */
	int bad_buckets;		/* bucket types out of range */
	bool has_b[CTXCOUNT_BUCKET_MAX + 1];
	uint64_t b[CTXCOUNT_BUCKET_MAX + 1];
	bool has_direct_cpus;
	uint32_t direct_cpus;		/* CPUs reading its register */
	bool has_est_state, has_est_error;
	uint32_t est_state;		/* enum ctxcount_est_state */
	uint64_t est_error;
	/* CTXCOUNT_EVENT_A_SOURCES, by source id */
	bool has_sources;
	int nsrc, bad_src;		/* values seen; out of range or twice */
	bool has_src[CTXCOUNT_SOURCE_ID_MAX + 1];
	uint64_t src[CTXCOUNT_SOURCE_ID_MAX + 1];
};

/* One CTXCOUNT_SOURCES_A_SOURCE of a READ reply. */
struct cst_source {
	uint32_t id, kind, irq;
	bool has_irq, has_hwirq, has_name, has_count;
	uint64_t hwirq, count;
	char name[CTXCOUNT_SOURCE_NAME_LEN];
};

/*
 * Room for a READ's per-CPU nests (CTXCOUNT_A_CPU) in a struct cst_res
 * (about 14 KiB each: allocate a struct cst_res, do not put it on a
 * stack).
 */
#define CST_MAX_CPUS 64

/* One CTXCOUNT_A_CPU nest of a READ reply. */
struct cst_cpu_res {
	bool has_cpu, has_excursions, has_events;
	uint32_t cpu;
	uint64_t exc[CTXCOUNT_EXCURSION_MAX + 1];
	int nev;
	struct cst_ev_res ev[CTXCOUNT_MAX_EVENTS];
	bool has_src_counts;		/* CTXCOUNT_CPU_A_SOURCE_COUNTS */
	uint64_t src_count[CTXCOUNT_SOURCE_ID_MAX + 1];
};

/* One thread row (CTXCOUNT_A_THREAD) of a READ, a dump's parts merged. */
struct cst_thread_res {
	bool has_tid, has_pid, has_comm, has_excursions, has_events;
	uint32_t tid, pid;
	char comm[CTXCOUNT_THREAD_COMM_LEN];
	bool comm_bad;			/* over 16 bytes or without its nul */
	/* PID, COMM or EXCURSIONS in a part after the first */
	int late_attrs;
	uint64_t exc[CTXCOUNT_EXCURSION_MAX + 1];
	int nev;
	struct cst_ev_res ev[CTXCOUNT_MAX_EVENTS];
};

/*
 * Room for a READ's thread rows, which only per-thread tests want (13 KiB
 * a row): cst_threads_alloc() it and set cst_res.thr; cst_nl.c keeps the
 * pointer (and empties the rows) when it reuses the cst_res. Without it,
 * THREAD nests are only counted (thread_nests).
 */
struct cst_threads {
	int cap;
	int n;				/* rows, a thread's parts merged */
	int overflow;			/* rows beyond cap */
	int parts;			/* nests that continued the row before */
	struct cst_thread_res row[];
};

/* A parsed ctxcount reply (NEW, READ or STATS). */
struct cst_res {
	bool has_id, has_seen, has_lost, has_now, has_sessions, has_features;
	uint32_t id;
	uint64_t tasks_seen, tasks_lost;
	uint32_t tasks_now;		/* CTXCOUNT_A_TASKS_NOW */
	uint32_t sessions, features;
	bool has_excursions;
	uint64_t exc[CTXCOUNT_EXCURSION_MAX + 1];	/* by enum ctxcount_excursion */
	int nev;
	struct cst_ev_res ev[CTXCOUNT_MAX_EVENTS + 8];
	bool replied;			/* a reply message came back */
	/* bit t: a top-level attribute of type t (< 64) came, once or more */
	uint64_t attr_seen;
	bool has_sources;		/* CTXCOUNT_A_SOURCES */
	int nsources, bad_sources;	/* parsed; without an id in range */
	struct cst_source sources[CTXCOUNT_MAX_SOURCES + 2];
	int ncpu;			/* CTXCOUNT_A_CPU nests, in order */
	int cpu_overflow;		/* those beyond CST_MAX_CPUS */
	struct cst_cpu_res cpu[CST_MAX_CPUS];
	/*
	 * The messages of the family in the answer, and the longest
	 * (nlmsg_len); with cst_read_dump() the CPU nests taken in (a
	 * CPU's parts count once in ncpu) and the parts that continued
	 * the CPU before them.
	 */
	int nmsg;
	unsigned int max_msg_len;
	int cpu_nests, cpu_parts;
	int thread_nests;		/* CTXCOUNT_A_THREAD nests */
	struct cst_threads *thr;	/* the caller's, or NULL */
};

/* Rows for @cap threads (free() it), or NULL. */
struct cst_threads *cst_threads_alloc(int cap);
/* The row of thread @tid in @r, or NULL. */
const struct cst_thread_res *cst_thread_row(const struct cst_res *r,
					    uint32_t tid);
/* The source named @name in @r (its first), or NULL. */
const struct cst_source *cst_source_named(const struct cst_res *r,
					  const char *name);
const struct cst_source *cst_source_id(const struct cst_res *r, uint32_t id);
/*
 * 0 when two READs carried the same values (a reply and a dump of a
 * stopped session; thread rows too where both have them), else 1 and
 * @what says where they first differ.
 */
int cst_res_diff(const struct cst_res *a, const struct cst_res *b,
		 char *what, size_t len);
/* Sum of an event's EVENT_A_SOURCES values. */
uint64_t cst_sources_sum(const struct cst_ev_res *e);

uint64_t cst_bucket_sum(const struct cst_ev_res *e);
uint64_t cst_softirq_sum(const struct cst_ev_res *e);
const char *cst_bucket_name(int b);
/* Text of a reply's per-event buckets, for logs. */
void cst_fmt_event(const struct cst_ev_res *e, char *buf, size_t len);

/* Into @ack: an NLMSG_ERROR, or the NLMSG_DONE that ends a dump. */
void cst_parse_ack(struct nlmsghdr *nlh, struct cst_ack *ack);
void cst_parse_done(struct nlmsghdr *nlh, struct cst_ack *ack);
/*
 * Into @res: one message of the family (NEW, READ, STATS, or a part of
 * a dump (@dump), whose CPU or thread nest may continue the one before).
 */
void cst_parse_reply(struct nlmsghdr *nlh, struct cst_res *res, bool dump);

#endif /* CST_RES_H */
