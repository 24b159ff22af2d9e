/* SPDX-License-Identifier: GPL-2.0 */
/*
 * module: connect to the ctxcount module and check, before anything is
 * counted, that it can do what the command line asks (-C needs protocol
 * version 3, --irq-sources version 4 and the feature, -A version 5,
 * --per-thread version 6); every
 * refusal names the module's version or the missing feature.
 */
#ifndef CTXSTAT_RUN_MODULE_H
#define CTXSTAT_RUN_MODULE_H

#include <stddef.h>
#include <stdint.h>
#include <ctxcount/ctxcount.h>

#include "options/args.h"

/*
 * Open @nl for the options of @a; @features gets the module's
 * CTXCOUNT_FEATURE_* (CTXCOUNT_FEATURE_NMI for a module without STATS:
 * its nmi row is kept). 0, or -errno after saying why (@nl closed).
 */
int cxs_module_connect(struct ctxc_sock *nl, const struct cxs_args *a,
		       uint32_t *features);

/*
 * How to load the module, for ctxstat at @exe: from a source tree
 * (userspace/build/ctxstat below a built module/ctxcount.ko) "sudo insmod
 * <that file>", else, installed, "sudo modprobe ctxcount".
 */
void cxs_module_load_hint(const char *exe, char *buf, size_t len);

#endif
