/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_NETLINK_H
#define _CTXCOUNT_NETLINK_H

int ctx_netlink_register(void);
void ctx_netlink_unregister(void);

#endif /* _CTXCOUNT_NETLINK_H */
