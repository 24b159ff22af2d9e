/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlsources: the parsers of a READ reply's per-source hardirq nests
 * (CTXCOUNT_A_SOURCES, CTXCOUNT_EVENT_A_SOURCES,
 * CTXCOUNT_CPU_A_SOURCE_COUNTS), for lib/nlclient.c. Values land in arrays
 * indexed by source id; an id outside the protocol's range makes the
 * reply malformed rather than silently short.
 */
#ifndef CTXSTAT_LIB_NLSOURCES_H
#define CTXSTAT_LIB_NLSOURCES_H

#include <stdint.h>
#include <netlink/attr.h>

#include "lib/nlclient.h"

/* A nest of NLA_U64 typed by source id into @by_id: 0 or -EINVAL. */
int ctx_nl_parse_source_values(struct nlattr *nest, uint64_t *by_id);

/* CTXCOUNT_A_SOURCES into @src (by id): 0 or -EINVAL. */
int ctx_nl_parse_sources(struct nlattr *nest, struct ctx_nl_source *src);

#endif
