// SPDX-License-Identifier: GPL-2.0
/*
 * nlclient: talk to the ctxcount module over generic netlink (libnl-genl).
 * Builders and parsers are pure functions of their arguments; the
 * transaction layer sends one request and collects reply, ack or error
 * (with the kernel's extended ack message).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include "lib/nlclient.h"
#include "lib/nlsources.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static struct nl_msg *new_request(int family, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 NLM_F_REQUEST | NLM_F_ACK, cmd,
			 CTXCOUNT_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int put_cpus(struct nl_msg *msg, const int *cpus, int nr)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_TARGET_A_CPUS);
	int i;

	if (!nest)
		return -1;
	for (i = 0; i < nr; i++)
		if (nla_put_u32(msg, CTXCOUNT_CPUS_A_CPU, cpus[i]))
			return -1;
	return nla_nest_end(msg, nest);
}

static int put_target(struct nl_msg *msg, const struct ctx_nl_target *t)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_A_TARGET);

	if (!nest)
		return -1;
	/* System-wide and all threads have no pid: the header says absent. */
	if (!(t->flags & (CTXCOUNT_TARGET_F_SYSTEM_WIDE |
			  CTXCOUNT_TARGET_F_ALL_THREADS)) &&
	    nla_put_u32(msg, CTXCOUNT_TARGET_A_PID, t->pid))
		return -1;
	if (nla_put_u32(msg, CTXCOUNT_TARGET_A_FLAGS, t->flags))
		return -1;
	if (t->nr_cpus && put_cpus(msg, t->cpus, t->nr_cpus) < 0)
		return -1;
	return nla_nest_end(msg, nest);
}

static int put_events(struct nl_msg *msg, const struct ctx_nl_event_req *ev,
		      int nr)
{
	struct nlattr *list, *one;
	int i;

	list = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	if (!list)
		return -1;
	for (i = 0; i < nr; i++) {
		one = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
		if (!one ||
		    nla_put_u32(msg, CTXCOUNT_EVENT_A_TYPE, ev[i].type) ||
		    nla_put_u64(msg, CTXCOUNT_EVENT_A_CONFIG, ev[i].config) ||
		    nla_put_u32(msg, CTXCOUNT_EVENT_A_FLAGS, ev[i].flags))
			return -1;
		if (ev[i].has_perf_fd &&
		    nla_put_s32(msg, CTXCOUNT_EVENT_A_PERF_FD, ev[i].perf_fd))
			return -1;
		nla_nest_end(msg, one);
	}
	return nla_nest_end(msg, list);
}

struct nl_msg *ctx_nl_build_session_new(int family,
					const struct ctx_nl_target *target,
					const struct ctx_nl_event_req *ev,
					int nr_events)
{
	struct nl_msg *msg = new_request(family, CTXCOUNT_CMD_SESSION_NEW);

	if (!msg)
		return NULL;
	if (put_target(msg, target) < 0 || put_events(msg, ev, nr_events) < 0 ||
	    (target->session_flags &&
	     nla_put_u32(msg, CTXCOUNT_A_SESSION_FLAGS, target->session_flags)) ||
	    (target->max_sources &&
	     nla_put_u32(msg, CTXCOUNT_A_MAX_SOURCES, target->max_sources))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctx_nl_build_session_cmd(int family, uint8_t cmd,
					uint32_t session_id)
{
	struct nl_msg *msg = new_request(family, cmd);

	if (!msg)
		return NULL;
	if (nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, session_id)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctx_nl_build_session_read(int family, uint32_t session_id,
					 uint32_t flags)
{
	struct nl_msg *msg = ctx_nl_build_session_cmd(family,
						      CTXCOUNT_CMD_SESSION_READ,
						      session_id);

	if (msg && flags && nla_put_u32(msg, CTXCOUNT_A_READ_FLAGS, flags)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctx_nl_build_session_read_dump(int family, uint32_t session_id,
					      uint32_t flags)
{
	struct nl_msg *msg = ctx_nl_build_session_read(family, session_id,
						       flags);

	/* Answered by messages and NLMSG_DONE: no ack is asked for. */
	if (msg)
		nlmsg_hdr(msg)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	return msg;
}

struct nl_msg *ctx_nl_build_stats(int family)
{
	return new_request(family, CTXCOUNT_CMD_STATS);
}

struct nl_msg *ctx_nl_build_calibrate(int family, uint32_t step)
{
	struct nl_msg *msg = new_request(family, CTXCOUNT_CMD_SESSION_CALIBRATE);

	if (msg && nla_put_u32(msg, CTXCOUNT_A_CALIBRATE, step)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int ctx_nl_open(struct ctx_nl *nl)
{
	int one = 1, family;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		ctx_nl_close(nl);
		return -EPROTONOSUPPORT;
	}
	/* A READ with a row per CPU is larger than a page. */
	nl_socket_enable_msg_peek(nl->sk);
	/* Best effort: kernels before 4.12 have no extended acks. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	family = genl_ctrl_resolve(nl->sk, CTXCOUNT_GENL_NAME);
	if (family < 0) {
		ctx_nl_close(nl);
		return family == -NLE_OBJ_NOTFOUND ? -ENOENT : -EIO;
	}
	nl->family = family;
	nl->version = ctx_nl_family_version(nl);
	return 0;
}

void ctx_nl_close(struct ctx_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/* State of one request/response exchange. */
struct exchange {
	struct ctx_nl *nl;
	struct ctx_nl_reply *reply;
	struct ctx_nl_cpus *cpus;	/* a READ's per-CPU rows, or NULL */
	struct ctx_nl_threads *threads;	/* its per-thread rows, or NULL */
	bool dump;		/* answered by messages and NLMSG_DONE */
	int error;		/* kernel errno (negative) or parse failure */
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;
	int err;

	if (!x->reply)
		return NL_OK;
	/* A dump's messages add up; the reply was zeroed before the first. */
	if (x->dump)
		err = ctx_nl_parse_read_part(nlmsg_hdr(msg), x->reply, x->cpus);
	else
		err = ctx_nl_parse_reply_cpus(nlmsg_hdr(msg), x->reply, x->cpus);
	if (!err && x->threads)
		err = ctx_nl_parse_thread_part(nlmsg_hdr(msg), x->threads);
	/* The first failure counts; the answer is still read to its end. */
	if (err && !x->error)
		x->error = err == -E2BIG || err == -ENOMEM ? err : -EBADMSG;
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;

	(void)msg;
	x->done = true;
	return NL_STOP;
}

/* NLMSG_DONE: the dump's end, with its errno (and extended ack). */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(err)))
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err < 0) {
		ctx_nl_extack_msg(nlh, x->nl->extack, sizeof(x->nl->extack));
		x->error = err;
	}
	x->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct exchange *x = arg;
	/* libnl hands us the payload; the header sits right before it. */
	const struct nlmsghdr *nlh =
		(const struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);

	(void)nla;
	ctx_nl_extack_msg(nlh, x->nl->extack, sizeof(x->nl->extack));
	x->error = err->error ? err->error : -EIO;
	x->done = true;
	return NL_STOP;
}

/* Send @msg (consumed) and read its whole answer into @x. */
static int exchange(struct exchange *x, struct nl_msg *msg)
{
	struct ctx_nl *nl = x->nl;
	struct nl_cb *cb;
	int ret;

	nl->extack[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (nl->broken) {
		nlmsg_free(msg);
		snprintf(nl->extack, sizeof(nl->extack),
			 "an earlier answer of the module was lost");
		return -EIO;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, x);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, x);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, x);
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		x->error = -EIO;
	while (ret >= 0 && !x->done) {
		ret = nl_recvmsgs(nl->sk, cb);
		/*
		 * Lost (ENOBUFS: the socket's buffer overflowed and the
		 * kernel dropped a message), out of order or unreadable:
		 * whatever was left unread may be all that ever comes.
		 */
		if (ret < 0 && !x->done) {
			x->error = -EIO;
			nl->broken = true;
			snprintf(nl->extack, sizeof(nl->extack),
				 "the module's answer could not be read whole");
		}
	}
	nl_cb_put(cb);
	return x->error;
}

static int transact_cpus(struct ctx_nl *nl, struct nl_msg *msg,
			 struct ctx_nl_reply *reply, struct ctx_nl_cpus *cpus)
{
	struct exchange x = { .nl = nl, .reply = reply, .cpus = cpus };

	return exchange(&x, msg);
}

/*
 * READ as a dump: each message adds its part to @x's reply and rows; the
 * reply and the CPUs' rows are zeroed here first, the threads' appended to.
 */
static int read_dump(struct exchange *x, uint32_t session_id, uint32_t flags)
{
	x->dump = true;
	memset(x->reply, 0, sizeof(*x->reply));
	if (x->cpus)
		x->cpus->nr = 0;
	return exchange(x, ctx_nl_build_session_read_dump(x->nl->family,
							  session_id, flags));
}

int ctx_nl_transact(struct ctx_nl *nl, struct nl_msg *msg,
		    struct ctx_nl_reply *reply)
{
	return transact_cpus(nl, msg, reply, NULL);
}

int ctx_nl_session_new(struct ctx_nl *nl, const struct ctx_nl_target *target,
		       const struct ctx_nl_event_req *ev, int nr_events,
		       struct ctx_nl_reply *reply)
{
	return ctx_nl_transact(nl, ctx_nl_build_session_new(nl->family, target, ev,
						     nr_events), reply);
}

int ctx_nl_session_cmd(struct ctx_nl *nl, uint8_t cmd, uint32_t session_id)
{
	return ctx_nl_transact(nl, ctx_nl_build_session_cmd(nl->family, cmd,
						     session_id), NULL);
}

int ctx_nl_calibrate(struct ctx_nl *nl, uint32_t step)
{
	return ctx_nl_transact(nl, ctx_nl_build_calibrate(nl->family, step),
			       NULL);
}

/* Before version 5 a READ is one reply: only without a row per CPU. */
int ctx_nl_session_read(struct ctx_nl *nl, uint32_t session_id,
			struct ctx_nl_reply *reply)
{
	struct exchange x = { .nl = nl, .reply = reply };

	if (nl->version >= 5)
		return read_dump(&x, session_id, 0);
	return ctx_nl_transact(nl, ctx_nl_build_session_cmd(nl->family,
						     CTXCOUNT_CMD_SESSION_READ,
						     session_id), reply);
}

int ctx_nl_stats(struct ctx_nl *nl, struct ctx_nl_reply *reply)
{
	return ctx_nl_transact(nl, ctx_nl_build_stats(nl->family), reply);
}

int ctx_nl_session_read_cpus(struct ctx_nl *nl, uint32_t session_id,
			     struct ctx_nl_reply *reply,
			     struct ctx_nl_cpus *cpus)
{
	struct exchange x = { .nl = nl, .reply = reply, .cpus = cpus };

	return read_dump(&x, session_id, CTXCOUNT_READ_F_PER_CPU);
}

int ctx_nl_session_read_threads(struct ctx_nl *nl, uint32_t session_id,
				struct ctx_nl_reply *reply,
				struct ctx_nl_threads *threads)
{
	struct exchange x = { .nl = nl, .reply = reply, .threads = threads };

	return read_dump(&x, session_id, CTXCOUNT_READ_F_PER_THREAD);
}

int ctx_nl_family_version(struct ctx_nl *nl)
{
	struct genl_family *f;
	struct nl_cache *cache;
	int version;

	if (genl_ctrl_alloc_cache(nl->sk, &cache))
		return -EIO;
	f = genl_ctrl_search_by_name(cache, CTXCOUNT_GENL_NAME);
	version = f ? (int)genl_family_get_version(f) : -ENOENT;
	if (f)
		genl_family_put(f);
	nl_cache_free(cache);
	return version;
}
