// SPDX-License-Identifier: GPL-2.0
/*
 * proof: perf_event_open(2) of each counter on the session's target, with
 * perf stat's fallback and messages (tools/perf/util/evsel.c:
 * evsel__fallback(), evsel__open_strerror(); builtin-stat.c:
 * stat_handle_error()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ctxcount.h>

#include "events/proof.h"

/* perf stat's list (stat_handle_error()), and ENODEV. */
bool cxs_proof_not_supported(int err)
{
	return err == EINVAL || err == ENOSYS || err == ENOENT ||
	       err == EOPNOTSUPP || err == ENXIO || err == ENODEV;
}

void cxs_proof_attr(struct perf_event_attr *attr, const struct cxs_counter *c,
		    const struct cxs_proof_target *t)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = c->type;
	attr->config = c->config;
	/* A proof never counts: disabled, and closed once the session exists. */
	attr->disabled = 1;
	attr->inherit = t->pid >= 0 && t->inherit;
	attr->exclude_user = !!(c->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER);
	attr->exclude_kernel = !!(c->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL);
	attr->exclude_hv = !!(c->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV);
	/*
	 * No sample type, a tracepoint's included: a proof only counts, as
	 * perf stat's counters do, and the kernel grants raw tracepoint data
	 * to fewer users than counting (paranoid -1 or CAP_PERFMON). Asked
	 * for it, the kernel refused ctxstat sched:sched_switch where it
	 * gave perf stat the count (selftests/tracepoints, at paranoid 2 to
	 * 0 on 6.1).
	 */
}

static int proof_try(struct cxs_proof *p, const struct cxs_counter *c,
		     const struct cxs_proof_target *t, cxs_perf_open_fn open)
{
	struct perf_event_attr attr;

	cxs_proof_attr(&attr, c, t);
	p->fd = open(&attr, t->pid, t->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	p->err = p->fd < 0 ? errno : 0;
	return p->err;
}

/*
 * evsel__fallback(): EACCES for an event that counts the kernel, and
 * paranoid above 1, retries without kernel and hypervisor (unless it
 * excludes user space: then nothing would be left).
 */
static bool proof_may_fall_back(const struct cxs_counter *c, int err,
				int paranoid)
{
	return err == EACCES && paranoid > 1 &&
	       !(c->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL) &&
	       !(c->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER);
}

enum cxs_proof_outcome cxs_proof_open(struct cxs_proof *p,
				      struct cxs_counter *c,
				      const struct cxs_proof_target *t,
				      int paranoid, cxs_perf_open_fn open)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = proof_try(p, c, t, open);
	/* stat_handle_error() tests "not supported" before the fallback. */
	if (err && !cxs_proof_not_supported(err) &&
	    proof_may_fall_back(c, err, paranoid)) {
		snprintf(p->msg, sizeof(p->msg),
			 "kernel.perf_event_paranoid=%d, trying to fall back to excluding kernel and hypervisor  samples",
			 paranoid);
		c->flags |= CTXCOUNT_EVENT_F_EXCLUDE_KERNEL |
			    CTXCOUNT_EVENT_F_EXCLUDE_HV;
		p->fell_back = true;
		err = proof_try(p, c, t, open);
	}
	if (!err)
		return CXS_PROOF_OPEN;
	if (cxs_proof_not_supported(err))
		return CXS_PROOF_NOT_SUPPORTED;
	if (err == EACCES || err == EPERM)
		return CXS_PROOF_REFUSED;
	return CXS_PROOF_FAILED;
}

int cxs_proof_fallback_name(char *name, size_t len)
{
	const char *sep = strchr(name, '/') || strchr(name, ':') ? "" : ":";
	size_t n = strlen(name);

	if (n + strlen(sep) + 2 > len)
		return -1;
	snprintf(name + n, len - n, "%su", sep);
	return 0;
}

void cxs_proof_rename(struct cxs_event_list *l, int counter)
{
	struct cxs_event *ev;
	int i;

	for (i = 0; i < l->nr; i++) {
		ev = &l->ev[i];
		if (ev->counter != counter)
			continue;
		ev->flags = l->counters[counter].flags;
		cxs_proof_fallback_name(ev->name, sizeof(ev->name));
	}
}

static void print_target_rule(FILE *f, const struct cxs_proof_target *t)
{
	if (t->pid < 0)
		fprintf(f,
			"Counting system wide needs kernel.perf_event_paranoid <= 0, or CAP_PERFMON\n"
			"(or CAP_SYS_ADMIN).\n");
	else
		fprintf(f,
			"Counting a process needs it to be yours and dumpable (as for ptrace), and\n"
			"kernel.perf_event_paranoid <= 2 (<= 1 to count the kernel too); or\n"
			"CAP_PERFMON (or CAP_SYS_ADMIN), with CAP_SYS_PTRACE for other users'\n"
			"processes.\n");
}

/* evsel__open_strerror() for EPERM and EACCES, under ctxstat's name. */
void cxs_proof_print_refusal(FILE *f, const char *event, int err,
			     int paranoid, const struct cxs_proof_target *t)
{
	fprintf(f,
		"ctxstat: perf_event_open(2) refuses %s (%s), so ctxcount does too.\n",
		event, strerror(err));
	if (err == EPERM)
		fprintf(f, "No permission to enable %s event.\n\n", event);
	fprintf(f,
		"Access to performance monitoring and observability operations is limited.\n"
		"Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open\n"
		"access to performance monitoring and observability operations for processes\n"
		"without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.\n"
		"More information can be found at 'Perf events and tool security' document:\n"
		"https://www.kernel.org/doc/html/latest/admin-guide/perf-security.html\n"
		"perf_event_paranoid setting is %d:\n"
		"  -1: Allow use of (almost) all events by all users\n"
		"      Ignore mlock limit after perf_event_mlock_kb without CAP_IPC_LOCK\n"
		">= 0: Disallow raw and ftrace function tracepoint access\n"
		">= 1: Disallow CPU event access\n"
		">= 2: Disallow kernel profiling\n"
		"To make the adjusted perf_event_paranoid setting permanent preserve it\n"
		"in /etc/sysctl.conf (e.g. kernel.perf_event_paranoid = <setting>)\n",
		paranoid);
	print_target_rule(f, t);
	if (err == EPERM)
		fprintf(f,
			"EPERM may also come from a seccomp filter or a security module (LSM)\n"
			"that refuses perf_event_open(2) to this process.\n");
}

/* The first online CPU, for a system-wide proof. */
int cxs_proof_any_cpu(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int cpu = 0;

	if (f) {
		if (fscanf(f, "%d", &cpu) != 1)
			cpu = 0;
		fclose(f);
	}
	return cpu;
}

/* One counter's proof, with perf stat's -v messages. */
static int proofs_open_one(struct cxs_event_list *l, int i,
			   const struct cxs_proof_target *t, int paranoid,
			   bool verbose, int *fd)
{
	struct cxs_counter *c = &l->counters[i];
	enum cxs_proof_outcome outcome;
	const char *name = "?";
	struct cxs_proof p;
	int j;

	for (j = 0; j < l->nr; j++)
		if (l->ev[j].counter == i) {
			name = l->ev[j].name;
			break;
		}
	outcome = cxs_proof_open(&p, c, t, paranoid, cxs_perf_event_open);
	/* perf -v says it tries the fallback, whether it works or not. */
	if (p.fell_back && verbose)
		fprintf(stderr, "Warning:\n%s\n", p.msg);
	switch (outcome) {
	case CXS_PROOF_OPEN:
		if (p.fell_back)
			cxs_proof_rename(l, i);
		*fd = p.fd;
		return 0;
	case CXS_PROOF_NOT_SUPPORTED:
		if (verbose)
			fprintf(stderr, "Warning:\n%s event is not supported by the kernel.\n",
				name);
		*fd = -1;
		return -ENOENT;
	case CXS_PROOF_REFUSED:
		cxs_proof_print_refusal(stderr, name, p.err, paranoid, t);
		return -p.err;
	default:
		fprintf(stderr, "ctxstat: %s: perf_event_open: %s\n", name,
			strerror(p.err));
		return -p.err;
	}
}

int cxs_proofs_open(struct cxs_event_list *l, const struct cxs_proof_target *t,
		    bool verbose, int *fds)
{
	int paranoid = cxs_perf_event_paranoid();
	int i, err;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		fds[i] = -1;
	for (i = 0; i < l->nr_counters; i++) {
		/*
		 * perf refused it before (in its group, or -d's check): not
		 * asked for again; a tool event is ctxstat's to measure, no
		 * perf event's
		 */
		if (l->counters[i].open_err || l->counters[i].tool)
			continue;
		err = proofs_open_one(l, i, t, paranoid, verbose, &fds[i]);
		if (err && err != -ENOENT) {
			cxs_proofs_close(fds, i);
			return err;
		}
	}
	return 0;
}

void cxs_proofs_close(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}
