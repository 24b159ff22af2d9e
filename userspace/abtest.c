// SPDX-License-Identifier: GPL-2.0
/*
 * abtest: from two kept samples per event to a verdict. B is compared
 * against A; for every event more is slower (more cycles, instructions,
 * cache misses, clock time, context switches...).
 */
#include <math.h>
#include <string.h>

#include "abtest.h"

bool ctx_abba_is_b(int i)
{
	return ((i / 2) & 1) ^ (i & 1);
}

enum ctx_verdict ctx_verdict_of(const struct ctx_welch *w, double alpha)
{
	if (!(w->p < alpha))
		return CTX_VERDICT_SAME;
	return w->diff > 0 ? CTX_VERDICT_SLOWER : CTX_VERDICT_FASTER;
}

const char *ctx_verdict_name(enum ctx_verdict v)
{
	switch (v) {
	case CTX_VERDICT_SAME:
		return "no significant change";
	case CTX_VERDICT_SLOWER:
		return "slower";
	case CTX_VERDICT_FASTER:
		return "faster";
	default:
		return "too few runs";
	}
}

static bool separated(const struct ctx_sample *a, const struct ctx_sample *b,
		      int k, double alpha)
{
	struct ctx_sample ka = ctx_sample_view(a->v, k);
	struct ctx_sample kb = ctx_sample_view(b->v, k);
	struct ctx_welch w;

	return !ctx_welch(&ka, &kb, 1 - alpha, &w) && w.p < alpha;
}

int ctx_runs_to_separate(const struct ctx_sample *a,
			 const struct ctx_sample *b, double alpha)
{
	int n = a->n < b->n ? a->n : b->n, k, first = 0;

	for (k = n; k >= 2 && separated(a, b, k, alpha); k--)
		first = k;
	return first;
}

void ctx_compare_row_eval(struct ctx_compare_row *r)
{
	memset(&r->w, 0, sizeof(r->w));
	r->runs_to_separate = 0;
	if (r->error || ctx_welch(r->a, r->b, 1 - CTX_COMPARE_ALPHA, &r->w)) {
		r->verdict = CTX_VERDICT_TOO_FEW;
		return;
	}
	r->verdict = ctx_verdict_of(&r->w, CTX_COMPARE_ALPHA);
	r->runs_to_separate = ctx_runs_to_separate(r->a, r->b,
						   CTX_COMPARE_ALPHA);
}
