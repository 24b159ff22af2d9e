/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_NLREPLY_H
#define _CTXCOUNT_NLREPLY_H

#include <linux/types.h>

struct sk_buff;
struct ctx_session_report;

/* The parts of a SESSION_READ, in order. */
enum ctx_nl_read_part {
	CTX_NL_PART_HEAD,
	CTX_NL_PART_EVENTS,
	CTX_NL_PART_SOURCES,
	CTX_NL_PART_CPUS,
	CTX_NL_PART_THREADS,
	CTX_NL_PART_DONE,
};

/**
 * struct ctx_nl_read_pos - how far a SESSION_READ dump has come
 * @part: enum ctx_nl_read_part
 * @item: the next event (of the totals, or of CPU or thread row @row: 0
 *	also means its header) or source
 * @row: the next CPU or thread row
 */
struct ctx_nl_read_pos {
	u32 part;
	u32 item;
	u32 row;
};

size_t ctx_nl_new_size(unsigned int nr_events);
int ctx_nl_fill_new(struct sk_buff *msg, const void *data);
size_t ctx_nl_read_size(const struct ctx_session_report *rep);
int ctx_nl_fill_read(struct sk_buff *msg, const void *data);
int ctx_nl_fill_read_part(struct sk_buff *msg,
			  const struct ctx_session_report *rep,
			  struct ctx_nl_read_pos *pos, unsigned int limit);

#endif /* _CTXCOUNT_NLREPLY_H */
