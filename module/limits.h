/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_LIMITS_H
#define _CTXCOUNT_LIMITS_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct netlink_ext_ack;

/**
 * struct ctx_charge - what a session counts against its user's limits
 * @uid: the user charged (limits.c: the sender, or its user namespace's owner)
 * @sender: the sender's real uid, whose sessions STATS counts for it
 * @counters: counters charged (events x threads or CPUs)
 * @privileged: the sender could exceed the limits; not part of the total
 *	of unprivileged sessions
 */
struct ctx_charge {
	kuid_t uid;
	kuid_t sender;
	unsigned int counters;
	bool privileged;
};

int ctx_limits_charge(struct ctx_charge *charge, unsigned int counters,
		      bool privileged, unsigned int socket_sessions,
		      struct netlink_ext_ack *extack);
void ctx_limits_uncharge(const struct ctx_charge *charge);

#endif /* _CTXCOUNT_LIMITS_H */
