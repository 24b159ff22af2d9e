/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compare: `ctxstat compare <command A> --- <command B>`: run A and B
 * alternately, then print per event whether B counts significantly more
 * or less than A.
 */
#ifndef CTXSTAT_COMPARE_H
#define CTXSTAT_COMPARE_H

/* argv[0] is "compare". Returns the exit code. */
int ctx_compare_main(int argc, char **argv);

#endif
