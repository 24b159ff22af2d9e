// SPDX-License-Identifier: GPL-2.0
/*
 * cst_nl: the selftests' own generic netlink client (see cst_nl.h): the
 * socket, requests built attribute by attribute, and the exchange; what
 * comes back is parsed by cst_res.c.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <netlink/genl/genl.h>

#include "cst_nl.h"
#include "cst_work.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

int cst_fd(struct cst_sock *s)
{
	return nl_socket_get_fd(s->sk);
}

int cst_sixteen_events(struct cst_ev *ev)
{
	static const struct cst_ev sw[] = {
		CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
		CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
		CST_EV_SW(PAGE_FAULTS, 0, "page-faults"),
		CST_EV_SW(CONTEXT_SWITCHES, 0, "context-switches"),
		CST_EV_SW(CPU_MIGRATIONS, 0, "cpu-migrations"),
		CST_EV_SW(PAGE_FAULTS_MIN, 0, "minor-faults"),
		CST_EV_SW(PAGE_FAULTS_MAJ, 0, "major-faults"),
		CST_EV_SW(ALIGNMENT_FAULTS, 0, "alignment-faults"),
	};
	int i, n = 0;

	for (i = 0; i < 8; i++) {
		ev[n++] = sw[i];
		ev[n] = sw[i];
		ev[n++].flags = CST_F_USER_ONLY;
	}
	return n;
}

/* Generic request/ack on any genl family; ctrl replies go to ctrl_cb. */
static int xfer(struct nl_sock *sk, struct nl_msg *msg, int family,
		struct cst_res *res, struct cst_ack *ack,
		void (*ctrl_cb)(struct nlmsghdr *, void *), void *cb_arg)
{
	bool dump = nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP;
	struct cst_ack local;
	uint32_t seq;
	int ret;

	if (!ack)
		ack = &local;
	memset(ack, 0, sizeof(*ack));
	if (res) {
		/* The rows' room is the caller's: kept, emptied. */
		struct cst_threads *thr = res->thr;

		memset(res, 0, sizeof(*res));
		res->thr = thr;
		if (thr)
			thr->n = thr->overflow = thr->parts = 0;
	}
	ret = nl_send_auto(sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (ret < 0) {
		ack->err = -EIO;
		return ack->err;
	}
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len, done = 0;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			ack->err = len == -NLE_AGAIN ? -ETIMEDOUT : -EIO;
			return ack->err;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				cst_parse_ack(nlh, ack);
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				cst_parse_done(nlh, ack);
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == family) {
				if (ctrl_cb)
					ctrl_cb(nlh, cb_arg);
				else if (res)
					cst_parse_reply(nlh, res, dump);
				if (res) {
					res->nmsg++;
					if (nlh->nlmsg_len > res->max_msg_len)
						res->max_msg_len = nlh->nlmsg_len;
				}
			}
		}
		free(buf);
		if (done)
			return ack->err;
	}
}

struct family_info {
	bool found;
	int id;
	unsigned int version, maxattr;
};

static void family_cb(struct nlmsghdr *nlh, void *arg)
{
	struct family_info *fi = arg;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CTRL_ATTR_MAX, genlmsg_attrdata(g, 0),
		      genlmsg_attrlen(g, 0), NULL))
		return;
	if (!tb[CTRL_ATTR_FAMILY_ID] || !tb[CTRL_ATTR_FAMILY_NAME] ||
	    strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), CTXCOUNT_GENL_NAME))
		return;
	fi->found = true;
	fi->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		fi->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (tb[CTRL_ATTR_MAXATTR])
		fi->maxattr = nla_get_u32(tb[CTRL_ATTR_MAXATTR]);
}

int cst_open(struct cst_sock *s)
{
	struct family_info fi = { 0 };
	struct timeval tv = { .tv_sec = 20 };
	int one = 1, ret, rcvbuf = 8 << 20;
	struct nl_msg *m;

	memset(s, 0, sizeof(*s));
	s->sk = nl_socket_alloc();
	if (!s->sk)
		return -ENOMEM;
	if (genl_connect(s->sk)) {
		nl_socket_free(s->sk);
		s->sk = NULL;
		return -EIO;
	}
	nl_socket_enable_msg_peek(s->sk);
	nl_socket_set_msg_buf_size(s->sk, 65536);
	/*
	 * Room for a single READ reply with a row per CPU (and its ack) on
	 * the 64-vCPU guests, so that it can be compared with the dump: the
	 * module refuses a reply that would leave its ack no room.
	 */
	setsockopt(cst_fd(s), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		   sizeof(rcvbuf));
	setsockopt(cst_fd(s), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(cst_fd(s), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(cst_fd(s), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	m = nlmsg_alloc();
	if (!m) {
		cst_close(s);
		return -ENOMEM;
	}
	/*
	 * A dump, as libctxcount's: a GETFAMILY by name of an unloaded
	 * family runs modprobe and waits for it (storm.reload's clients).
	 */
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
		    NLM_F_REQUEST | NLM_F_DUMP, CTRL_CMD_GETFAMILY, 1);
	ret = xfer(s->sk, m, GENL_ID_CTRL, NULL, NULL, family_cb, &fi);
	if (ret || !fi.found) {
		cst_close(s);
		return ret ? ret : -ENOENT;
	}
	s->family = fi.id;
	s->version = fi.version;
	s->maxattr = fi.maxattr;
	return 0;
}

void cst_close(struct cst_sock *s)
{
	if (s->sk)
		nl_socket_free(s->sk);
	s->sk = NULL;
}

struct nl_msg *cst_msg(struct cst_sock *s, uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc_size(32768);

	if (!m)
		return NULL;
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, s->family, 0,
		    NLM_F_REQUEST | NLM_F_ACK, cmd, CTXCOUNT_GENL_VERSION);
	return m;
}

int cst_put_target_cpus(struct nl_msg *m, int pid, uint32_t flags,
			const int *cpus, int n)
{
	struct nlattr *t = nla_nest_start(m, CTXCOUNT_A_TARGET | NLA_F_NESTED);
	struct nlattr *list;
	int i;

	if (!t)
		return -EMSGSIZE;
	if (pid >= 0 && nla_put_u32(m, CTXCOUNT_TARGET_A_PID, pid))
		return -EMSGSIZE;
	if (nla_put_u32(m, CTXCOUNT_TARGET_A_FLAGS, flags))
		return -EMSGSIZE;
	/* libnl's nla_nest_end() drops an empty nest: put it by hand. */
	if (n == 0 && nla_put(m, CTXCOUNT_TARGET_A_CPUS | NLA_F_NESTED, 0, NULL))
		return -EMSGSIZE;
	if (n > 0) {
		list = nla_nest_start(m, CTXCOUNT_TARGET_A_CPUS | NLA_F_NESTED);
		if (!list)
			return -EMSGSIZE;
		for (i = 0; i < n; i++)
			if (nla_put_u32(m, CTXCOUNT_CPUS_A_CPU, cpus[i]))
				return -EMSGSIZE;
		nla_nest_end(m, list);
	}
	nla_nest_end(m, t);
	return 0;
}

int cst_put_target(struct nl_msg *m, int pid, uint32_t flags)
{
	return cst_put_target_cpus(m, pid, flags, NULL, -1);
}

int cst_put_events_fds(struct nl_msg *m, const struct cst_ev *ev, int n,
		       const int *fds)
{
	struct nlattr *all = nla_nest_start(m, CTXCOUNT_A_EVENTS | NLA_F_NESTED);
	int i;

	if (!all)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		struct nlattr *e = nla_nest_start(m, CTXCOUNT_EVENTS_A_EVENT |
						     NLA_F_NESTED);

		if (!e || nla_put_u32(m, CTXCOUNT_EVENT_A_TYPE, ev[i].type) ||
		    nla_put_u64(m, CTXCOUNT_EVENT_A_CONFIG, ev[i].config) ||
		    nla_put_u32(m, CTXCOUNT_EVENT_A_FLAGS, ev[i].flags))
			return -EMSGSIZE;
		if (fds && fds[i] >= 0 &&
		    nla_put_s32(m, CTXCOUNT_EVENT_A_PERF_FD, fds[i]))
			return -EMSGSIZE;
		nla_nest_end(m, e);
	}
	/* libnl drops an empty nest; n == 0 must send one */
	nla_nest_end_keep_empty(m, all);
	return 0;
}

int cst_put_events(struct nl_msg *m, const struct cst_ev *ev, int n)
{
	return cst_put_events_fds(m, ev, n, NULL);
}

int cst_proof_open(int pid, uint32_t tflags, const struct cst_ev *ev)
{
	struct perf_event_attr attr = {
		.type = ev->type,
		.size = sizeof(attr),
		.config = ev->config,
		.disabled = 1,
		.exclude_user = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER),
		.exclude_kernel = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL),
		.exclude_hv = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV),
	};
	bool system_wide = tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE;
	long fd;

	if (!system_wide)
		attr.inherit = !!(tflags & CTXCOUNT_TARGET_F_INHERIT);
	fd = syscall(SYS_perf_event_open, &attr, system_wide ? -1 : pid,
		     system_wide ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int cst_proofs_open(int pid, uint32_t tflags, const struct cst_ev *ev, int n,
		    int *fds, struct cst_ack *ack)
{
	int i, err;

	for (i = 0; i < n; i++) {
		fds[i] = cst_proof_open(pid, tflags, &ev[i]);
		if (fds[i] >= 0)
			continue;
		err = fds[i];
		if (ack) {
			memset(ack, 0, sizeof(*ack));
			ack->err = err;
			ack->has_msg = true;
			snprintf(ack->msg, sizeof(ack->msg),
				 "proof of %s: perf_event_open: %s",
				 ev[i].name ? ev[i].name : "event",
				 strerror(-err));
		}
		cst_proofs_close(fds, i);
		return err;
	}
	return 0;
}

void cst_proofs_close(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int cst_xfer(struct cst_sock *s, struct nl_msg *msg, struct cst_res *res,
	     struct cst_ack *ack)
{
	return xfer(s->sk, msg, s->family, res, ack, NULL, NULL);
}

uint32_t cst_new_session_flags;
long long cst_new_max_sources = -1;

static int put_new_opts(struct nl_msg *m)
{
	if (cst_new_session_flags &&
	    nla_put_u32(m, CTXCOUNT_A_SESSION_FLAGS, cst_new_session_flags))
		return -EMSGSIZE;
	if (cst_new_max_sources >= 0 &&
	    nla_put_u32(m, CTXCOUNT_A_MAX_SOURCES, cst_new_max_sources))
		return -EMSGSIZE;
	return 0;
}

int cst_new_fds(struct cst_sock *s, int pid, uint32_t tflags,
		const struct cst_ev *ev, int n, const int *fds,
		struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_NEW);

	if (!m)
		return -ENOMEM;
	if (cst_put_target(m, pid, tflags) ||
	    cst_put_events_fds(m, ev, n, fds) || put_new_opts(m)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_new_proof(struct cst_sock *s, int pid, uint32_t tflags,
		  const struct cst_ev *ev, int fd, struct cst_res *res,
		  struct cst_ack *ack)
{
	return cst_new_fds(s, pid, tflags, ev, 1, &fd, res, ack);
}

int cst_new(struct cst_sock *s, int pid, uint32_t tflags,
	    const struct cst_ev *ev, int n, struct cst_res *res,
	    struct cst_ack *ack)
{
	int fds[CTXCOUNT_MAX_EVENTS + 8];
	int ret;

	if (n < 0 || n > (int)(sizeof(fds) / sizeof(fds[0])))
		return -E2BIG;
	ret = cst_proofs_open(pid, tflags, ev, n, fds, ack);
	if (ret)
		return ret;
	ret = cst_new_fds(s, pid, tflags, ev, n, fds, res, ack);
	cst_proofs_close(fds, n);
	return ret;
}

/*
 * SESSION_NEW of @pid (< 0: none), @tflags and CPUs cpus[0..ncpu) (ncpu <
 * 0: no list), with proofs on @proof_pid opened here as cst_new() opens
 * them.
 */
static int new_target(struct cst_sock *s, int proof_pid, int pid,
		      uint32_t tflags, const int *cpus, int ncpu,
		      const struct cst_ev *ev, int n, struct cst_res *res,
		      struct cst_ack *ack)
{
	int fds[CTXCOUNT_MAX_EVENTS + 8];
	struct nl_msg *m;
	int ret;

	if (n < 0 || n > (int)(sizeof(fds) / sizeof(fds[0])))
		return -E2BIG;
	ret = cst_proofs_open(proof_pid, tflags, ev, n, fds, ack);
	if (ret)
		return ret;
	m = cst_msg(s, CTXCOUNT_CMD_SESSION_NEW);
	if (!m) {
		ret = -ENOMEM;
	} else if (cst_put_target_cpus(m, pid, tflags, cpus, ncpu) ||
		   cst_put_events_fds(m, ev, n, fds) || put_new_opts(m)) {
		nlmsg_free(m);
		ret = -EMSGSIZE;
	} else {
		ret = cst_xfer(s, m, res, ack);
	}
	cst_proofs_close(fds, n);
	return ret;
}

int cst_new_cpus(struct cst_sock *s, const struct cst_ev *ev, int n,
		 const int *cpus, int ncpu, struct cst_res *res,
		 struct cst_ack *ack)
{
	return new_target(s, -1, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, cpus, ncpu,
			  ev, n, res, ack);
}

int cst_new_all_threads(struct cst_sock *s, int pid, uint32_t tflags,
			const int *cpus, int ncpu, const struct cst_ev *ev,
			int n, struct cst_res *res, struct cst_ack *ack)
{
	/* pid 0: the proofs are this thread's, whatever the target says */
	return new_target(s, 0, pid, tflags | CTXCOUNT_TARGET_F_ALL_THREADS,
			  cpus, ncpu, ev, n, res, ack);
}

int cst_read(struct cst_sock *s, uint32_t id, uint32_t flags,
	     struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_READ);

	if (!m)
		return -ENOMEM;
	if (nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id) ||
	    (flags && nla_put_u32(m, CTXCOUNT_A_READ_FLAGS, flags))) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_read_dump(struct cst_sock *s, uint32_t id, uint32_t flags,
		  struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_READ);

	if (!m)
		return -ENOMEM;
	nlmsg_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id) ||
	    (flags && nla_put_u32(m, CTXCOUNT_A_READ_FLAGS, flags))) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_cmd(struct cst_sock *s, uint8_t cmd, uint32_t id,
	    struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, cmd);

	if (!m)
		return -ENOMEM;
	if (cmd != CTXCOUNT_CMD_STATS &&
	    nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_calibrate_step(struct cst_sock *s, uint32_t id, uint32_t step)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_CALIBRATE);

	if (!m)
		return -ENOMEM;
	/* Module-wide since version 5: older modules wanted a session. */
	if ((id && nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id)) ||
	    nla_put_u32(m, CTXCOUNT_A_CALIBRATE, step)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, NULL, NULL);
}

int cst_calibrate(struct cst_sock *s, uint32_t id)
{
	/* As ctxstat does: a first quiet run warms up, the second counts. */
	static const uint32_t begin[3] = {
		CTXCOUNT_CALIBRATE_QUIET_BEGIN, CTXCOUNT_CALIBRATE_QUIET_BEGIN,
		CTXCOUNT_CALIBRATE_STORM_BEGIN,
	};
	cpu_set_t old, one;
	int i, tries, err = -EAGAIN;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (tries = 0; tries < 5 && err == -EAGAIN; tries++) {
		for (i = 0, err = 0; i < 3 && !err; i++) {
			err = cst_calibrate_step(s, id, begin[i]);
			if (err)
				break;
			cst_loop(200000);
			err = cst_calibrate_step(s, id, CTXCOUNT_CALIBRATE_END);
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
	return err == -EEXIST ? 0 : err;
}

uint32_t cst_features(void)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	uint32_t f = 0;

	if (r && !cst_open(&s)) {
		if (!cst_cmd(&s, CTXCOUNT_CMD_STATS, 0, r, NULL))
			f = r->features;
		cst_close(&s);
	}
	free(r);
	return f;
}

long cst_live_sessions(void)
{
	struct cst_sock s;
	struct cst_res *res = calloc(1, sizeof(*res));
	long ret;

	if (!res)
		return -ENOMEM;
	ret = cst_open(&s);
	if (!ret) {
		ret = cst_cmd(&s, CTXCOUNT_CMD_STATS, 0, res, NULL);
		if (!ret)
			ret = res->has_sessions ? (long)res->sessions : -EPROTO;
		cst_close(&s);
	}
	free(res);
	return ret;
}

long cst_wait_live_sessions(long want, int ms)
{
	long live = cst_live_sessions();

	while (live != want && ms > 0) {
		usleep(20000);
		ms -= 20;
		live = cst_live_sessions();
	}
	return live;
}

int cst_event_error(const struct cst_ev *ev)
{
	struct cst_sock s;
	struct cst_res *res = calloc(1, sizeof(*res));
	int ret;

	if (!res)
		return -ENOMEM;
	ret = cst_open(&s);
	if (ret) {
		free(res);
		return ret;
	}
	/* An event perf refuses here has no proof: its errno is the answer. */
	ret = cst_new(&s, getpid(), 0, ev, 1, res, NULL);
	if (!ret) {
		if (res->nev == 1 && res->ev[0].has_error)
			ret = res->ev[0].error;
		else
			ret = -EPROTO;
		cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, res->id, NULL, NULL);
	}
	cst_close(&s);
	free(res);
	return ret;
}
