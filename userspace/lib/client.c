// SPDX-License-Identifier: GPL-2.0
/*
 * client: talk to the ctxcount module over generic netlink (libnl-genl):
 * connect, and for each request send it (lib/msg.c builds it) and
 * collect its reply (lib/parse.c reads it), ack or error, with the
 * kernel's extended ack message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include "internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/*
 * The family's id and version, from a dump of the controller's families:
 * a GETFAMILY by name of a family not registered makes the kernel run
 * modprobe (request_module()) and wait for it, in the caller's context
 * (a ctxstat run hung there in D state when the module was unloaded
 * mid-run). Whether ctxcount is loaded is the administrator's choice,
 * made once, never a side effect of a user's ctxstat.
 */
static int family_lookup(struct ctxc_sock *nl, int *version)
{
	struct genl_family *f;
	struct nl_cache *cache;
	int id;

	if (genl_ctrl_alloc_cache(nl->sk, &cache))
		return -EIO;
	f = genl_ctrl_search_by_name(cache, CTXCOUNT_GENL_NAME);
	id = f ? (int)genl_family_get_id(f) : -ENOENT;
	if (f) {
		if (version)
			*version = (int)genl_family_get_version(f);
		genl_family_put(f);
	}
	nl_cache_free(cache);
	return id;
}

int ctxc_open(struct ctxc_sock *nl)
{
	int one = 1, family;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		ctxc_close(nl);
		return -EPROTONOSUPPORT;
	}
	/* A READ with a row per CPU is larger than a page. */
	nl_socket_enable_msg_peek(nl->sk);
	/* Best effort: kernels before 4.12 have no extended acks. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	family = family_lookup(nl, &nl->version);
	if (family < 0) {
		ctxc_close(nl);
		return family;
	}
	nl->family = family;
	return 0;
}

void ctxc_close(struct ctxc_sock *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/* State of one request/response exchange. */
struct exchange {
	struct ctxc_sock *nl;
	struct ctxc_reply *reply;
	struct ctxc_cpus *cpus;	/* a READ's per-CPU rows, or NULL */
	struct ctxc_thread_reader *threads;	/* its per-thread rows, or NULL */
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
		err = ctxc_parse_read_part(nlmsg_hdr(msg), x->reply, x->cpus);
	else
		err = ctxc_parse_reply_cpus(nlmsg_hdr(msg), x->reply, x->cpus);
	if (!err && x->threads)
		err = ctxc_parse_thread_part(nlmsg_hdr(msg), x->threads);
	/* The first failure counts; the answer is still read to its end. */
	if (err && !x->error)
		x->error = x->threads && x->threads->error ? x->threads->error :
			   err == -E2BIG || err == -ENOMEM ? err : -EBADMSG;
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
		ctxc_extack_msg(nlh, x->nl->extack, sizeof(x->nl->extack));
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
	ctxc_extack_msg(nlh, x->nl->extack, sizeof(x->nl->extack));
	x->error = err->error ? err->error : -EIO;
	x->done = true;
	return NL_STOP;
}

/* Send @msg (consumed) and read its whole answer into @x. */
static int exchange(struct exchange *x, struct nl_msg *msg)
{
	struct ctxc_sock *nl = x->nl;
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

static int transact_cpus(struct ctxc_sock *nl, struct nl_msg *msg,
			 struct ctxc_reply *reply, struct ctxc_cpus *cpus)
{
	struct exchange x = { .nl = nl, .reply = reply, .cpus = cpus };

	return exchange(&x, msg);
}

/*
 * READ as a dump: each message adds its part to @x's reply and rows; the
 * reply and the CPUs' rows are zeroed here first, the threads' handed
 * over as they come.
 */
static int read_dump(struct exchange *x, uint32_t session_id, uint32_t flags)
{
	x->dump = true;
	memset(x->reply, 0, sizeof(*x->reply));
	if (x->cpus)
		x->cpus->nr = 0;
	return exchange(x, ctxc_build_session_read_dump(x->nl->family,
							session_id, flags));
}

int ctxc_transact(struct ctxc_sock *nl, struct nl_msg *msg,
		  struct ctxc_reply *reply)
{
	return transact_cpus(nl, msg, reply, NULL);
}

int ctxc_session_new(struct ctxc_sock *nl, const struct ctxc_target *target,
		     const struct ctxc_event_req *ev, int nr_events,
		     struct ctxc_reply *reply)
{
	return ctxc_transact(nl, ctxc_build_session_new(nl->family, target, ev,
						     nr_events), reply);
}

int ctxc_session_cmd(struct ctxc_sock *nl, uint8_t cmd, uint32_t session_id)
{
	return ctxc_transact(nl, ctxc_build_session_cmd(nl->family, cmd,
						     session_id), NULL);
}

int ctxc_calibrate(struct ctxc_sock *nl, uint32_t step)
{
	return ctxc_transact(nl, ctxc_build_calibrate(nl->family, step),
			     NULL);
}

/* Before version 5 a READ is one reply: only without a row per CPU. */
int ctxc_session_read(struct ctxc_sock *nl, uint32_t session_id,
		      struct ctxc_reply *reply)
{
	struct exchange x = { .nl = nl, .reply = reply };

	if (nl->version >= 5)
		return read_dump(&x, session_id, 0);
	return ctxc_transact(nl, ctxc_build_session_cmd(nl->family,
						     CTXCOUNT_CMD_SESSION_READ,
						     session_id), reply);
}

int ctxc_stats(struct ctxc_sock *nl, struct ctxc_reply *reply)
{
	return ctxc_transact(nl, ctxc_build_stats(nl->family), reply);
}

int ctxc_session_read_cpus(struct ctxc_sock *nl, uint32_t session_id,
			   struct ctxc_reply *reply,
			   struct ctxc_cpus *cpus)
{
	struct exchange x = { .nl = nl, .reply = reply, .cpus = cpus };

	return read_dump(&x, session_id, CTXCOUNT_READ_F_PER_CPU);
}

int ctxc_session_read_threads(struct ctxc_sock *nl, uint32_t session_id,
			      struct ctxc_reply *reply,
			      ctxc_thread_fn fn, void *arg)
{
	/* a row is large (every event's every bucket): not on the stack */
	struct ctxc_thread_reader *rd = calloc(1, sizeof(*rd));
	struct exchange x = { .nl = nl, .reply = reply, .threads = rd };
	int err;

	if (!rd)
		return -ENOMEM;
	rd->fn = fn;
	rd->arg = arg;
	err = read_dump(&x, session_id, CTXCOUNT_READ_F_PER_THREAD);
	if (!err)
		err = ctxc_thread_reader_end(rd);
	free(rd);
	return err;
}

int ctxc_family_version(struct ctxc_sock *nl)
{
	int version = -ENOENT, id = family_lookup(nl, &version);

	return id < 0 ? id : version;
}
