/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz: what the fuzzer's two files share. fuzz_msg.c makes the messages
 * (valid requests from the real policies, and their mutations); fuzz.c
 * runs the threads and sockets that send them and reports.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/ctxcount.h>

#define FZ_MAX_THREADS	16
#define FZ_SOCKS	3		/* sockets per thread */
#define FZ_IDS		16		/* session ids remembered per socket */
#define FZ_BUF		65536
#define FZ_ERRNO_MAX	160
/* Rows of the reply table: ctxcount commands, then these. */
#define FZ_ROW_UNKNOWN	(CTXCOUNT_CMD_MAX + 1)	/* unknown ctxcount command */
#define FZ_ROW_CTRL	(CTXCOUNT_CMD_MAX + 2)	/* genl control family */
#define FZ_ROW_OTHER	(CTXCOUNT_CMD_MAX + 3)	/* not matched to a request */
#define FZ_ROWS		(CTXCOUNT_CMD_MAX + 4)

struct fz_sock {
	int fd;
	uint32_t seq;
	uint32_t ids[FZ_IDS];
	int nids;
};

struct fz_stats {
	uint64_t sent;			/* messages (a batch counts each) */
	uint64_t datagrams;
	uint64_t send_err[FZ_ERRNO_MAX];
	uint64_t acks[FZ_ROWS][FZ_ERRNO_MAX];	/* by request and -error */
	uint64_t replies[FZ_ROWS];	/* data messages (NEW ids, READ, dumps) */
	uint64_t sessions;		/* NEW replies that carried an id */
	uint64_t closes;		/* sockets closed mid-sequence */
	uint64_t forks;			/* short-lived clients that exited */
	uint64_t recv_err[FZ_ERRNO_MAX];
};

struct fz_thread {
	pthread_t th;
	int idx;
	uint64_t rng;
	struct fz_sock s[FZ_SOCKS];
	struct fz_stats st;
	/* requests of the datagram being answered: seq -> row */
	uint32_t pend_seq[8];
	int pend_row[8];
	int npend;
	unsigned char buf[FZ_BUF];
	unsigned char rbuf[FZ_BUF];
};

/* A perf event opened for proofs (fz_open_proofs()). */
struct fz_proof {
	uint32_t type;
	uint64_t config;
	uint32_t flags;		/* enum ctxcount_event_flag */
	uint32_t tflags;	/* INHERIT or SYSTEM_WIDE, as opened */
	pid_t pid;		/* -1: system wide */
	int fd;
};

struct fz_shared;

/* The run's settings and what the threads share; fuzz.c defines it. */
struct fz_run {
	uint64_t messages;
	double seconds;
	uint64_t seed;
	int threads;
	int family;
	pid_t churn;			/* a child that keeps forking */
	int pmu_types[16];		/* dynamic PMU types from sysfs */
	int npmu;
	long ftrace_fn_id;		/* tracepoint id of ftrace:function, or -1 */
	struct fz_shared *shared;	/* with the forking child */
	double deadline;
	atomic_bool timed_out;
	atomic_int running;		/* threads not finished */
	int hp_cpu;			/* CPU toggled meanwhile, or -1 */
	long hp_toggles;
	struct fz_proof proofs[64];	/* perf events opened for proofs */
	int nproofs;
	int junk_fds[3];		/* /dev/null, an eventfd, one not open */
};

extern struct fz_run fz;

struct fz_msg {
	unsigned char *b;
	size_t len;		/* bytes used */
	size_t cap;
};

/* Per-thread randomness: below @n; true @percent times in 100. */
uint32_t fz_rn(struct fz_thread *t, uint32_t n);
bool fz_chance(struct fz_thread *t, unsigned int percent);

void fz_u32(struct fz_msg *m, uint16_t type, uint32_t v);
/* nlmsghdr + genlmsghdr; returns the offset of the nlmsghdr. */
size_t fz_hdr(struct fz_thread *t, struct fz_msg *m, struct fz_sock *s,
	      int type, uint8_t cmd, uint8_t version, int row);
/* Sets the length of the message at @off to what was put after it. */
void fz_end(struct fz_msg *m, size_t off);
/* SESSION_NEW's attributes: target, events, proofs, options. */
void fz_put_new_body(struct fz_thread *t, struct fz_msg *m);
/* A well-formed request of command cmd, appended to m. */
void fz_put_request(struct fz_thread *t, struct fz_msg *m,
		    struct fz_sock *s, uint8_t cmd);
/* Proofs for the events above, on this process, the churn and CPU 0. */
void fz_open_proofs(void);
void fz_close_proofs(void);
/*
 * A mutated request: a valid one (or a header with garbage) with 1 to 3
 * mutations. Returns the length to send, which may differ from the
 * message's own nlmsg_len.
 */
size_t fz_put_mutated(struct fz_thread *t, struct fz_msg *m,
		      struct fz_sock *s);
/* Genl control requests: family lookup, family and policy dumps. */
void fz_put_ctrl(struct fz_thread *t, struct fz_msg *m, struct fz_sock *s);

#endif /* FUZZ_H */
