// SPDX-License-Identifier: GPL-2.0
/*
 * module: a newer ctxstat against an older module says what is missing
 * rather than passing on the kernel's EINVAL or EOPNOTSUPP.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/module.h"

/* Optional: an older module without STATS just keeps the nmi row. */
static uint32_t query_features(struct ctxc_sock *nl)
{
	struct ctxc_reply *reply = calloc(1, sizeof(*reply));
	uint32_t features = CTXCOUNT_FEATURE_NMI;

	if (reply && !ctxc_stats(nl, reply))
		features = reply->stats_features;
	free(reply);
	return features;
}

/*
 * --irq-sources needs CTXCOUNT_GENL_VERSION 4 and a module that splits
 * hardirq here: say which is missing rather than "EOPNOTSUPP".
 */
static int check_irq_sources(int version, uint32_t features)
{
	if (version < 4) {
		fprintf(stderr,
			"ctxstat: the loaded ctxcount module has no per-source hardirq rows (--irq-sources): its protocol version is %d, they need 4; load this ctxstat's module\n",
			version);
		return -EOPNOTSUPP;
	}
	if (features & CTXCOUNT_FEATURE_IRQ_SOURCES)
		return 0;
	fprintf(stderr,
		"ctxstat: the loaded ctxcount module (protocol version %d) does not split hardirq by source here: its STATS lack CTXCOUNT_FEATURE_IRQ_SOURCES; --irq-sources needs a module that has it\n",
		version);
	return -EOPNOTSUPP;
}

/*
 * --per-thread needs CTXCOUNT_GENL_VERSION 6 (rows per thread); an older
 * module still serves everything else.
 */
static int check_per_thread(int version)
{
	if (version >= 6)
		return 0;
	fprintf(stderr,
		"ctxstat: the loaded ctxcount module is too old for --per-thread: its protocol version is %d, --per-thread needs 6; load this ctxstat's module\n",
		version);
	return -EOPNOTSUPP;
}

/*
 * -C needs CTXCOUNT_GENL_VERSION 3 (CPU lists), -A version 5: its rows
 * come as a READ dump, since a single reply with a row per CPU outgrows
 * the socket's buffer from about 16 CPUs on. Say so rather than
 * "EINVAL" or "EOPNOTSUPP".
 */
static int check_version(struct ctxc_sock *nl, const struct cxs_args *a,
			 uint32_t features)
{
	bool percpu = a->no_aggr || a->cpu_list;
	int version;

	if (!percpu && !a->irq_sources && !cxs_args_per_thread(a))
		return 0;
	version = nl->version;
	if (cxs_args_per_thread(a) && check_per_thread(version))
		return -EOPNOTSUPP;
	if (a->irq_sources && check_irq_sources(version, features))
		return -EOPNOTSUPP;
	if (a->no_aggr && version < 5) {
		fprintf(stderr,
			"ctxstat: the loaded ctxcount module cannot send per-CPU counts (-A) as a dump: its protocol version is %d, -A needs 5; load this ctxstat's module\n",
			version);
		return -EOPNOTSUPP;
	}
	if (!percpu || version >= 3)
		return 0;
	fprintf(stderr,
		"ctxstat: the loaded ctxcount module has no CPU lists (-C): its protocol version is %d, they need 3; load this ctxstat's module\n",
		version);
	return -EOPNOTSUPP;
}

void cxs_module_load_hint(const char *exe, char *buf, size_t len)
{
	char *copy = strdup(exe), ko[PATH_MAX], *real = NULL;

	/*
	 * the source tree: <top>/userspace/build/ctxstat (make's default O)
	 * and <top>/module/ctxcount.ko
	 */
	if (copy && *copy &&
	    snprintf(ko, sizeof(ko), "%s/../../module/ctxcount.ko", dirname(copy)) <
	    (int)sizeof(ko))
		real = realpath(ko, NULL);
	if (real && !access(real, R_OK))
		snprintf(buf, len, "sudo insmod %s", real);
	else
		snprintf(buf, len, "sudo modprobe ctxcount");
	free(real);
	free(copy);
}

int cxs_module_connect(struct ctxc_sock *nl, const struct cxs_args *a,
		       uint32_t *features)
{
	int err = ctxc_open(nl);

	if (!err) {
		*features = query_features(nl);
		err = check_version(nl, a, *features);
		if (err) {
			ctxc_close(nl);
			return err;
		}
	}
	if (err == -ENOENT) {
		char exe[PATH_MAX], hint[PATH_MAX + 32];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		cxs_module_load_hint(exe, hint, sizeof(hint));
		fprintf(stderr, "ctxstat: kernel module not loaded; load it with `%s`\n",
			hint);
	} else if (err) {
		fprintf(stderr, "ctxstat: cannot talk to the kernel over generic netlink: %s\n",
			strerror(-err));
	}
	return err;
}
