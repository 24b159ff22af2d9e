/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_nl: a small generic netlink client of the ctxcount family for the
 * selftests. Independent of ctxstat's client on purpose: it is the check
 * on the raw attributes, so it builds requests attribute by attribute
 * (malformed ones too) and records which attributes a reply carried.
 */
#ifndef CST_NL_H
#define CST_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <linux/ctxcount.h>

#include "cst_res.h"

struct nl_sock;
struct nl_msg;

struct cst_sock {
	struct nl_sock *sk;
	int family;			/* resolved genl family id */
	unsigned int version;		/* CTRL_ATTR_VERSION */
	unsigned int maxattr;		/* CTRL_ATTR_MAXATTR */
};

struct cst_ev {
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	uint32_t flags;			/* enum ctxcount_event_flag */
	const char *name;		/* for messages only */
};

#define CST_EV_SW(cfg, fl, nm) { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg, fl, nm }
#define CST_EV_HW(cfg, fl, nm) { PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg, fl, nm }
#define CST_F_USER_ONLY (CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV)

/*
 * Added to every SESSION_NEW this process sends from now on (cst_new*(),
 * hence cst_worker_start()): CTXCOUNT_A_SESSION_FLAGS when not 0, and
 * CTXCOUNT_A_MAX_SOURCES when >= 0. Default 0 and -1.
 */
extern uint32_t cst_new_session_flags;
extern long long cst_new_max_sources;

/*
 * CTXCOUNT_MAX_EVENTS counters any root can count system wide: 8
 * software events, in full and user mode only. Returns how many.
 */
int cst_sixteen_events(struct cst_ev *ev);
/* Open a socket of the family with NETLINK_EXT_ACK; -ENOENT: no family. */
int cst_open(struct cst_sock *s);
void cst_close(struct cst_sock *s);
int cst_fd(struct cst_sock *s);

/* A request message for cmd, header version CTXCOUNT_GENL_VERSION. */
struct nl_msg *cst_msg(struct cst_sock *s, uint8_t cmd);
/* Append the TARGET nest (pid < 0: no PID attribute). */
int cst_put_target(struct nl_msg *m, int pid, uint32_t flags);
/*
 * The same with a CTXCOUNT_TARGET_A_CPUS nest of @n CPUs (n < 0: none;
 * 0: an empty nest).
 */
int cst_put_target_cpus(struct nl_msg *m, int pid, uint32_t flags,
			const int *cpus, int n);
/* Append the EVENTS nest; fds[i] >= 0 is event i's PERF_FD (NULL: none). */
int cst_put_events_fds(struct nl_msg *m, const struct cst_ev *ev, int n,
		       const int *fds);
int cst_put_events(struct nl_msg *m, const struct cst_ev *ev, int n);

/*
 * The proof of @ev for a session on @pid with target flags @tflags, as the
 * module wants it (include/uapi/linux/ctxcount.h): perf_event_open() of
 * the same event, disabled, on that thread (cpu -1, inherit as INHERIT),
 * or with SYSTEM_WIDE on CPU 0 (pid -1). The fd, or -errno.
 */
int cst_proof_open(int pid, uint32_t tflags, const struct cst_ev *ev);
/*
 * Proofs of ev[0..n-1] into fds; 0, or the first failure's -errno with
 * nothing left open (and ack, if not NULL, saying which event).
 */
int cst_proofs_open(int pid, uint32_t tflags, const struct cst_ev *ev, int n,
		    int *fds, struct cst_ack *ack);
/* Close fds[0..n-1] (those >= 0) and set them to -1. */
void cst_proofs_close(int *fds, int n);
/*
 * Send msg (freed), collect the reply (if any) into res (may be NULL) and
 * the ack into ack (may be NULL). Returns the ack's error.
 */
int cst_xfer(struct cst_sock *s, struct nl_msg *msg, struct cst_res *res,
	     struct cst_ack *ack);

/*
 * SESSION_NEW with a proof per event, opened here by this process and
 * closed after the answer. An event perf_event_open() refuses is not sent:
 * its -errno is returned (ack->msg names it).
 */
int cst_new(struct cst_sock *s, int pid, uint32_t tflags,
	    const struct cst_ev *ev, int n, struct cst_res *res,
	    struct cst_ack *ack);
/* SESSION_NEW with the caller's proofs (fds[i] < 0: no PERF_FD). */
int cst_new_fds(struct cst_sock *s, int pid, uint32_t tflags,
		const struct cst_ev *ev, int n, const int *fds,
		struct cst_res *res, struct cst_ack *ack);
/* SESSION_NEW of one event with the proof @fd (< 0: none); @fd stays open. */
int cst_new_proof(struct cst_sock *s, int pid, uint32_t tflags,
		  const struct cst_ev *ev, int fd, struct cst_res *res,
		  struct cst_ack *ack);
int cst_cmd(struct cst_sock *s, uint8_t cmd, uint32_t id,
	    struct cst_res *res, struct cst_ack *ack);
/*
 * A SYSTEM_WIDE SESSION_NEW on the CPUs cpus[0..ncpu-1] (ncpu < 0: no
 * list), with proofs opened here as cst_new() opens them.
 */
int cst_new_cpus(struct cst_sock *s, const struct cst_ev *ev, int n,
		 const int *cpus, int ncpu, struct cst_res *res,
		 struct cst_ack *ack);
/*
 * A SESSION_NEW of CTXCOUNT_TARGET_F_ALL_THREADS (added to @tflags) as
 * ctxstat -a --per-thread sends it: proofs on this thread (pid 0, cpu
 * -1, inherit as INHERIT), no PID attribute unless @pid >= 0 and no
 * CPU list unless @ncpu >= 0 (those two for the refusals). The session
 * flags are cst_new_session_flags (CTXCOUNT_SESSION_F_PER_THREAD).
 */
int cst_new_all_threads(struct cst_sock *s, int pid, uint32_t tflags,
			const int *cpus, int ncpu, const struct cst_ev *ev,
			int n, struct cst_res *res, struct cst_ack *ack);
/* READ with CTXCOUNT_A_READ_FLAGS @flags (absent when 0). */
int cst_read(struct cst_sock *s, uint32_t id, uint32_t flags,
	     struct cst_res *res, struct cst_ack *ack);
/*
 * The same READ as a dump (NLM_F_DUMP): its messages merged into @res as
 * one reply (a CPU's parts into one nest); ack->err is the error of the
 * NLMSG_ERROR or NLMSG_DONE that ends it.
 */
int cst_read_dump(struct cst_sock *s, uint32_t id, uint32_t flags,
		  struct cst_res *res, struct cst_ack *ack);
/*
 * The user-mode calibration ctxstat runs before START (calibrate.c there):
 * a fixed loop on this CPU, quiet and under the module's timer. 0 when the
 * module has its figures (measured now or known), else the last error.
 */
int cst_calibrate(struct cst_sock *s, uint32_t id);
/*
 * One step of it (enum ctxcount_calibrate): 0 or the ack's -errno. @id 0
 * sends no session id (the module ignores it since version 5).
 */
int cst_calibrate_step(struct cst_sock *s, uint32_t id, uint32_t step);
/* STATS' enum ctxcount_feature bits; 0 when it cannot be asked. */
uint32_t cst_features(void);
/* Live sessions (all sockets) or a negative errno. */
long cst_live_sessions(void);
/*
 * Wait up to @ms for the live session count to reach @want (sockets are
 * released asynchronously after close); returns the last count seen.
 */
long cst_wait_live_sessions(long want, int ms);
/*
 * Whether an event counts here: 0, perf_event_open()'s -errno for its
 * proof, or the module's per-event error.
 */
int cst_event_error(const struct cst_ev *ev);

#endif /* CST_NL_H */
