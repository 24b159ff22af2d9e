/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csv: one field of a CSV record, quoted as RFC 4180 says when it holds
 * the separator, a double quote or a line break, whatever the separator.
 */
#ifndef CTXSTAT_OUTPUT_CSV_H
#define CTXSTAT_OUTPUT_CSV_H

#include <stdbool.h>
#include <stdio.h>

/* @s as one field; @sep before it unless it is the record's first. */
void cxs_csv_field(FILE *f, const char *sep, const char *s, int first);

/* A number as one field (printf @fmt, C locale set by the caller). */
void cxs_csv_num(FILE *f, const char *sep, const char *fmt, double v);

/*
 * A measured figure as one field of compare's and report's CSV: a
 * @clock's ns in msec, as perf stat prints clocks; 15 significant
 * digits, as many as a decimal figure read into a double keeps (a mean
 * of 999875.7, not 999875.69999999984); an empty field for NaN (none).
 */
void cxs_csv_figure(FILE *f, const char *sep, double v, bool clock);

#endif
