// SPDX-License-Identifier: GPL-2.0
/*
 * The "ctxcount" generic netlink family (include/uapi/linux/ctxcount.h):
 * the handlers and their policies (SESSION_NEW's request is parsed in
 * nlrequest.c, the replies are built in nlreply.c), and the
 * NETLINK_URELEASE notifier that destroys a closed socket's sessions.
 */
#include <linux/cpumask.h>
#include <linux/ctxcount.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "calib.h"
#include "calib_est.h"
#include "compat.h"
#include "hooks.h"
#include "irqsrc.h"
#include "netlink.h"
#include "nlreply.h"
#include "nlrequest.h"
#include "perm.h"
#include "session.h"

static const struct nla_policy ctx_nl_session_policy[CTXCOUNT_A_MAX + 1] = {
	[CTXCOUNT_A_SESSION_ID] = NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy ctx_nl_read_policy[CTXCOUNT_A_MAX + 1] = {
	[CTXCOUNT_A_SESSION_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	/* Checked in ctx_nl_session_read(): unknown bits are -EOPNOTSUPP. */
	[CTXCOUNT_A_READ_FLAGS] = { .type = NLA_U32 },
};

/*
 * STATS takes no attribute. Not left to generic netlink's reject-all
 * policy for ops without one: 7.2 pairs that one-entry array with the
 * family's maxattr (6.1 and 6.12 with maxattr 1), so an attribute of a type
 * past 0 had validation and policy dumps read past its end (kernel BUG at
 * lib/nlattr.c, "BUG_ON(pt->type > NLA_TYPE_MAX)").
 */
static const struct nla_policy ctx_nl_stats_policy[CTXCOUNT_A_MAX + 1] = {
	[1 ... CTXCOUNT_A_MAX] = { .type = NLA_REJECT },
};

static const struct nla_policy ctx_nl_calibrate_policy[CTXCOUNT_A_MAX + 1] = {
	[CTXCOUNT_A_SESSION_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[CTXCOUNT_A_CALIBRATE] = NLA_POLICY_RANGE(NLA_U32,
						  CTXCOUNT_CALIBRATE_QUIET_BEGIN,
						  CTXCOUNT_CALIBRATE_MAX),
};

static struct genl_family ctx_nl_family;

static void ctx_nl_owner(const struct sk_buff *skb, struct genl_info *info,
			 struct ctx_owner *owner)
{
	owner->net = genl_info_net(info);
	owner->portid = info->snd_portid;
	/* The sending socket (netlink_unicast_kernel() sets it). */
	owner->sk = NETLINK_CB(skb).sk;
}

/*
 * The requester's socket takes a message whatever its size when nothing
 * is queued, but drops what comes after it once its receive buffer is
 * full: the reply's ack, which the client then waits for in vain (a
 * READ with a row per CPU on 16 CPUs did that to libnl's 64 KiB buffer,
 * issue 24). A reply over a page that leaves no room for the ack is
 * refused (smaller ones, as before: NEW's and STATS' always are).
 */
static int ctx_nl_room_for_ack(const struct sk_buff *skb,
			       const struct sk_buff *msg,
			       struct netlink_ext_ack *extack)
{
	const struct sock *sk = NETLINK_CB(skb).sk;

	if (msg->len <= NLMSG_GOODSIZE ||
	    msg->truesize + SKB_TRUESIZE(1024) <= READ_ONCE(sk->sk_rcvbuf))
		return 0;
	NL_SET_ERR_MSG_MOD(extack,
			   "reply too large for the socket's receive buffer: READ as a dump (NLM_F_DUMP)");
	return -EMSGSIZE;
}

/* Reply to @info with what @fill puts after the genl header. */
static int ctx_nl_reply(struct sk_buff *skb, struct genl_info *info,
			size_t size,
			int (*fill)(struct sk_buff *msg, const void *data),
			const void *data)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(size, GFP_KERNEL | __GFP_NOWARN);
	if (!msg) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no memory for the reply: READ as a dump (NLM_F_DUMP)");
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &ctx_nl_family, 0,
				info->genlhdr->cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}
	err = fill(msg, data);
	if (err)
		goto err_free;
	genlmsg_end(msg, hdr);
	err = ctx_nl_room_for_ack(skb, msg, info->extack);
	if (err)
		goto err_free;
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static int ctx_nl_session_new(struct sk_buff *skb, struct genl_info *info)
{
	struct ctx_session_report *rep;
	struct ctx_new_req *nreq;
	int err;

	nreq = kzalloc(sizeof(*nreq), GFP_KERNEL);
	rep = kzalloc(sizeof(*rep), GFP_KERNEL);
	if (!nreq || !rep) {
		err = -ENOMEM;
		goto out_free;
	}
	err = ctx_nl_parse_new(info, nreq);
	if (err)
		goto out_free;
	ctx_nl_owner(skb, info, &nreq->owner);
	nreq->privileged = ctx_perm_privileged(skb);
	err = ctx_session_new(nreq, rep, info->extack);
	if (err)
		goto out_free;
	err = ctx_nl_reply(skb, info, ctx_nl_new_size(nreq->nr_events),
			   ctx_nl_fill_new, rep);
	/* The client never learns the id: do not leave the session behind. */
	if (err)
		ctx_session_del(&nreq->owner, rep->id, NULL);
out_free:
	kfree(rep);
	if (nreq)
		kfree(nreq->target.cpus);
	kfree(nreq);
	return err;
}

static int ctx_nl_session_id(struct genl_info *info, u32 *id)
{
	if (GENL_REQ_ATTR_CHECK(info, CTXCOUNT_A_SESSION_ID)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing session id");
		return -EINVAL;
	}
	*id = nla_get_u32(info->attrs[CTXCOUNT_A_SESSION_ID]);
	return 0;
}

/* On -ENOENT the extack names the session id attribute. */
static int ctx_nl_session_err(struct genl_info *info, int err)
{
	if (err == -ENOENT)
		NL_SET_BAD_ATTR(info->extack,
				info->attrs[CTXCOUNT_A_SESSION_ID]);
	return err;
}

/* START, STOP and DEL: a session id in, nothing but the ack out. */
static int ctx_nl_session_op(struct sk_buff *skb, struct genl_info *info,
			     int (*op)(const struct ctx_owner *owner, u32 id,
				       struct netlink_ext_ack *extack))
{
	struct ctx_owner owner;
	u32 id;
	int err;

	err = ctx_nl_session_id(info, &id);
	if (err)
		return err;
	ctx_nl_owner(skb, info, &owner);
	err = op(&owner, id, info->extack);
	return ctx_nl_session_err(info, err);
}

static int ctx_nl_session_start(struct sk_buff *skb, struct genl_info *info)
{
	return ctx_nl_session_op(skb, info, ctx_session_start);
}

static int ctx_nl_session_stop(struct sk_buff *skb, struct genl_info *info)
{
	return ctx_nl_session_op(skb, info, ctx_session_stop);
}

static int ctx_nl_session_del(struct sk_buff *skb, struct genl_info *info)
{
	return ctx_nl_session_op(skb, info, ctx_session_del);
}

/*
 * READ's request attributes @tb (SESSION_ID, optional READ_FLAGS): the
 * session's state now, with a row per CPU if asked.
 */
static struct ctx_session_report *ctx_nl_read(const struct ctx_owner *owner,
					      struct nlattr **tb,
					      struct netlink_ext_ack *extack)
{
	const struct nlattr *id = tb[CTXCOUNT_A_SESSION_ID];
	struct ctx_session_report *rep;
	u32 flags;

	if (NL_REQ_ATTR_CHECK(extack, NULL, tb, CTXCOUNT_A_SESSION_ID)) {
		NL_SET_ERR_MSG_MOD(extack, "missing session id");
		return ERR_PTR(-EINVAL);
	}
	flags = ctx_nla_get_u32_or_0(tb[CTXCOUNT_A_READ_FLAGS]);
	if (flags & ~__CTXCOUNT_READ_F_ALL) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CTXCOUNT_A_READ_FLAGS],
				    "unknown read flags");
		return ERR_PTR(-EOPNOTSUPP);
	}
	rep = ctx_session_read(owner, nla_get_u32(id), flags, extack);
	if (PTR_ERR_OR_ZERO(rep) == -ENOENT)
		NL_SET_BAD_ATTR(extack, id);
	return rep;
}

static int ctx_nl_session_read(struct sk_buff *skb, struct genl_info *info)
{
	struct ctx_session_report *rep;
	struct ctx_owner owner;
	int err;

	ctx_nl_owner(skb, info, &owner);
	rep = ctx_nl_read(&owner, info->attrs, info->extack);
	if (IS_ERR(rep))
		return PTR_ERR(rep);
	err = ctx_nl_reply(skb, info, ctx_nl_read_size(rep), ctx_nl_fill_read,
			   rep);
	ctx_session_report_free(rep);
	return err;
}

/**
 * struct ctx_nl_dump - a READ dump between its messages (in cb->ctx)
 * @rep: the session's state when the dump started: every message comes
 *	from this one READ, so the parts add up as its reply's do
 * @err: the READ failed (no such session, bad flags): said in NLMSG_DONE
 * @err_msg: and why (a static string)
 * @pos: how far the messages have come
 */
struct ctx_nl_dump {
	struct ctx_session_report *rep;
	const char *err_msg;
	int err;
	struct ctx_nl_read_pos pos;
};

static struct ctx_nl_dump *ctx_nl_dump_of(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct ctx_nl_dump) > sizeof(cb->ctx));
	return (struct ctx_nl_dump *)cb->ctx;
}

/*
 * READ with NLM_F_DUMP: the session is read here, once; the messages
 * are cut from that report as the reader takes them (ctx_nl_read_dump).
 * A refusal is kept for the dump's first call, whose extended ack goes
 * into NLMSG_DONE: the start's has no way to the client on 6.1.
 */
static int ctx_nl_read_start(struct netlink_callback *cb)
{
	struct ctx_nl_dump *d = ctx_nl_dump_of(cb);
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct netlink_ext_ack extack = {};
	struct ctx_session_report *rep;
	struct ctx_owner owner = {
		.net = sock_net(cb->skb->sk),
		.portid = NETLINK_CB(cb->skb).portid,
		.sk = NETLINK_CB(cb->skb).sk,
	};

	memset(d, 0, sizeof(*d));
	/* The attributes as the genl core checked them, on every kernel. */
	d->err = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, CTXCOUNT_A_MAX,
			     ctx_nl_read_policy, &extack);
	if (!d->err) {
		rep = ctx_nl_read(&owner, tb, &extack);
		if (IS_ERR(rep))
			d->err = PTR_ERR(rep);
		else
			d->rep = rep;
	}
	d->err_msg = extack._msg;
	return 0;
}

/*
 * As many messages as @skb holds, each at most NLMSG_GOODSIZE (a page
 * with the skb's overhead) whatever the reader's buffer: the core sizes
 * @skb, never more than 32 KiB, and a CPU's nest of 16 events is bigger
 * than a page.
 */
static int ctx_nl_read_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ctx_nl_dump *d = ctx_nl_dump_of(cb);
	unsigned int start;
	void *hdr;

	if (d->err) {
		if (cb->extack)
			cb->extack->_msg = d->err_msg;
		return d->err;
	}
	while (d->pos.part != CTX_NL_PART_DONE) {
		start = skb->len;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ctx_nl_family,
				  NLM_F_MULTI, CTXCOUNT_CMD_SESSION_READ);
		if (!hdr)
			break;
		if (ctx_nl_fill_read_part(skb, d->rep, &d->pos,
					  start + NLMSG_GOODSIZE)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	/* An item no message can hold ends the dump rather than loop. */
	if (!skb->len && d->pos.part != CTX_NL_PART_DONE)
		return -EMSGSIZE;
	return skb->len;
}

static int ctx_nl_read_done(struct netlink_callback *cb)
{
	ctx_session_report_free(ctx_nl_dump_of(cb)->rep);
	return 0;
}

/*
 * A user-mode calibration step (calib.c): module-wide, and only for a
 * privileged caller, as it fires interrupts at the caller's CPU. The
 * session id of older clients is ignored.
 */
static int ctx_nl_session_calibrate(struct sk_buff *skb,
				    struct genl_info *info)
{
	const void *owner = NETLINK_CB(skb).sk;
	u32 step;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, CTXCOUNT_A_CALIBRATE)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing calibration step");
		return -EINVAL;
	}
	if (!ctx_perm_privileged(skb)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "calibration needs CAP_PERFMON or CAP_SYS_ADMIN");
		return -EPERM;
	}
	step = nla_get_u32(info->attrs[CTXCOUNT_A_CALIBRATE]);
	if (step == CTXCOUNT_CALIBRATE_END) {
		err = ctx_calib_user_end(owner);
		if (err == -EINVAL)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "calibration end without its begin");
		return err;
	}
	err = ctx_calib_user_begin(owner,
				   step == CTXCOUNT_CALIBRATE_STORM_BEGIN);
	if (err == -EBUSY)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "another client is calibrating");
	else if (err == -ENODEV)
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no event measured on this CPU's type");
	return err;
}

static int ctx_nl_fill_stats(struct sk_buff *msg, const void *data)
{
	const bool *privileged = data;

	if (nla_put_u32(msg, CTXCOUNT_A_STATS_SESSIONS,
			ctx_session_count(*privileged)) ||
	    nla_put_u32(msg, CTXCOUNT_A_STATS_FEATURES,
			ctx_hooks_features() | ctx_irqsrc_features() |
			ctx_calib_features()))
		return -EMSGSIZE;
	return 0;
}

static int ctx_nl_stats(struct sk_buff *skb, struct genl_info *info)
{
	bool privileged = ctx_perm_privileged(skb);

	return ctx_nl_reply(skb, info, 2 * nla_total_size(sizeof(u32)),
			    ctx_nl_fill_stats, &privileged);
}

/*
 * No GENL_ADMIN_PERM: unprivileged users may count what perf_event_open()
 * gives them; SESSION_NEW checks the proofs (perm.c).
 */
static const struct genl_ops ctx_nl_ops[] = {
	{
		.cmd = CTXCOUNT_CMD_SESSION_NEW,
		.doit = ctx_nl_session_new,
		.policy = ctx_nl_new_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
	{
		.cmd = CTXCOUNT_CMD_SESSION_START,
		.doit = ctx_nl_session_start,
		.policy = ctx_nl_session_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
	{
		.cmd = CTXCOUNT_CMD_SESSION_STOP,
		.doit = ctx_nl_session_stop,
		.policy = ctx_nl_session_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
	{
		.cmd = CTXCOUNT_CMD_SESSION_READ,
		.doit = ctx_nl_session_read,
		.start = ctx_nl_read_start,
		.dumpit = ctx_nl_read_dump,
		.done = ctx_nl_read_done,
		.policy = ctx_nl_read_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
	{
		.cmd = CTXCOUNT_CMD_SESSION_DEL,
		.doit = ctx_nl_session_del,
		.policy = ctx_nl_session_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
	{
		.cmd = CTXCOUNT_CMD_STATS,
		.doit = ctx_nl_stats,
		.policy = ctx_nl_stats_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
	{
		.cmd = CTXCOUNT_CMD_SESSION_CALIBRATE,
		.doit = ctx_nl_session_calibrate,
		.policy = ctx_nl_calibrate_policy,
		.maxattr = CTXCOUNT_A_MAX,
	},
};

static struct genl_family ctx_nl_family __ro_after_init = {
	.name		= CTXCOUNT_GENL_NAME,
	.version	= CTXCOUNT_GENL_VERSION,
	.maxattr	= CTXCOUNT_A_MAX,
	.netnsok	= true,
	.module		= THIS_MODULE,
	/*
	 * Requests do not take genl_mutex: a SESSION_NEW waits for a target's
	 * exec and for counters, and would hold up every other generic
	 * netlink family. Sessions have their own locks; nothing here relies
	 * on genl_mutex (replies go to the requesting socket, the family is
	 * only registered and unregistered at module init and exit, which
	 * wait for requests in flight).
	 */
	.parallel_ops	= true,
	.ops		= ctx_nl_ops,
	.n_ops		= ARRAY_SIZE(ctx_nl_ops),
	/* Strict validation, reserved header fields must be 0: every op. */
	.resv_start_op	= CTXCOUNT_CMD_UNSPEC + 1,
};

static int ctx_nl_notify(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	const struct netlink_notify *n = ptr;
	/* No socket here: the sessions of the port id's dead socket go. */
	struct ctx_owner owner = { .net = n->net, .portid = n->portid };

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	ctx_session_release_owner(&owner);
	return NOTIFY_DONE;
}

static struct notifier_block ctx_nl_notifier = {
	.notifier_call = ctx_nl_notify,
};

/**
 * ctx_netlink_register() - register the family and the release notifier
 *
 * Context: module init, after the hooks.
 * Return: 0 or a negative errno.
 */
int ctx_netlink_register(void)
{
	int err;

	err = netlink_register_notifier(&ctx_nl_notifier);
	if (err)
		return err;
	err = genl_register_family(&ctx_nl_family);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	netlink_unregister_notifier(&ctx_nl_notifier);
	return err;
}

/**
 * ctx_netlink_unregister() - unregister the family and the notifier
 *
 * After this no request is running and no socket release reaches the
 * module; sessions that are left are destroyed by the caller.
 *
 * Context: module exit.
 */
void ctx_netlink_unregister(void)
{
	genl_unregister_family(&ctx_nl_family);
	netlink_unregister_notifier(&ctx_nl_notifier);
}
