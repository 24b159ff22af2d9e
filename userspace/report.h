/* SPDX-License-Identifier: GPL-2.0 */
/* report: `ctxstat report <file.json>...`, the table of saved results. */
#ifndef CTXSTAT_REPORT_H
#define CTXSTAT_REPORT_H

#include <stdio.h>

/* argv[0] is "report". Returns the exit code. */
int ctx_report_main(int argc, char **argv);
void ctx_report_usage(FILE *f);

#endif
