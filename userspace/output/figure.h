/* SPDX-License-Identifier: GPL-2.0 */
/*
 * figure: a measured figure as compare's summary and report's tables
 * print it, one vocabulary for both: a few significant digits with k,
 * M, G... for counts, and the unit that suits a clock (counted in ns):
 * ns, us, ms or s.
 */
#ifndef CTXSTAT_OUTPUT_FIGURE_H
#define CTXSTAT_OUTPUT_FIGURE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * @v with @sig significant digits: 20.73M, 1.78k, 999.5, 0.5 for a
 * count; 20.73ms, 14.4ns for a @clock's ns. Below 1 (ns for a clock) in
 * %g's way; the decimal point is the locale's.
 */
void cxs_figure(double v, int sig, bool clock, char *buf, size_t len);

/*
 * "mean ± se", the mean with 4 significant digits and its standard
 * error with 3, each with its own prefix or unit: "20.73M ± 1.78k",
 * "20.73ms ± 1.78us".
 */
void cxs_figure_mean_se(double mean, double se, bool clock, char *buf,
			size_t len);

#endif
