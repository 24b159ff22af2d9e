/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_NLREQUEST_H
#define _CTXCOUNT_NLREQUEST_H

#include <linux/ctxcount.h>
#include <net/genetlink.h>
#include <net/netlink.h>

struct ctx_new_req;

extern const struct nla_policy ctx_nl_new_policy[CTXCOUNT_A_MAX + 1];

int ctx_nl_parse_new(struct genl_info *info, struct ctx_new_req *nreq);

/* For optional attributes: absent means 0. */
static inline u32 ctx_nla_get_u32_or_0(const struct nlattr *attr)
{
	return attr ? nla_get_u32(attr) : 0;
}

#endif /* _CTXCOUNT_NLREQUEST_H */
