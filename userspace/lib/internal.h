/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal: what libctxcount's files share and the host tests check, not
 * its interface (include/ctxcount/ctxcount.h): the messages built and
 * parsed as libnl messages. Building and parsing are functions of their
 * arguments alone, so that the tests can check them without the module;
 * lib/client.c sends and receives them.
 */
#ifndef LIBCTXCOUNT_INTERNAL_H
#define LIBCTXCOUNT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <ctxcount/ctxcount.h>

/* Message builders: NULL on allocation failure. */
struct nl_msg *ctxc_build_session_new(int family,
				      const struct ctxc_target *target,
				      const struct ctxc_event_req *ev,
				      int nr_events);
struct nl_msg *ctxc_build_session_cmd(int family, uint8_t cmd,
				      uint32_t session_id);
/* A SESSION_READ with CTXCOUNT_A_READ_FLAGS @flags (sent when not 0). */
struct nl_msg *ctxc_build_session_read(int family, uint32_t session_id,
				       uint32_t flags);
/* The same as a dump (NLM_F_DUMP, version 5): answered part by part. */
struct nl_msg *ctxc_build_session_read_dump(int family, uint32_t session_id,
					    uint32_t flags);
struct nl_msg *ctxc_build_stats(int family);
/* A CALIBRATE step (module-wide since protocol version 5: no session). */
struct nl_msg *ctxc_build_calibrate(int family, uint32_t step);

/* Parse a reply (SESSION_NEW, SESSION_READ or STATS); 0 or -EINVAL. */
int ctxc_parse_reply(struct nlmsghdr *nlh, struct ctxc_reply *r);
/*
 * The same, and a READ's CTXCOUNT_A_CPU nests into @cpus: 0, -EINVAL, or
 * -E2BIG (more CPUs than @cpus has room for).
 */
int ctxc_parse_reply_cpus(struct nlmsghdr *nlh, struct ctxc_reply *r,
			  struct ctxc_cpus *cpus);

/*
 * One message of a READ dump added to @r and @cpus (NULL: no per-CPU
 * rows), which hold the earlier ones' (zeroed before the first): a CPU
 * nest with the CPU of the last row filled continues that row. 0,
 * -EINVAL, or -E2BIG (more CPUs than @cpus has room for).
 */
int ctxc_parse_read_part(struct nlmsghdr *nlh, struct ctxc_reply *r,
			 struct ctxc_cpus *cpus);

/*
 * A READ's thread rows, handed to @fn one by one: a dump may split a
 * row over nests and messages, so a row is whole only when the next one
 * begins, or when the dump ends (ctxc_thread_reader_end()). One row
 * lives here at a time, whatever the number of threads.
 */
struct ctxc_thread_reader {
	ctxc_thread_fn fn;
	void *arg;
	int error;		/* @fn's, which ends the rows */
	bool has_row;		/* @row not handed over yet */
	struct ctxc_thread_val row;
};

/*
 * The CTXCOUNT_A_THREAD nests of one READ message (a reply, or a dump's
 * part) into @rd: a nest with the tid of the row being read continues
 * it; any other hands that row to @rd->fn and begins a new one. 0,
 * -EINVAL, or @fn's error (then in @rd->error, and no more calls).
 */
int ctxc_parse_thread_part(struct nlmsghdr *nlh, struct ctxc_thread_reader *rd);

/* The READ's end: its last row to @rd->fn. 0 or @fn's error. */
int ctxc_thread_reader_end(struct ctxc_thread_reader *rd);

/*
 * Copy the NLMSGERR_ATTR_MSG of an NLMSG_ERROR or NLMSG_DONE message into
 * @buf; returns its length, 0 when there is none.
 */
int ctxc_extack_msg(const struct nlmsghdr *nlh, char *buf, size_t len);

/*
 * The per-source hardirq nests of a READ reply (CTXCOUNT_A_SOURCES,
 * CTXCOUNT_EVENT_A_SOURCES, CTXCOUNT_CPU_A_SOURCE_COUNTS), for
 * lib/parse.c. Values land in arrays indexed by source id; an id outside
 * the protocol's range makes the reply malformed rather than silently
 * short. A nest of NLA_U64 typed by source id into @by_id: 0 or -EINVAL.
 */
int ctxc_parse_source_values(struct nlattr *nest, uint64_t *by_id);

/* CTXCOUNT_A_SOURCES into @src (by id): 0 or -EINVAL. */
int ctxc_parse_sources(struct nlattr *nest, struct ctxc_source *src);

/*
 * Send @msg (consumed) and collect its reply into @reply (may be NULL):
 * 0 or the kernel's negative errno, as the transactions of ctxcount.h.
 */
int ctxc_transact(struct ctxc_sock *nl, struct nl_msg *msg,
		  struct ctxc_reply *reply);

#endif
