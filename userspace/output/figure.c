// SPDX-License-Identifier: GPL-2.0
/*
 * figure: see output/figure.h. The prefix is chosen after rounding, so
 * that 999.96 with 4 digits is 1.000k, not 1000.0.
 */
#include <math.h>
#include <stdio.h>

#include "output/figure.h"

static const char *const count_prefix[] = { "", "k", "M", "G", "T", "P", NULL };
/* Clocks count ns. */
static const char *const clock_unit[] = { "ns", "us", "ms", "s", NULL };

void cxs_figure(double v, int sig, bool clock, char *buf, size_t len)
{
	const char *const *prefix = clock ? clock_unit : count_prefix;
	double x = fabs(v), top = 1000 - 0.5 * pow(10, 3 - sig);
	int k = 0, d;

	if (x < 1) {
		snprintf(buf, len, "%.*g%s", sig, v, prefix[0]);
		return;
	}
	while (x >= top && prefix[k + 1]) {
		x /= 1000;
		v /= 1000;
		k++;
	}
	/* digits before the point, as printf will round it */
	d = x >= 100 - 0.5 * pow(10, 2 - sig) ? 3 :
	    x >= 10 - 0.5 * pow(10, 1 - sig) ? 2 : 1;
	snprintf(buf, len, "%.*f%s", sig > d ? sig - d : 0, v, prefix[k]);
}

void cxs_figure_mean_se(double mean, double se, bool clock, char *buf,
			size_t len)
{
	char m[24], s[24];

	cxs_figure(mean, 4, clock, m, sizeof(m));
	cxs_figure(se, 3, clock, s, sizeof(s));
	snprintf(buf, len, "%s ± %s", m, s);
}
