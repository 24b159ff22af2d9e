// SPDX-License-Identifier: GPL-2.0
/*
 * A netlink fuzzer for the ctxcount family, run inside a guest as root.
 *
 * Several threads, each with several raw generic netlink sockets, send a
 * mix of requests built from the real policies (include/uapi/linux/
 * ctxcount.h, module/netlink.c): valid SESSION_NEW on this process, a
 * forking child or the whole system (some with a CPU list, some of them
 * bad), then START/READ (some per CPU)/STOP/DEL on the ids
 * they got back, in random order, on the right and on the wrong socket;
 * and the same messages mutated (bytes flipped, truncated messages and
 * attributes, wrong lengths and types, oversized attributes, garbage and
 * deep nesting inside TARGET and EVENTS, unknown commands, versions and
 * flags, several messages in one datagram; proofs that match, proofs of
 * another event, target, inherit or exclude bits, descriptors that are no
 * perf events or not open, none at all; sessions with irq sources, so
 * that their hooks attach and detach), genl control requests (family
 * lookup by name and id, family and policy dumps), and sockets closed in
 * the middle of a sequence with sessions live.
 *
 * Bounded by CTX_FUZZ_MESSAGES (default 20000) and CTX_FUZZ_SECONDS
 * (0: no limit; default 150, or 0 when CTX_FUZZ_MESSAGES is set);
 * CTX_FUZZ_SEED makes a run's per-thread sequences repeatable (the
 * threads still interleave as the scheduler likes);
 * CTX_FUZZ_THREADS (default 4). Meanwhile the last CPU goes offline and
 * online about twice a second (CTX_FUZZ_HOTPLUG=0: not). Prints the seed,
 * the messages sent, the rate, and every reply by command and errno.
 * Asserts: no kernel report, the live session count back to where it was
 * once every socket is closed, and the module still counting afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "cst.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

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

/*
 * The forking child forks once per FZ_MSGS_PER_FORK messages, so that a
 * run's mix of forks and messages is the same on a fast and a slow (debug)
 * kernel. A fork and exit with inherited counters costs the CPU time of
 * 12 to 23 messages.
 */
#define FZ_MSGS_PER_FORK	8

/* In memory shared with the forking child. */
struct fz_shared {
	atomic_ullong budget;		/* messages handed out so far */
	atomic_ullong forks;		/* by the forking child */
};

static struct {
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
	struct fz_proof {
		uint32_t type;
		uint64_t config;
		uint32_t flags;		/* enum ctxcount_event_flag */
		uint32_t tflags;	/* INHERIT or SYSTEM_WIDE, as opened */
		pid_t pid;		/* -1: system wide */
		int fd;
	} proofs[64];			/* perf events opened for proofs */
	int nproofs;
	int junk_fds[3];		/* /dev/null, an eventfd, one not open */
} fz;

/* ---- randomness (xorshift64*, one state per thread) --------------------- */

static uint64_t rnd(struct fz_thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t rn(struct fz_thread *t, uint32_t n)
{
	return n ? rnd(t) % n : 0;
}

static bool chance(struct fz_thread *t, unsigned int percent)
{
	return rn(t, 100) < percent;
}

/* ---- message building --------------------------------------------------- */

struct fz_msg {
	unsigned char *b;
	size_t len;		/* bytes used */
	size_t cap;
};

static void *fz_put(struct fz_msg *m, size_t n)
{
	void *p;

	if (m->len + NLMSG_ALIGN(n) > m->cap)
		return NULL;
	p = m->b + m->len;
	memset(p, 0, NLMSG_ALIGN(n));
	m->len += NLMSG_ALIGN(n);
	return p;
}

static size_t fz_attr(struct fz_msg *m, uint16_t type, const void *data,
		      size_t dlen)
{
	size_t off = m->len;
	struct nlattr *a = fz_put(m, NLA_HDRLEN + dlen);

	if (!a)
		return (size_t)-1;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + dlen;
	if (dlen)
		memcpy((char *)a + NLA_HDRLEN, data, dlen);
	return off;
}

static void fz_u32(struct fz_msg *m, uint16_t type, uint32_t v)
{
	fz_attr(m, type, &v, sizeof(v));
}

static void fz_u64(struct fz_msg *m, uint16_t type, uint64_t v)
{
	fz_attr(m, type, &v, sizeof(v));
}

static size_t fz_nest(struct fz_msg *m, uint16_t type)
{
	return fz_attr(m, type | NLA_F_NESTED, NULL, 0);
}

static void fz_nest_end(struct fz_msg *m, size_t off)
{
	struct nlattr *a;

	if (off == (size_t)-1)
		return;
	a = (struct nlattr *)(m->b + off);
	a->nla_len = m->len - off;
}

/* nlmsghdr + genlmsghdr; returns the offset of the nlmsghdr. */
static size_t fz_hdr(struct fz_thread *t, struct fz_msg *m, struct fz_sock *s,
		     int type, uint8_t cmd, uint8_t version, int row)
{
	size_t off = m->len;
	struct nlmsghdr *nlh = fz_put(m, NLMSG_HDRLEN);
	struct genlmsghdr *g = fz_put(m, GENL_HDRLEN);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++s->seq;
	g->cmd = cmd;
	g->version = version;
	if (t->npend < 8) {
		t->pend_seq[t->npend] = s->seq;
		t->pend_row[t->npend++] = row;
	}
	return off;
}

static void fz_end(struct fz_msg *m, size_t off)
{
	((struct nlmsghdr *)(m->b + off))->nlmsg_len = m->len - off;
}

/* ---- what the requests are made of -------------------------------------- */

static const struct { uint32_t type; uint64_t config; } fz_events[] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ PERF_TYPE_HW_CACHE, 0x10000 },	/* L1D read miss */
	{ PERF_TYPE_RAW, 0x11 },
};

static uint32_t fz_pid(struct fz_thread *t)
{
	switch (rn(t, 8)) {
	case 0: case 1: case 2:
		return getpid();
	case 3: case 4:
		return fz.churn;
	case 5:
		return 1;
	case 6:
		return 0x3fffff;	/* PID_MAX_LIMIT: valid, never used */
	default:
		return (uint32_t)rnd(t);
	}
}

static uint32_t fz_target_flags(struct fz_thread *t)
{
	static const uint32_t f[] = {
		0, 0, CTXCOUNT_TARGET_F_INHERIT, CTXCOUNT_TARGET_F_INHERIT,
		CTXCOUNT_TARGET_F_SYSTEM_WIDE,
		CTXCOUNT_TARGET_F_SYSTEM_WIDE | CTXCOUNT_TARGET_F_INHERIT,
	};

	if (chance(t, 3))
		return (uint32_t)rnd(t);
	return f[rn(t, sizeof(f) / sizeof(f[0]))];
}

/* Was @p opened for the target (@tflags, @pid)? */
static bool fz_proof_fits(const struct fz_proof *p, uint32_t tflags,
			  uint32_t pid)
{
	if (tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE)
		return p->pid < 0;
	return p->pid == (pid_t)pid &&
	       p->tflags == (tflags & CTXCOUNT_TARGET_F_INHERIT);
}

/* A proof opened for the target, or NULL. */
static const struct fz_proof *fz_fitting_proof(struct fz_thread *t,
					       uint32_t tflags, uint32_t pid)
{
	int i, start = rn(t, fz.nproofs);

	for (i = 0; i < fz.nproofs; i++) {
		const struct fz_proof *p = &fz.proofs[(start + i) % fz.nproofs];

		if (fz_proof_fits(p, tflags, pid))
			return p;
	}
	return NULL;
}

/*
 * The PERF_FD of an event made up at random: any proof (mostly of another
 * event, target, inherit or exclude bits), a descriptor that is no perf
 * event or not open, an out-of-range value; sometimes none.
 */
static void fz_put_proof(struct fz_thread *t, struct fz_msg *m)
{
	int fd;

	if (chance(t, 5))
		return;
	if (fz.nproofs && chance(t, 80))
		fd = fz.proofs[rn(t, fz.nproofs)].fd;
	else
		fd = chance(t, 90) ? fz.junk_fds[rn(t, 3)] : (int)rnd(t);
	fz_u32(m, CTXCOUNT_EVENT_A_PERF_FD, (uint32_t)fd);
}

/* An event its proof was opened for, so that sessions get created. */
static bool fz_put_proven_event(struct fz_thread *t, struct fz_msg *m,
				uint32_t tflags, uint32_t pid)
{
	const struct fz_proof *p = fz_fitting_proof(t, tflags, pid);

	if (!p)
		return false;
	fz_u32(m, CTXCOUNT_EVENT_A_TYPE, p->type);
	fz_u64(m, CTXCOUNT_EVENT_A_CONFIG, p->config);
	if (p->flags || chance(t, 50))
		fz_u32(m, CTXCOUNT_EVENT_A_FLAGS, p->flags);
	fz_u32(m, CTXCOUNT_EVENT_A_PERF_FD, p->fd);
	return true;
}

static void fz_put_event(struct fz_thread *t, struct fz_msg *m,
			 uint32_t tflags, uint32_t pid)
{
	size_t e = fz_nest(m, CTXCOUNT_EVENTS_A_EVENT);
	uint32_t type;
	uint64_t config;
	int k;

	if (chance(t, 70) && fz_put_proven_event(t, m, tflags, pid)) {
		fz_nest_end(m, e);
		return;
	}
	if (chance(t, 85)) {
		k = rn(t, sizeof(fz_events) / sizeof(fz_events[0]));
		type = fz_events[k].type;
		config = fz_events[k].config;
	} else if (fz.npmu && chance(t, 50)) {
		type = fz.pmu_types[rn(t, fz.npmu)];
		config = rn(t, 64);
	} else {
		type = rn(t, 8);
		config = chance(t, 50) ? rn(t, 16) : rnd(t);
		/*
		 * Tracepoint ids are small: random ones hit real tracepoints.
		 * Never the function tracer's: a counter on ftrace:function
		 * traces every kernel function, which under TCG stalls the
		 * guest for minutes (RCU stall reports), module or not.
		 */
		if (type == PERF_TYPE_TRACEPOINT) {
			config = rn(t, 2048);
			if (fz.ftrace_fn_id < 0 || (long)config == fz.ftrace_fn_id)
				type = PERF_TYPE_SOFTWARE;
		}
	}
	fz_u32(m, CTXCOUNT_EVENT_A_TYPE, type);
	fz_u64(m, CTXCOUNT_EVENT_A_CONFIG, config);
	if (chance(t, 70))
		fz_u32(m, CTXCOUNT_EVENT_A_FLAGS,
		       chance(t, 95) ? rn(t, 8) : (uint32_t)rnd(t));
	fz_put_proof(t, m);
	fz_nest_end(m, e);
}

/*
 * A CPU list: mostly CPUs that exist (one may be offline: the hotplug
 * thread), sometimes empty, a CPU twice, or one that does not exist.
 */
static void fz_put_cpus(struct fz_thread *t, struct fz_msg *m)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t n = fz_nest(m, CTXCOUNT_TARGET_A_CPUS);
	int i, nr = chance(t, 5) ? 0 : 1 + rn(t, ncpu);

	for (i = 0; i < nr; i++)
		fz_u32(m, CTXCOUNT_CPUS_A_CPU,
		       chance(t, 90) ? (uint32_t)i : chance(t, 50) ? rn(t, ncpu) :
		       (uint32_t)rnd(t));
	fz_nest_end(m, n);
}

static void fz_put_new_body(struct fz_thread *t, struct fz_msg *m)
{
	uint32_t tflags = fz_target_flags(t);
	uint32_t pid = fz_pid(t);
	size_t n;
	int i, nev;

	n = fz_nest(m, CTXCOUNT_A_TARGET);
	if (!(tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) || chance(t, 5))
		fz_u32(m, CTXCOUNT_TARGET_A_PID, pid);
	if (tflags || chance(t, 50))
		fz_u32(m, CTXCOUNT_TARGET_A_FLAGS, tflags);
	if (chance(t, (tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) ? 40 : 3))
		fz_put_cpus(t, m);
	fz_nest_end(m, n);

	nev = 1 + rn(t, 4);
	if (chance(t, 3))
		nev = CTXCOUNT_MAX_EVENTS + rn(t, 3) - 1;
	n = fz_nest(m, CTXCOUNT_A_EVENTS);
	for (i = 0; i < nev; i++)
		fz_put_event(t, m, tflags, pid);
	fz_nest_end(m, n);
	/* Sources: their hooks come and go with the first and last such session. */
	if (chance(t, 30)) {
		fz_u32(m, CTXCOUNT_A_SESSION_FLAGS, chance(t, 90) ?
		       CTXCOUNT_SESSION_F_IRQ_SOURCES : (uint32_t)rnd(t));
		if (chance(t, 50))
			fz_u32(m, CTXCOUNT_A_MAX_SOURCES, chance(t, 80) ?
			       1 + rn(t, CTXCOUNT_MAX_SOURCES) : (uint32_t)rnd(t));
	}
}

static uint32_t fz_session_id(struct fz_thread *t, struct fz_sock *s)
{
	struct fz_sock *o;

	if (s->nids && chance(t, 80))
		return s->ids[rn(t, s->nids)];
	/* another socket's session: must not exist for this one */
	o = &t->s[rn(t, FZ_SOCKS)];
	if (o->nids && chance(t, 50))
		return o->ids[rn(t, o->nids)];
	switch (rn(t, 4)) {
	case 0:
		return 0;
	case 1:
		return 1 + rn(t, 256);
	case 2:
		return 0x7fffffff;
	default:
		return (uint32_t)rnd(t);
	}
}

static void fz_forget_id(struct fz_sock *s, uint32_t id)
{
	int i;

	for (i = 0; i < s->nids; i++) {
		if (s->ids[i] == id) {
			s->ids[i] = s->ids[--s->nids];
			return;
		}
	}
}

/* A well-formed request of command cmd, appended to m. */
static void fz_put_request(struct fz_thread *t, struct fz_msg *m,
			   struct fz_sock *s, uint8_t cmd)
{
	int row = cmd <= CTXCOUNT_CMD_MAX ? cmd : FZ_ROW_UNKNOWN;
	size_t h = fz_hdr(t, m, s, fz.family, cmd, CTXCOUNT_GENL_VERSION, row);

	switch (cmd) {
	case CTXCOUNT_CMD_SESSION_NEW:
		fz_put_new_body(t, m);
		break;
	case CTXCOUNT_CMD_SESSION_READ:
		fz_u32(m, CTXCOUNT_A_SESSION_ID, fz_session_id(t, s));
		if (chance(t, 40))
			fz_u32(m, CTXCOUNT_A_READ_FLAGS,
			       chance(t, 90) ? CTXCOUNT_READ_F_PER_CPU : (uint32_t)rnd(t));
		break;
	case CTXCOUNT_CMD_SESSION_START:
	case CTXCOUNT_CMD_SESSION_STOP:
		fz_u32(m, CTXCOUNT_A_SESSION_ID, fz_session_id(t, s));
		break;
	case CTXCOUNT_CMD_SESSION_DEL:
		fz_u32(m, CTXCOUNT_A_SESSION_ID, fz_session_id(t, s));
		fz_forget_id(s, *(uint32_t *)(m->b + m->len - 4));
		break;
	default:
		break;
	}
	fz_end(m, h);
}

/* Proofs for the events above, on this process, the churn and CPU 0. */
static void fz_open_proofs(void)
{
	static const uint32_t flags[] = { 0, CST_F_USER_ONLY };
	static const uint32_t tf[] = {
		0, CTXCOUNT_TARGET_F_INHERIT, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
	};
	const size_t nev = sizeof(fz_events) / sizeof(fz_events[0]);
	struct fz_proof *p;
	struct cst_ev ev;
	size_t k, f, i;
	int who;

	for (k = 0; k < nev; k++)
		for (f = 0; f < 2; f++)
			for (i = 0; i < 3; i++)
				for (who = 0; who < 2; who++) {
					if (fz.nproofs == 64 || (who && i == 2))
						continue;
					p = &fz.proofs[fz.nproofs];
					*p = (struct fz_proof){
						fz_events[k].type,
						fz_events[k].config, flags[f],
						tf[i],
						i == 2 ? -1 : who ? fz.churn : getpid(),
					};
					ev = (struct cst_ev){ p->type, p->config,
							      p->flags, "" };
					p->fd = cst_proof_open(p->pid, p->tflags,
							       &ev);
					if (p->fd >= 0)
						fz.nproofs++;
				}
	fz.junk_fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fz.junk_fds[1] = eventfd(0, EFD_CLOEXEC);
	fz.junk_fds[2] = 1000;
}

static void fz_close_proofs(void)
{
	int i;

	for (i = 0; i < fz.nproofs; i++)
		close(fz.proofs[i].fd);
	close(fz.junk_fds[0]);
	close(fz.junk_fds[1]);
	fz.nproofs = 0;
}

/* ---- mutations ----------------------------------------------------------- */

/* Offsets of the attributes in [start, end), walking nests too. */
static int fz_attrs(unsigned char *b, size_t start, size_t end,
		    size_t *offs, int n, int max, int depth)
{
	size_t off = start;

	while (off + NLA_HDRLEN <= end && n < max) {
		struct nlattr *a = (struct nlattr *)(b + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > end)
			break;
		offs[n++] = off;
		if ((a->nla_type & NLA_F_NESTED) && depth < 4)
			n = fz_attrs(b, off + NLA_HDRLEN, off + a->nla_len,
				     offs, n, max, depth + 1);
		off += NLA_ALIGN(a->nla_len);
	}
	return n;
}

/* Random bytes as TLVs, nested up to depth levels. */
static void fz_garbage(struct fz_thread *t, struct fz_msg *m, int depth)
{
	int i, n = rn(t, 6);

	for (i = 0; i < n; i++) {
		if (depth > 0 && chance(t, 30)) {
			size_t nest = fz_nest(m, rn(t, 20));

			fz_garbage(t, m, depth - 1);
			fz_nest_end(m, nest);
		} else {
			unsigned char junk[24];
			size_t len = rn(t, sizeof(junk) + 1);
			size_t j;

			for (j = 0; j < len; j++)
				junk[j] = rnd(t);
			fz_attr(m, rn(t, 24) | (chance(t, 10) ? NLA_F_NET_BYTEORDER : 0),
				junk, len);
		}
	}
}

static void fz_deep(struct fz_thread *t, struct fz_msg *m, int levels)
{
	size_t nest;

	if (!levels) {
		fz_u32(m, rn(t, 4), rnd(t));
		return;
	}
	nest = fz_nest(m, chance(t, 50) ? CTXCOUNT_EVENTS_A_EVENT : rn(t, 12));
	fz_deep(t, m, levels - 1);
	fz_nest_end(m, nest);
}

/*
 * A mutated request: a valid one (or a header with garbage) with 1 to 3
 * mutations. Returns the length to send, which may differ from the
 * message's own nlmsg_len.
 */
static size_t fz_put_mutated(struct fz_thread *t, struct fz_msg *m,
			     struct fz_sock *s)
{
	size_t start = m->len, h, offs[64];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int i, k, n, muts = 1 + rn(t, 3);
	size_t send_len;

	switch (rn(t, 4)) {
	case 0: {
		/* garbage or deep nesting where TARGET/EVENTS belong */
		uint8_t cmd = 1 + rn(t, CTXCOUNT_CMD_MAX);
		size_t nest;

		h = fz_hdr(t, m, s, fz.family, cmd, CTXCOUNT_GENL_VERSION, cmd);
		if (chance(t, 50))
			fz_u32(m, CTXCOUNT_A_SESSION_ID, fz_session_id(t, s));
		nest = fz_nest(m, chance(t, 50) ? CTXCOUNT_A_TARGET : CTXCOUNT_A_EVENTS);
		if (chance(t, 30))
			fz_deep(t, m, 1 + rn(t, 40));
		else
			fz_garbage(t, m, 3);
		fz_nest_end(m, nest);
		if (chance(t, 50))
			fz_garbage(t, m, 2);
		fz_end(m, h);
		break;
	}
	case 1: {
		/* an oversized attribute of a known type */
		uint8_t cmd = 1 + rn(t, CTXCOUNT_CMD_MAX);
		static const uint16_t types[] = {
			CTXCOUNT_A_SESSION_ID, CTXCOUNT_A_TARGET,
			CTXCOUNT_A_EVENTS, CTXCOUNT_A_PAD,
			CTXCOUNT_A_TASKS_SEEN, CTXCOUNT_A_STATS_SESSIONS,
			CTXCOUNT_A_MAX + 1,
		};
		size_t len = chance(t, 50) ? rn(t, 64) : rn(t, 16000);
		unsigned char *big = malloc(len + 1);

		h = fz_hdr(t, m, s, fz.family, cmd, CTXCOUNT_GENL_VERSION, cmd);
		if (big) {
			for (i = 0; i < (int)len; i++)
				big[i] = chance(t, 50) ? 0 : rnd(t);
			fz_attr(m, types[rn(t, sizeof(types) / sizeof(types[0]))] |
				(chance(t, 50) ? NLA_F_NESTED : 0), big, len);
			free(big);
		}
		fz_end(m, h);
		break;
	}
	default:
		fz_put_request(t, m, s, 1 + rn(t, CTXCOUNT_CMD_MAX));
		h = start;
		break;
	}
	nlh = (struct nlmsghdr *)(m->b + h);
	g = (struct genlmsghdr *)NLMSG_DATA(nlh);
	send_len = m->len - start;

	for (k = 0; k < muts; k++) {
		n = fz_attrs(m->b, h + NLMSG_HDRLEN + GENL_HDRLEN, m->len,
			     offs, 0, 64, 0);
		switch (rn(t, 10)) {
		case 0:	/* flip bytes anywhere after the netlink header */
			for (i = 0; send_len > NLMSG_HDRLEN && i < 1 + (int)rn(t, 4); i++) {
				size_t o = NLMSG_HDRLEN + rn(t, send_len - NLMSG_HDRLEN);

				m->b[h + o] ^= 1 << rn(t, 8);
			}
			break;
		case 1:	/* an attribute's length */
			if (n) {
				struct nlattr *a = (struct nlattr *)(m->b + offs[rn(t, n)]);
				static const uint16_t lens[] = { 0, 1, 3, 4, 5, 7, 8, 12, 0xffff };

				a->nla_len = chance(t, 70) ?
					lens[rn(t, sizeof(lens) / sizeof(lens[0]))] :
					a->nla_len + rn(t, 64) - 32;
			}
			break;
		case 2:	/* an attribute's type and flag bits */
			if (n) {
				struct nlattr *a = (struct nlattr *)(m->b + offs[rn(t, n)]);

				if (chance(t, 50))
					a->nla_type ^= NLA_F_NESTED;
				else
					a->nla_type = rn(t, 16) |
						(a->nla_type & NLA_F_NESTED);
				if (chance(t, 10))
					a->nla_type |= NLA_F_NET_BYTEORDER;
			}
			break;
		case 3:	/* truncate the message */
			send_len = rn(t, send_len + 1);
			if (chance(t, 50))
				nlh->nlmsg_len = send_len;
			break;
		case 4:	/* nlmsg_len disagrees with what is sent */
			nlh->nlmsg_len = chance(t, 50) ? rn(t, 0x10000) :
				nlh->nlmsg_len + rn(t, 32) - 16;
			break;
		case 5:	/* unknown or neighbouring commands */
			g->cmd = chance(t, 50) ? CTXCOUNT_CMD_MAX + 1 + rn(t, 4) : rnd(t);
			break;
		case 6:	/* version and reserved header field */
			if (chance(t, 50))
				g->version = rnd(t);
			else
				g->reserved = 1 + rn(t, 0xffff);
			break;
		case 7: {	/* netlink flags: dump, echo, no ack, no request */
			static const uint16_t fl[] = {
				NLM_F_REQUEST, NLM_F_REQUEST | NLM_F_DUMP | NLM_F_ACK,
				NLM_F_REQUEST | NLM_F_ECHO | NLM_F_ACK,
				NLM_F_ACK, NLM_F_REQUEST | NLM_F_MULTI | NLM_F_ACK,
				NLM_F_REQUEST | NLM_F_ACK | NLM_F_REPLACE | NLM_F_CREATE,
			};

			nlh->nlmsg_flags = chance(t, 80) ?
				fl[rn(t, sizeof(fl) / sizeof(fl[0]))] : rnd(t);
			break;
		}
		case 8:	/* netlink control types and the genl control family */
			nlh->nlmsg_type = chance(t, 50) ? rn(t, NLMSG_MIN_TYPE + 1) :
				GENL_ID_CTRL;
			break;
		default:	/* trailing garbage */
			if (send_len == m->len - start && chance(t, 50)) {
				fz_garbage(t, m, 1);
				if (chance(t, 50))
					nlh->nlmsg_len = m->len - h;
				send_len = m->len - start;
			} else {
				fz_u32(m, rn(t, CTXCOUNT_A_MAX + 3), rnd(t));
				send_len = m->len - start;
				nlh->nlmsg_len = m->len - h;
			}
			break;
		}
	}
	return send_len;
}

/* Genl control requests: family lookup, family and policy dumps. */
static void fz_put_ctrl(struct fz_thread *t, struct fz_msg *m, struct fz_sock *s)
{
	size_t h;
	char name[40];
	int i;

	switch (rn(t, 6)) {
	case 0: case 1:
		h = fz_hdr(t, m, s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, FZ_ROW_CTRL);
		fz_attr(m, CTRL_ATTR_FAMILY_NAME, CTXCOUNT_GENL_NAME,
			sizeof(CTXCOUNT_GENL_NAME));
		break;
	case 2:
		h = fz_hdr(t, m, s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, FZ_ROW_CTRL);
		if (chance(t, 50)) {
			uint16_t id = chance(t, 80) ? fz.family : rnd(t);

			fz_attr(m, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
		} else {
			/* a name without its terminator, too long, or mangled */
			size_t len = 1 + rn(t, sizeof(name));

			for (i = 0; i < (int)len; i++)
				name[i] = i < 8 ? CTXCOUNT_GENL_NAME[i] ^ (chance(t, 20) ? 1 : 0) : 'x';
			fz_attr(m, CTRL_ATTR_FAMILY_NAME, name, len);
		}
		break;
	case 3:
		h = fz_hdr(t, m, s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, FZ_ROW_CTRL);
		((struct nlmsghdr *)(m->b + h))->nlmsg_flags |= NLM_F_DUMP;
		break;
	default: {
		/* the policy dump walks the module's policies */
		uint16_t id = fz.family;

		h = fz_hdr(t, m, s, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, 1, FZ_ROW_CTRL);
		((struct nlmsghdr *)(m->b + h))->nlmsg_flags |= NLM_F_DUMP;
		if (chance(t, 80))
			fz_attr(m, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
		else
			fz_attr(m, CTRL_ATTR_FAMILY_NAME, CTXCOUNT_GENL_NAME,
				sizeof(CTXCOUNT_GENL_NAME));
		if (chance(t, 50))
			fz_u32(m, CTRL_ATTR_OP, rn(t, CTXCOUNT_CMD_MAX + 3));
		break;
	}
	}
	fz_end(m, h);
}

/* ---- sockets, sending, replies ----------------------------------------- */

static int fz_sock_open(struct fz_sock *s)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	int one = 1, rcv = 4 << 20;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv));
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a))) {
		close(s->fd);
		s->fd = -1;
		return -errno;
	}
	return 0;
}

static void fz_sock_close(struct fz_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->nids = 0;
}

static int fz_row_of(struct fz_thread *t, uint32_t seq)
{
	int i;

	for (i = 0; i < t->npend; i++)
		if (t->pend_seq[i] == seq)
			return t->pend_row[i];
	return FZ_ROW_OTHER;
}

static void fz_remember_id(struct fz_thread *t, struct fz_sock *s,
			   struct nlmsghdr *nlh)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *a = (struct nlattr *)((char *)g + GENL_HDRLEN);
	int rem = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	if (g->cmd != CTXCOUNT_CMD_SESSION_NEW)
		return;
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTXCOUNT_A_SESSION_ID &&
		    a->nla_len == NLA_HDRLEN + 4) {
			uint32_t id;

			memcpy(&id, (char *)a + NLA_HDRLEN, 4);
			if (s->nids < FZ_IDS)
				s->ids[s->nids++] = id;
			else
				s->ids[rn(t, FZ_IDS)] = id;
			t->st.sessions++;
			return;
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* Everything the kernel answered is queued when sendmsg returns: drain it. */
static void fz_drain(struct fz_thread *t, struct fz_sock *s)
{
	for (;;) {
		ssize_t len = recv(s->fd, t->rbuf, sizeof(t->rbuf), MSG_DONTWAIT);
		struct nlmsghdr *nlh;
		int rest;

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno < FZ_ERRNO_MAX)
				t->st.recv_err[errno]++;
			if (errno == ENOBUFS)
				continue;
			return;
		}
		rest = len;
		for (nlh = (struct nlmsghdr *)t->rbuf; NLMSG_OK(nlh, rest);
		     nlh = NLMSG_NEXT(nlh, rest)) {
			int row = fz_row_of(t, nlh->nlmsg_seq);

			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);
				int err = -e->error;

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					continue;
				if (err < 0 || err >= FZ_ERRNO_MAX)
					err = FZ_ERRNO_MAX - 1;
				t->st.acks[row][err]++;
			} else if (nlh->nlmsg_type == fz.family) {
				t->st.replies[row]++;
				fz_remember_id(t, s, nlh);
			} else if (nlh->nlmsg_type != NLMSG_DONE) {
				t->st.replies[row]++;
			}
		}
	}
}

static void fz_send(struct fz_thread *t, struct fz_sock *s, const void *b,
		    size_t len, int nmsg)
{
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };

	t->st.sent += nmsg;
	t->st.datagrams++;
	if (sendto(s->fd, b, len, 0, (struct sockaddr *)&k, sizeof(k)) < 0 &&
	    errno < FZ_ERRNO_MAX)
		t->st.send_err[errno]++;
	fz_drain(t, s);
	t->npend = 0;
}

/*
 * A short-lived client in its own process: creates and starts a session,
 * then exits without closing anything (process exit releases the socket).
 */
static void fz_fork_client(struct fz_thread *t)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct fz_sock s;
		struct fz_msg m = { t->buf, 0, sizeof(t->buf) };
		size_t h;

		if (fz_sock_open(&s))
			_exit(1);
		h = fz_hdr(t, &m, &s, fz.family, CTXCOUNT_CMD_SESSION_NEW,
			   CTXCOUNT_GENL_VERSION, 1);
		fz_put_new_body(t, &m);
		fz_end(&m, h);
		send(s.fd, m.b, m.len, 0);
		fz_drain(t, &s);
		if (s.nids) {
			m.len = 0;
			h = fz_hdr(t, &m, &s, fz.family,
				   CTXCOUNT_CMD_SESSION_START,
				   CTXCOUNT_GENL_VERSION, 2);
			fz_u32(&m, CTXCOUNT_A_SESSION_ID, s.ids[0]);
			fz_end(&m, h);
			send(s.fd, m.b, m.len, 0);
		}
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, NULL, 0) == pid)
		t->st.forks++;
}

/* Take n messages from the budget; false when the run is over. */
static bool fz_take(int n)
{
	if (cst_now() > fz.deadline) {
		atomic_store(&fz.timed_out, true);
		return false;
	}
	return atomic_fetch_add(&fz.shared->budget, n) < fz.messages;
}

static void *fz_thread_fn(void *arg)
{
	struct fz_thread *t = arg;
	int i;

	for (i = 0; i < FZ_SOCKS; i++)
		t->s[i].fd = -1;
	for (i = 0; i < FZ_SOCKS; i++)
		if (fz_sock_open(&t->s[i]))
			goto out;
	for (;;) {
		struct fz_sock *s = &t->s[rn(t, FZ_SOCKS)];
		struct fz_msg m = { t->buf, 0, sizeof(t->buf) };
		uint32_t r = rn(t, 1000);
		int nmsg = 1;
		size_t len;

		if (r < 4) {
			/* closed mid-sequence, sessions and all */
			fz_sock_close(s);
			t->st.closes++;
			if (fz_sock_open(s))
				break;
			continue;
		}
		if (r < 5) {
			if (!fz_take(2))
				break;
			fz_fork_client(t);
			t->st.sent += 2;
			continue;
		}
		/*
		 * Valid NEW, STOP and DEL wait for counters and RCU grace
		 * periods (tens of ms under TCG): few enough of them to keep
		 * the rate up, enough to keep sessions coming and going.
		 */
		if (r < 70) {
			fz_put_request(t, &m, s, CTXCOUNT_CMD_SESSION_NEW);
		} else if (r < 230) {
			fz_put_request(t, &m, s, CTXCOUNT_CMD_SESSION_START +
				       rn(t, CTXCOUNT_CMD_SESSION_DEL -
					  CTXCOUNT_CMD_SESSION_START + 1));
		} else if (r < 260) {
			fz_put_request(t, &m, s, CTXCOUNT_CMD_STATS);
		} else if (r < 300) {
			fz_put_ctrl(t, &m, s);
		} else if (r < 330) {
			/* a batch: several requests in one datagram */
			nmsg = 2 + rn(t, 3);
			for (i = 0; i < nmsg; i++) {
				if (chance(t, 30))
					fz_put_mutated(t, &m, s);
				else
					fz_put_request(t, &m, s, 1 + rn(t, CTXCOUNT_CMD_MAX + 1));
			}
		} else {
			if (!fz_take(1))
				break;
			len = fz_put_mutated(t, &m, s);
			fz_send(t, s, m.b, len, 1);
			continue;
		}
		if (!fz_take(nmsg))
			break;
		fz_send(t, s, m.b, m.len, nmsg);
	}
out:
	for (i = 0; i < FZ_SOCKS; i++)
		fz_sock_close(&t->s[i]);
	atomic_fetch_sub(&fz.running, 1);
	return NULL;
}

/* ---- CPU hotplug meanwhile ---------------------------------------------- */

/*
 * Takes the last CPU offline and online again, about twice a second,
 * while the fuzzing threads run: counters are created and released by the
 * hotplug callbacks while sessions come and go.
 */
static void *fz_hotplug_fn(void *arg)
{
	int on = 0;

	while (atomic_load(&fz.running) > 0) {
		if (cst_cpu_set_online(fz.hp_cpu, on))
			break;
		fz.hp_toggles++;
		on = !on;
		usleep(300000 + rand() % 400000);
	}
	cst_cpu_set_online(fz.hp_cpu, 1);
	return NULL;
}

/* ---- setup and report ---------------------------------------------------- */

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static void fz_find_pmus(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) && fz.npmu < 16) {
		char path[512];
		FILE *f;
		int type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &type) == 1 && type > PERF_TYPE_BREAKPOINT)
			fz.pmu_types[fz.npmu++] = type;
		fclose(f);
	}
	closedir(d);
}

/*
 * Forks and reaps short-lived children, for INHERIT sessions on it: one per
 * FZ_MSGS_PER_FORK messages, caught up every 20 ms.
 */
static pid_t fz_start_churn(void)
{
	struct fz_shared *sh = fz.shared;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	for (;;) {
		while (atomic_load(&sh->forks) * FZ_MSGS_PER_FORK <=
		       atomic_load(&sh->budget)) {
			pid_t c = fork();

			if (c == 0) {
				cst_loop(20000);
				_exit(0);
			}
			if (c < 0 || waitpid(c, NULL, 0) != c)
				break;
			atomic_fetch_add(&sh->forks, 1);
		}
		usleep(20000);
	}
}

static void fz_report(struct fz_stats *sum, double secs)
{
	static const char *const rows[FZ_ROWS] = {
		[CTXCOUNT_CMD_UNSPEC] = "cmd 0",
		[CTXCOUNT_CMD_SESSION_NEW] = "SESSION_NEW",
		[CTXCOUNT_CMD_SESSION_START] = "SESSION_START",
		[CTXCOUNT_CMD_SESSION_STOP] = "SESSION_STOP",
		[CTXCOUNT_CMD_SESSION_READ] = "SESSION_READ",
		[CTXCOUNT_CMD_SESSION_DEL] = "SESSION_DEL",
		[CTXCOUNT_CMD_STATS] = "STATS",
		[FZ_ROW_UNKNOWN] = "unknown cmd",
		[FZ_ROW_CTRL] = "genl ctrl",
		[FZ_ROW_OTHER] = "unmatched",
	};
	char line[2048];
	int r, e;

	ksft_print_msg("fuzz: seed %llu, %d threads x %d sockets: %llu messages in %llu datagrams, %.1f s, %.0f messages/s%s\n",
		       (unsigned long long)fz.seed, fz.threads, FZ_SOCKS,
		       (unsigned long long)sum->sent,
		       (unsigned long long)sum->datagrams, secs,
		       secs > 0 ? sum->sent / secs : 0.0,
		       atomic_load(&fz.timed_out) ? " (stopped by CTX_FUZZ_SECONDS)" : "");
	ksft_print_msg("fuzz: sessions created %llu, sockets closed mid-sequence %llu, short-lived clients %llu, ",
		       (unsigned long long)sum->sessions,
		       (unsigned long long)sum->closes,
		       (unsigned long long)sum->forks);
	if (fz.hp_cpu > 0)
		printf("cpu%d offline/online %ld times\n", fz.hp_cpu, fz.hp_toggles);
	else
		printf("no CPU hotplug\n");
	for (r = 0; r < FZ_ROWS; r++) {
		size_t n = snprintf(line, sizeof(line), "%-13s replies %llu, acks:",
				    rows[r], (unsigned long long)sum->replies[r]);
		bool any = sum->replies[r];

		for (e = 0; e < FZ_ERRNO_MAX && n < sizeof(line); e++) {
			if (!sum->acks[r][e])
				continue;
			any = true;
			n += snprintf(line + n, sizeof(line) - n, " %s %llu",
				      e ? strerrorname_np(e) ?: "?" : "ok",
				      (unsigned long long)sum->acks[r][e]);
		}
		if (any)
			ksft_print_msg("fuzz: %s\n", line);
	}
	for (e = 0; e < FZ_ERRNO_MAX; e++) {
		if (sum->send_err[e])
			ksft_print_msg("fuzz: sendto failed %s %llu\n",
				       strerrorname_np(e) ?: "?",
				       (unsigned long long)sum->send_err[e]);
		if (sum->recv_err[e])
			ksft_print_msg("fuzz: recv failed %s %llu\n",
				       strerrorname_np(e) ?: "?",
				       (unsigned long long)sum->recv_err[e]);
	}
}

static double fz_tv_secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/*
 * Where the guest's CPU went: on a slow kernel the forking child can take
 * more of it than the fuzzing threads, and the message rate shows only the
 * latter.
 */
static void fz_report_cpu(const struct rusage *churn)
{
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	ksft_print_msg("fuzz: CPU time: fuzzing threads %.1f s user, %.1f s system; forking child and its children %.1f s user, %.1f s system\n",
		       fz_tv_secs(self.ru_utime), fz_tv_secs(self.ru_stime),
		       fz_tv_secs(churn->ru_utime), fz_tv_secs(churn->ru_stime));
}

static void fz_sum(struct fz_stats *sum, const struct fz_stats *st)
{
	const uint64_t *a = (const uint64_t *)st;
	uint64_t *s = (uint64_t *)sum;
	size_t i;

	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		s[i] += a[i];
}

FIXTURE(fuzz) {
	int kmsg;
	long base;
};

FIXTURE_SETUP(fuzz)
{
	self->kmsg = cst_kmsg_open();
	self->base = cst_live_sessions();
	ASSERT_LE(0, self->base);
}

FIXTURE_TEARDOWN(fuzz)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The harness timeout is raised in main() to fit CTX_FUZZ_SECONDS. */
TEST_F_TIMEOUT(fuzz, messages, 300)
{
	static const struct cst_ev ev = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
	struct fz_thread *th[FZ_MAX_THREADS];
	pthread_t hp;
	struct fz_stats *sum = calloc(1, sizeof(*sum));
	struct cst_res *res = calloc(1, sizeof(*res));
	struct cst_sock cs;
	struct rusage churn_usage = { 0 };
	double t0, secs, last;
	long live;
	int i;

	ASSERT_NE(NULL, sum);
	ASSERT_NE(NULL, res);
	ASSERT_EQ(0, cst_open(&cs));
	fz.family = cs.family;
	cst_close(&cs);
	fz_find_pmus();
	fz.ftrace_fn_id = cst_tracepoint_id("ftrace/function");
	fz.shared = mmap(NULL, sizeof(*fz.shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fz.shared);
	fz.churn = fz_start_churn();
	ASSERT_LT(0, fz.churn);
	fz_open_proofs();
	ksft_print_msg("fuzz: CTX_FUZZ_SEED=%llu CTX_FUZZ_MESSAGES=%llu CTX_FUZZ_SECONDS=%.0f CTX_FUZZ_THREADS=%d, family %d, live sessions before %ld\n",
		       (unsigned long long)fz.seed, (unsigned long long)fz.messages,
		       fz.seconds, fz.threads, fz.family, self->base);

	t0 = last = cst_now();
	fz.deadline = fz.seconds > 0 ? t0 + fz.seconds : 1e300;
	atomic_store(&fz.running, fz.threads);
	for (i = 0; i < fz.threads; i++) {
		th[i] = calloc(1, sizeof(*th[i]));
		ASSERT_NE(NULL, th[i]);
		th[i]->idx = i;
		th[i]->rng = fz.seed * 0x9E3779B97F4A7C15ULL + i + 1;
		ASSERT_EQ(0, pthread_create(&th[i]->th, NULL, fz_thread_fn, th[i]));
	}
	if (fz.hp_cpu > 0)
		ASSERT_EQ(0, pthread_create(&hp, NULL, fz_hotplug_fn, NULL));
	/* progress, so that a run that hangs shows how far it got */
	while (atomic_load(&fz.running) > 0) {
		usleep(100000);
		if (cst_now() - last >= 30) {
			last = cst_now();
			ksft_print_msg("fuzz: %.0f s: %llu messages handed out\n",
				       last - t0,
				       (unsigned long long)atomic_load(&fz.shared->budget));
		}
	}
	for (i = 0; i < fz.threads; i++) {
		pthread_join(th[i]->th, NULL);
		fz_sum(sum, &th[i]->st);
		free(th[i]);
	}
	secs = cst_now() - t0;
	if (fz.hp_cpu > 0)
		pthread_join(hp, NULL);
	kill(fz.churn, SIGKILL);
	wait4(fz.churn, NULL, 0, &churn_usage);
	fz_close_proofs();
	fz_report(sum, secs);
	ksft_print_msg("fuzz: the forking child forked %llu times\n",
		       (unsigned long long)atomic_load(&fz.shared->forks));
	fz_report_cpu(&churn_usage);

	/* every socket is closed: nothing may be left */
	live = cst_wait_live_sessions(self->base, 5000);
	EXPECT_EQ(self->base, live) TH_LOG("%ld sessions left after every fuzzing socket closed",
					   live - self->base);
	EXPECT_LT(0, sum->sent);

	/* the module still works: a valid session counts */
	ASSERT_EQ(0, cst_open(&cs));
	ASSERT_EQ(0, cst_new(&cs, getpid(), 0, &ev, 1, res, NULL));
	ASSERT_EQ(0, cst_cmd(&cs, CTXCOUNT_CMD_SESSION_START, res->id, NULL, NULL));
	cst_spin_ms(50);
	ASSERT_EQ(0, cst_cmd(&cs, CTXCOUNT_CMD_SESSION_READ, res->id, res, NULL));
	ASSERT_EQ(1, res->nev);
	EXPECT_LT(10000000ULL, res->ev[0].full) TH_LOG("50 ms of spinning counted %llu ns",
		(unsigned long long)res->ev[0].full);
	EXPECT_EQ(res->ev[0].full, cst_bucket_sum(&res->ev[0]));
	cst_close(&cs);
	EXPECT_EQ(self->base, cst_wait_live_sessions(self->base, 2000));
	free(res);
	free(sum);
	munmap(fz.shared, sizeof(*fz.shared));
}

int main(int argc, char **argv)
{
	const char *why = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* see CST_TEST_MAIN */
	fz.messages = env_u64("CTX_FUZZ_MESSAGES", 20000);
	/* The time bound is make check's: an explicit count runs in full. */
	fz.seconds = env_u64("CTX_FUZZ_SECONDS",
			     getenv("CTX_FUZZ_MESSAGES") ? 0 : 150);
	fz.seed = env_u64("CTX_FUZZ_SEED", 0);
	if (!fz.seed)
		fz.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	fz.threads = env_u64("CTX_FUZZ_THREADS", 4);
	if (fz.threads < 1)
		fz.threads = 1;
	if (fz.threads > FZ_MAX_THREADS)
		fz.threads = FZ_MAX_THREADS;
	fz.hp_cpu = -1;
	if (env_u64("CTX_FUZZ_HOTPLUG", 1) && sysconf(_SC_NPROCESSORS_CONF) > 1) {
		char path[128];

		fz.hp_cpu = sysconf(_SC_NPROCESSORS_CONF) - 1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
			 fz.hp_cpu);
		if (access(path, W_OK))
			fz.hp_cpu = -1;
	}
	/* room for the report and the checks after the time limit */
	_fuzz_messages_object->timeout = fz.seconds > 0 ? fz.seconds + 120 : 7 * 86400;

	if (!(argc > 1 && (!strcmp(argv[1], "-l") || !strcmp(argv[1], "-h"))))
		why = cst_cannot_run();
	if (why)
		ksft_exit_skip("%s", why);
	return test_harness_run(argc, argv);
}
