// SPDX-License-Identifier: GPL-2.0
/*
 * parse-sources: per-source nests of a READ reply (see internal.h). Ids are
 * the session's: they index the arrays directly, the fixed ids included.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static bool valid_id(int id)
{
	return id >= CTXCOUNT_SOURCE_ID_OUTSIDE && id <= CTXCOUNT_SOURCE_ID_MAX;
}

int ctxc_parse_source_values(struct nlattr *nest, uint64_t *by_id)
{
	struct nlattr *a;
	int rem, id;

	nla_for_each_nested(a, nest, rem) {
		id = nla_type(a);
		if (id == CTXCOUNT_SOURCE_ID_UNSPEC)	/* padding */
			continue;
		if (!valid_id(id) || nla_len(a) < (int)sizeof(uint64_t))
			return -EINVAL;
		by_id[id] = nla_get_u64(a);
	}
	return 0;
}

static struct nla_policy source_policy[CTXCOUNT_SOURCE_A_MAX + 1] = {
	[CTXCOUNT_SOURCE_A_ID]		= { .type = NLA_U32 },
	[CTXCOUNT_SOURCE_A_KIND]	= { .type = NLA_U32 },
	[CTXCOUNT_SOURCE_A_IRQ]		= { .type = NLA_U32 },
	[CTXCOUNT_SOURCE_A_HWIRQ]	= { .type = NLA_U64 },
	[CTXCOUNT_SOURCE_A_NAME]	= { .type = NLA_STRING },
	[CTXCOUNT_SOURCE_A_COUNT]	= { .type = NLA_U64 },
};

static int parse_source(struct nlattr *attr, struct ctxc_source *src)
{
	struct nlattr *tb[CTXCOUNT_SOURCE_A_MAX + 1];
	struct ctxc_source *s;
	uint32_t id;

	if (nla_parse_nested(tb, CTXCOUNT_SOURCE_A_MAX, attr, source_policy) ||
	    !tb[CTXCOUNT_SOURCE_A_ID])
		return -EINVAL;
	id = nla_get_u32(tb[CTXCOUNT_SOURCE_A_ID]);
	if (!valid_id(id))
		return -EINVAL;
	s = &src[id];
	memset(s, 0, sizeof(*s));
	s->present = true;
	if (tb[CTXCOUNT_SOURCE_A_KIND])
		s->kind = nla_get_u32(tb[CTXCOUNT_SOURCE_A_KIND]);
	if (tb[CTXCOUNT_SOURCE_A_IRQ])
		s->irq = nla_get_u32(tb[CTXCOUNT_SOURCE_A_IRQ]);
	if (tb[CTXCOUNT_SOURCE_A_HWIRQ]) {
		s->has_hwirq = true;
		s->hwirq = nla_get_u64(tb[CTXCOUNT_SOURCE_A_HWIRQ]);
	}
	if (tb[CTXCOUNT_SOURCE_A_NAME])
		nla_strlcpy(s->name, tb[CTXCOUNT_SOURCE_A_NAME], sizeof(s->name));
	if (tb[CTXCOUNT_SOURCE_A_COUNT])
		s->count = nla_get_u64(tb[CTXCOUNT_SOURCE_A_COUNT]);
	return 0;
}

int ctxc_parse_sources(struct nlattr *nest, struct ctxc_source *src)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != CTXCOUNT_SOURCES_A_SOURCE)
			continue;
		if (parse_source(a, src))
			return -EINVAL;
	}
	return 0;
}
