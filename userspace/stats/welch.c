// SPDX-License-Identifier: GPL-2.0
/*
 * welch: Welch's t-test (B. L. Welch, Biometrika 34, 1947), with the
 * Welch-Satterthwaite degrees of freedom
 *
 *   df = (va + vb)^2 / (va^2 / (na - 1) + vb^2 / (nb - 1)),
 *   va = sa^2 / na, vb = sb^2 / nb,
 *
 * the same as R's t.test(b, a) and scipy.stats.ttest_ind(b, a,
 * equal_var=False).
 */
#include <errno.h>
#include <math.h>

#include "stats/t-dist.h"
#include "stats/welch.h"

static void exact(struct cxs_welch *w, int na, int nb)
{
	w->df = na + nb - 2;
	w->ci_lo = w->ci_hi = w->diff;
	if (w->diff == 0) {
		w->t = 0;
		w->p = 1;
	} else {
		w->t = w->diff > 0 ? INFINITY : -INFINITY;
		w->p = 0;
	}
}

int cxs_welch(const struct cxs_sample *a, const struct cxs_sample *b,
	      double conf, struct cxs_welch *w)
{
	double sa, sb, va, vb, q;

	if (a->n < 2 || b->n < 2)
		return -EINVAL;
	w->mean_a = cxs_sample_mean(a);
	w->mean_b = cxs_sample_mean(b);
	w->diff = w->mean_b - w->mean_a;
	sa = cxs_sample_sd(a);
	sb = cxs_sample_sd(b);
	va = sa * sa / a->n;
	vb = sb * sb / b->n;
	w->se = sqrt(va + vb);
	if (w->se == 0) {
		exact(w, a->n, b->n);
		return 0;
	}
	w->t = w->diff / w->se;
	w->df = (va + vb) * (va + vb) /
		(va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = cxs_t_p2(w->t, w->df);
	q = cxs_t_quantile(0.5 + conf / 2.0, w->df);
	w->ci_lo = w->diff - q * w->se;
	w->ci_hi = w->diff + q * w->se;
	return 0;
}
