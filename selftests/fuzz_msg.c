// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_msg: the fuzzer's messages (see fuzz.c's head comment for what it
 * sends and why): requests built from the real policies, proofs that fit
 * and that do not, mutations of all of these, genl control requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "cst_nl.h"
#include "fuzz.h"

/* ---- randomness (xorshift64*, one state per thread) --------------------- */

static uint64_t fz_rnd(struct fz_thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1DULL;
}

uint32_t fz_rn(struct fz_thread *t, uint32_t n)
{
	return n ? fz_rnd(t) % n : 0;
}

bool fz_chance(struct fz_thread *t, unsigned int percent)
{
	return fz_rn(t, 100) < percent;
}

/* ---- message building --------------------------------------------------- */

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

void fz_u32(struct fz_msg *m, uint16_t type, uint32_t v)
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
size_t fz_hdr(struct fz_thread *t, struct fz_msg *m, struct fz_sock *s,
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

void fz_end(struct fz_msg *m, size_t off)
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
	switch (fz_rn(t, 8)) {
	case 0: case 1: case 2:
		return getpid();
	case 3: case 4:
		return fz.churn;
	case 5:
		return 1;
	case 6:
		return 0x3fffff;	/* PID_MAX_LIMIT: valid, never used */
	default:
		return (uint32_t)fz_rnd(t);
	}
}

static uint32_t fz_target_flags(struct fz_thread *t)
{
	static const uint32_t f[] = {
		0, 0, CTXCOUNT_TARGET_F_INHERIT, CTXCOUNT_TARGET_F_INHERIT,
		CTXCOUNT_TARGET_F_SYSTEM_WIDE,
		CTXCOUNT_TARGET_F_SYSTEM_WIDE | CTXCOUNT_TARGET_F_INHERIT,
	};

	if (fz_chance(t, 3))
		return (uint32_t)fz_rnd(t);
	return f[fz_rn(t, sizeof(f) / sizeof(f[0]))];
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
	int i, start = fz_rn(t, fz.nproofs);

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

	if (fz_chance(t, 5))
		return;
	if (fz.nproofs && fz_chance(t, 80))
		fd = fz.proofs[fz_rn(t, fz.nproofs)].fd;
	else
		fd = fz_chance(t, 90) ? fz.junk_fds[fz_rn(t, 3)] : (int)fz_rnd(t);
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
	if (p->flags || fz_chance(t, 50))
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

	if (fz_chance(t, 70) && fz_put_proven_event(t, m, tflags, pid)) {
		fz_nest_end(m, e);
		return;
	}
	if (fz_chance(t, 85)) {
		k = fz_rn(t, sizeof(fz_events) / sizeof(fz_events[0]));
		type = fz_events[k].type;
		config = fz_events[k].config;
	} else if (fz.npmu && fz_chance(t, 50)) {
		type = fz.pmu_types[fz_rn(t, fz.npmu)];
		config = fz_rn(t, 64);
	} else {
		type = fz_rn(t, 8);
		config = fz_chance(t, 50) ? fz_rn(t, 16) : fz_rnd(t);
		/*
		 * Tracepoint ids are small: random ones hit real tracepoints.
		 * Never the function tracer's: a counter on ftrace:function
		 * traces every kernel function, which under TCG stalls the
		 * guest for minutes (RCU stall reports), module or not.
		 */
		if (type == PERF_TYPE_TRACEPOINT) {
			config = fz_rn(t, 2048);
			if (fz.ftrace_fn_id < 0 || (long)config == fz.ftrace_fn_id)
				type = PERF_TYPE_SOFTWARE;
		}
	}
	fz_u32(m, CTXCOUNT_EVENT_A_TYPE, type);
	fz_u64(m, CTXCOUNT_EVENT_A_CONFIG, config);
	if (fz_chance(t, 70))
		fz_u32(m, CTXCOUNT_EVENT_A_FLAGS,
		       fz_chance(t, 95) ? fz_rn(t, 8) : (uint32_t)fz_rnd(t));
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
	int i, nr = fz_chance(t, 5) ? 0 : 1 + fz_rn(t, ncpu);

	for (i = 0; i < nr; i++)
		fz_u32(m, CTXCOUNT_CPUS_A_CPU,
		       fz_chance(t, 90) ? (uint32_t)i : fz_chance(t, 50) ? fz_rn(t, ncpu) :
		       (uint32_t)fz_rnd(t));
	fz_nest_end(m, n);
}

void fz_put_new_body(struct fz_thread *t, struct fz_msg *m)
{
	uint32_t tflags = fz_target_flags(t);
	uint32_t pid = fz_pid(t);
	size_t n;
	int i, nev;

	n = fz_nest(m, CTXCOUNT_A_TARGET);
	if (!(tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) || fz_chance(t, 5))
		fz_u32(m, CTXCOUNT_TARGET_A_PID, pid);
	if (tflags || fz_chance(t, 50))
		fz_u32(m, CTXCOUNT_TARGET_A_FLAGS, tflags);
	if (fz_chance(t, (tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) ? 40 : 3))
		fz_put_cpus(t, m);
	fz_nest_end(m, n);

	nev = 1 + fz_rn(t, 4);
	if (fz_chance(t, 3))
		nev = CTXCOUNT_MAX_EVENTS + fz_rn(t, 3) - 1;
	n = fz_nest(m, CTXCOUNT_A_EVENTS);
	for (i = 0; i < nev; i++)
		fz_put_event(t, m, tflags, pid);
	fz_nest_end(m, n);
	/* Sources: their hooks come and go with the first and last such session. */
	if (fz_chance(t, 30)) {
		fz_u32(m, CTXCOUNT_A_SESSION_FLAGS, fz_chance(t, 90) ?
		       CTXCOUNT_SESSION_F_IRQ_SOURCES : (uint32_t)fz_rnd(t));
		if (fz_chance(t, 50))
			fz_u32(m, CTXCOUNT_A_MAX_SOURCES, fz_chance(t, 80) ?
			       1 + fz_rn(t, CTXCOUNT_MAX_SOURCES) : (uint32_t)fz_rnd(t));
	}
}

static uint32_t fz_session_id(struct fz_thread *t, struct fz_sock *s)
{
	struct fz_sock *o;

	if (s->nids && fz_chance(t, 80))
		return s->ids[fz_rn(t, s->nids)];
	/* another socket's session: must not exist for this one */
	o = &t->s[fz_rn(t, FZ_SOCKS)];
	if (o->nids && fz_chance(t, 50))
		return o->ids[fz_rn(t, o->nids)];
	switch (fz_rn(t, 4)) {
	case 0:
		return 0;
	case 1:
		return 1 + fz_rn(t, 256);
	case 2:
		return 0x7fffffff;
	default:
		return (uint32_t)fz_rnd(t);
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
void fz_put_request(struct fz_thread *t, struct fz_msg *m,
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
		if (fz_chance(t, 40))
			fz_u32(m, CTXCOUNT_A_READ_FLAGS,
			       fz_chance(t, 90) ? CTXCOUNT_READ_F_PER_CPU : (uint32_t)fz_rnd(t));
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
void fz_open_proofs(void)
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

void fz_close_proofs(void)
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
	int i, n = fz_rn(t, 6);

	for (i = 0; i < n; i++) {
		if (depth > 0 && fz_chance(t, 30)) {
			size_t nest = fz_nest(m, fz_rn(t, 20));

			fz_garbage(t, m, depth - 1);
			fz_nest_end(m, nest);
		} else {
			unsigned char junk[24];
			size_t len = fz_rn(t, sizeof(junk) + 1);
			size_t j;

			for (j = 0; j < len; j++)
				junk[j] = fz_rnd(t);
			fz_attr(m, fz_rn(t, 24) | (fz_chance(t, 10) ? NLA_F_NET_BYTEORDER : 0),
				junk, len);
		}
	}
}

static void fz_deep(struct fz_thread *t, struct fz_msg *m, int levels)
{
	size_t nest;

	if (!levels) {
		fz_u32(m, fz_rn(t, 4), fz_rnd(t));
		return;
	}
	nest = fz_nest(m, fz_chance(t, 50) ? CTXCOUNT_EVENTS_A_EVENT : fz_rn(t, 12));
	fz_deep(t, m, levels - 1);
	fz_nest_end(m, nest);
}

/*
 * A mutated request: a valid one (or a header with garbage) with 1 to 3
 * mutations. Returns the length to send, which may differ from the
 * message's own nlmsg_len.
 */
size_t fz_put_mutated(struct fz_thread *t, struct fz_msg *m,
		      struct fz_sock *s)
{
	size_t start = m->len, h, offs[64];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int i, k, n, muts = 1 + fz_rn(t, 3);
	size_t send_len;

	switch (fz_rn(t, 4)) {
	case 0: {
		/* garbage or deep nesting where TARGET/EVENTS belong */
		uint8_t cmd = 1 + fz_rn(t, CTXCOUNT_CMD_MAX);
		size_t nest;

		h = fz_hdr(t, m, s, fz.family, cmd, CTXCOUNT_GENL_VERSION, cmd);
		if (fz_chance(t, 50))
			fz_u32(m, CTXCOUNT_A_SESSION_ID, fz_session_id(t, s));
		nest = fz_nest(m, fz_chance(t, 50) ? CTXCOUNT_A_TARGET : CTXCOUNT_A_EVENTS);
		if (fz_chance(t, 30))
			fz_deep(t, m, 1 + fz_rn(t, 40));
		else
			fz_garbage(t, m, 3);
		fz_nest_end(m, nest);
		if (fz_chance(t, 50))
			fz_garbage(t, m, 2);
		fz_end(m, h);
		break;
	}
	case 1: {
		/* an oversized attribute of a known type */
		uint8_t cmd = 1 + fz_rn(t, CTXCOUNT_CMD_MAX);
		static const uint16_t types[] = {
			CTXCOUNT_A_SESSION_ID, CTXCOUNT_A_TARGET,
			CTXCOUNT_A_EVENTS, CTXCOUNT_A_PAD,
			CTXCOUNT_A_TASKS_SEEN, CTXCOUNT_A_STATS_SESSIONS,
			CTXCOUNT_A_MAX + 1,
		};
		size_t len = fz_chance(t, 50) ? fz_rn(t, 64) : fz_rn(t, 16000);
		unsigned char *big = malloc(len + 1);

		h = fz_hdr(t, m, s, fz.family, cmd, CTXCOUNT_GENL_VERSION, cmd);
		if (big) {
			for (i = 0; i < (int)len; i++)
				big[i] = fz_chance(t, 50) ? 0 : fz_rnd(t);
			fz_attr(m, types[fz_rn(t, sizeof(types) / sizeof(types[0]))] |
				(fz_chance(t, 50) ? NLA_F_NESTED : 0), big, len);
			free(big);
		}
		fz_end(m, h);
		break;
	}
	default:
		fz_put_request(t, m, s, 1 + fz_rn(t, CTXCOUNT_CMD_MAX));
		h = start;
		break;
	}
	nlh = (struct nlmsghdr *)(m->b + h);
	g = (struct genlmsghdr *)NLMSG_DATA(nlh);
	send_len = m->len - start;

	for (k = 0; k < muts; k++) {
		n = fz_attrs(m->b, h + NLMSG_HDRLEN + GENL_HDRLEN, m->len,
			     offs, 0, 64, 0);
		switch (fz_rn(t, 10)) {
		case 0:	/* flip bytes anywhere after the netlink header */
			for (i = 0; send_len > NLMSG_HDRLEN && i < 1 + (int)fz_rn(t, 4); i++) {
				size_t o = NLMSG_HDRLEN + fz_rn(t, send_len - NLMSG_HDRLEN);

				m->b[h + o] ^= 1 << fz_rn(t, 8);
			}
			break;
		case 1:	/* an attribute's length */
			if (n) {
				struct nlattr *a = (struct nlattr *)(m->b + offs[fz_rn(t, n)]);
				static const uint16_t lens[] = { 0, 1, 3, 4, 5, 7, 8, 12, 0xffff };

				a->nla_len = fz_chance(t, 70) ?
					lens[fz_rn(t, sizeof(lens) / sizeof(lens[0]))] :
					a->nla_len + fz_rn(t, 64) - 32;
			}
			break;
		case 2:	/* an attribute's type and flag bits */
			if (n) {
				struct nlattr *a = (struct nlattr *)(m->b + offs[fz_rn(t, n)]);

				if (fz_chance(t, 50))
					a->nla_type ^= NLA_F_NESTED;
				else
					a->nla_type = fz_rn(t, 16) |
						(a->nla_type & NLA_F_NESTED);
				if (fz_chance(t, 10))
					a->nla_type |= NLA_F_NET_BYTEORDER;
			}
			break;
		case 3:	/* truncate the message */
			send_len = fz_rn(t, send_len + 1);
			if (fz_chance(t, 50))
				nlh->nlmsg_len = send_len;
			break;
		case 4:	/* nlmsg_len disagrees with what is sent */
			nlh->nlmsg_len = fz_chance(t, 50) ? fz_rn(t, 0x10000) :
				nlh->nlmsg_len + fz_rn(t, 32) - 16;
			break;
		case 5:	/* unknown or neighbouring commands */
			g->cmd = fz_chance(t, 50) ? CTXCOUNT_CMD_MAX + 1 + fz_rn(t, 4) : fz_rnd(t);
			break;
		case 6:	/* version and reserved header field */
			if (fz_chance(t, 50))
				g->version = fz_rnd(t);
			else
				g->reserved = 1 + fz_rn(t, 0xffff);
			break;
		case 7: {	/* netlink flags: dump, echo, no ack, no request */
			static const uint16_t fl[] = {
				NLM_F_REQUEST, NLM_F_REQUEST | NLM_F_DUMP | NLM_F_ACK,
				NLM_F_REQUEST | NLM_F_ECHO | NLM_F_ACK,
				NLM_F_ACK, NLM_F_REQUEST | NLM_F_MULTI | NLM_F_ACK,
				NLM_F_REQUEST | NLM_F_ACK | NLM_F_REPLACE | NLM_F_CREATE,
			};

			nlh->nlmsg_flags = fz_chance(t, 80) ?
				fl[fz_rn(t, sizeof(fl) / sizeof(fl[0]))] : fz_rnd(t);
			break;
		}
		case 8:	/* netlink control types and the genl control family */
			nlh->nlmsg_type = fz_chance(t, 50) ? fz_rn(t, NLMSG_MIN_TYPE + 1) :
				GENL_ID_CTRL;
			break;
		default:	/* trailing garbage */
			if (send_len == m->len - start && fz_chance(t, 50)) {
				fz_garbage(t, m, 1);
				if (fz_chance(t, 50))
					nlh->nlmsg_len = m->len - h;
				send_len = m->len - start;
			} else {
				fz_u32(m, fz_rn(t, CTXCOUNT_A_MAX + 3), fz_rnd(t));
				send_len = m->len - start;
				nlh->nlmsg_len = m->len - h;
			}
			break;
		}
	}
	return send_len;
}

/* Genl control requests: family lookup, family and policy dumps. */
void fz_put_ctrl(struct fz_thread *t, struct fz_msg *m, struct fz_sock *s)
{
	size_t h;
	char name[40];
	int i;

	switch (fz_rn(t, 6)) {
	case 0: case 1:
		h = fz_hdr(t, m, s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, FZ_ROW_CTRL);
		fz_attr(m, CTRL_ATTR_FAMILY_NAME, CTXCOUNT_GENL_NAME,
			sizeof(CTXCOUNT_GENL_NAME));
		break;
	case 2:
		h = fz_hdr(t, m, s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, FZ_ROW_CTRL);
		if (fz_chance(t, 50)) {
			uint16_t id = fz_chance(t, 80) ? fz.family : fz_rnd(t);

			fz_attr(m, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
		} else {
			/* a name without its terminator, too long, or mangled */
			size_t len = 1 + fz_rn(t, sizeof(name));

			for (i = 0; i < (int)len; i++)
				name[i] = i < 8 ? CTXCOUNT_GENL_NAME[i] ^ (fz_chance(t, 20) ? 1 : 0) : 'x';
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
		if (fz_chance(t, 80))
			fz_attr(m, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
		else
			fz_attr(m, CTRL_ATTR_FAMILY_NAME, CTXCOUNT_GENL_NAME,
				sizeof(CTXCOUNT_GENL_NAME));
		if (fz_chance(t, 50))
			fz_u32(m, CTRL_ATTR_OP, fz_rn(t, CTXCOUNT_CMD_MAX + 3));
		break;
	}
	}
	fz_end(m, h);
}
