// SPDX-License-Identifier: GPL-2.0
/*
 * Limits on what sessions may hold: per socket (everyone), and for
 * unprivileged senders per user (sessions, and counters = events x
 * possible CPUs) and over all of them.
 *
 * The kernel's per-user counts (ucounts' inc_ucount()) are not exported,
 * so users are counted here, keyed as ctx_limits_user() says, in a small
 * table of users that have sessions. Privileged senders (ctx_perm_
 * privileged()) are charged too, so that their sessions are visible, but
 * not refused: one user at a limit never stops another user or root.
 */
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "limits.h"

static unsigned int max_sessions = 256;
module_param(max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions,
		 "Live sessions of unprivileged users, all together (default 256)");

static unsigned int max_sessions_per_user = 16;
module_param(max_sessions_per_user, uint, 0644);
MODULE_PARM_DESC(max_sessions_per_user,
		 "Live sessions per unprivileged user (default 16)");

static unsigned int max_counters_per_user = 4096;
module_param(max_counters_per_user, uint, 0644);
MODULE_PARM_DESC(max_counters_per_user,
		 "Counters per unprivileged user: events x possible CPUs over its sessions (default 4096)");

static unsigned int max_sessions_per_socket = 8;
module_param(max_sessions_per_socket, uint, 0644);
MODULE_PARM_DESC(max_sessions_per_socket,
		 "Live sessions per netlink socket (default 8)");

/**
 * struct ctx_user - what one user's sessions hold
 * @uid: the user (ctx_limits_user())
 * @sessions: its live sessions
 * @counters: the counters (events x threads or CPUs) of those sent
 *	unprivileged, which the per-user limits hold
 * @limited: how many of @sessions were sent unprivileged: a privileged
 *	sender charged to the same user (root, and the users of a user
 *	namespace root made) takes nothing of their allowance
 * @node: in ctx_users
 */
struct ctx_user {
	kuid_t uid;
	unsigned int sessions;
	unsigned int counters;
	unsigned int limited;
	struct hlist_node node;
};

static DEFINE_MUTEX(ctx_limits_lock);
static DEFINE_HASHTABLE(ctx_users, 6);
/* Sessions of unprivileged senders, for max_sessions. */
static unsigned int ctx_unprivileged_sessions;

static struct ctx_user *ctx_user_find(kuid_t uid)
{
	struct ctx_user *u;

	hash_for_each_possible(ctx_users, u, node, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid))
			return u;
	}
	return NULL;
}

/* The limits of unprivileged users. */
static int ctx_limits_check(const struct ctx_user *u, unsigned int counters,
			    struct netlink_ext_ack *extack)
{
	if (u && u->limited >= READ_ONCE(max_sessions_per_user)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many sessions of this user (module parameter max_sessions_per_user)");
		return -ENOSPC;
	}
	if ((u ? u->counters : 0) + counters >
	    READ_ONCE(max_counters_per_user)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many counters for this user, events x threads or CPUs (module parameter max_counters_per_user)");
		return -ENOSPC;
	}
	if (ctx_unprivileged_sessions >= READ_ONCE(max_sessions)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many sessions of unprivileged users (module parameter max_sessions)");
		return -ENOSPC;
	}
	return 0;
}

/*
 * ctx_limits_user() - the user the sender's sessions count for
 *
 * In the initial user namespace, the sender's real uid. In another, the
 * owner of the namespace just below the initial one: ucounts charge what
 * a namespace's users hold to its owner at every level up to the initial
 * namespace, so a user's subordinate uids (newuidmap) and the namespaces
 * it makes share its one allowance instead of getting one each.
 *
 * Context: the sender's process context.
 * Return: the user charged.
 */
static kuid_t ctx_limits_user(void)
{
	const struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns)
		return current_uid();
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

/**
 * ctx_limits_charge() - count a new session against its user's limits
 * @charge: filled with what was charged, for ctx_limits_uncharge()
 * @counters: the session's counters: events x threads of the target, or
 *	events x CPUs counted
 * @privileged: the sender may exceed the limits (ctx_perm_privileged())
 * @socket_sessions: sessions the sending socket already has
 * @extack: names the limit that was reached
 *
 * Context: the sender's process context (its uid), may sleep.
 * Return: 0, -ENOSPC (a limit) or -ENOMEM; nothing is charged on error.
 */
int ctx_limits_charge(struct ctx_charge *charge, unsigned int counters,
		      bool privileged, unsigned int socket_sessions,
		      struct netlink_ext_ack *extack)
{
	kuid_t uid = ctx_limits_user();
	struct ctx_user *u, *fresh;
	int err = 0;

	/* Allocated before the lock, under the sender's memory cgroup. */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;
	mutex_lock(&ctx_limits_lock);
	u = ctx_user_find(uid);
	/* A socket is one client: everyone's is limited. */
	if (socket_sessions >= READ_ONCE(max_sessions_per_socket)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many sessions on this socket (module parameter max_sessions_per_socket)");
		err = -ENOSPC;
		goto out_unlock;
	}
	if (!privileged)
		err = ctx_limits_check(u, counters, extack);
	if (err)
		goto out_unlock;
	if (!u) {
		u = fresh;
		fresh = NULL;
		u->uid = uid;
		hash_add(ctx_users, &u->node, __kuid_val(uid));
	}
	u->sessions++;
	if (!privileged) {
		u->limited++;
		u->counters += counters;
		ctx_unprivileged_sessions++;
	}
	charge->uid = uid;
	charge->sender = current_uid();
	charge->counters = counters;
	charge->privileged = privileged;
out_unlock:
	mutex_unlock(&ctx_limits_lock);
	kfree(fresh);
	return err;
}

/**
 * ctx_limits_uncharge() - a session charged by ctx_limits_charge() is gone
 * @charge: what was charged
 *
 * Context: process context, may sleep.
 */
void ctx_limits_uncharge(const struct ctx_charge *charge)
{
	struct ctx_user *u;

	mutex_lock(&ctx_limits_lock);
	u = ctx_user_find(charge->uid);
	if (!WARN_ON_ONCE(!u)) {
		u->sessions--;
		if (!charge->privileged) {
			u->limited--;
			u->counters -= charge->counters;
		}
		if (!u->sessions) {
			hash_del(&u->node);
			kfree(u);
		}
	}
	if (!charge->privileged)
		ctx_unprivileged_sessions--;
	mutex_unlock(&ctx_limits_lock);
}
