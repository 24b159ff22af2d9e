/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quiesce: `ctxstat quiesce [--cpus LIST] [--] <command>`: run the command
 * on a machine set up for quiet measurements (scripts/quiesce, a shell
 * script: it only writes sysfs and procfs files).
 */
#ifndef CTXSTAT_QUIESCE_H
#define CTXSTAT_QUIESCE_H

/* argv[0] is "quiesce". Returns only when the script cannot be run. */
int ctx_quiesce_main(int argc, char **argv);

#endif
