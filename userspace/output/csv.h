/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csv: one field of a CSV record, quoted as RFC 4180 says when it holds
 * the separator, a double quote or a line break, whatever the separator.
 */
#ifndef CTXSTAT_OUTPUT_CSV_H
#define CTXSTAT_OUTPUT_CSV_H

#include <stdio.h>

/* @s as one field; @sep before it unless it is the record's first. */
void cxs_csv_field(FILE *f, const char *sep, const char *s, int first);

/* A number as one field (printf @fmt, C locale set by the caller). */
void cxs_csv_num(FILE *f, const char *sep, const char *fmt, double v);

#endif
