/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_NLREPLY_H
#define _CTXCOUNT_NLREPLY_H

#include <linux/types.h>

struct sk_buff;
struct ctx_session_report;

size_t ctx_nl_new_size(unsigned int nr_events);
int ctx_nl_fill_new(struct sk_buff *msg, const void *data);
size_t ctx_nl_read_size(const struct ctx_session_report *rep);
int ctx_nl_fill_read(struct sk_buff *msg, const void *data);

#endif /* _CTXCOUNT_NLREPLY_H */
