// SPDX-License-Identifier: GPL-2.0
/*
 * group: see events/group.h. perf 6.1's builtin-stat.c: __run_perf_stat()
 * opens the events in order, each member with its leader's fd as
 * group_fd; stat_handle_error() decides. evsel.c's
 * evsel__open_strerror() words a leader's failure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "events/group.h"

/* Event @i's proof attributes, opened in @group_fd's group: an fd or -1. */
static int open_event(const struct cxs_event_list *l, int i,
		      const struct cxs_proof_target *t, int group_fd,
		      cxs_perf_open_fn open)
{
	struct perf_event_attr attr;

	cxs_proof_attr(&attr, &l->counters[l->ev[i].counter], t);
	return open(&attr, t->pid, t->cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* perf's ui__error() of evsel__open_strerror(), for what a proof meets. */
static void print_open_error(const char *name, int err)
{
	fprintf(stderr, "Error:\n");
	if (err == ENOENT)
		fprintf(stderr, "The %s event is not supported.\n", name);
	else
		fprintf(stderr,
			"The sys_perf_event_open() syscall returned with %d (%s) for event (%s).\n"
			"/bin/dmesg | grep -i perf may provide additional information.\n\n",
			err, strerror(err), name);
}

/* perf -v's warning for an event it skips. */
static void warn_not_supported(const char *name, bool verbose)
{
	if (verbose)
		fprintf(stderr, "Warning:\n%s event is not supported by the kernel.\n",
			name);
}

/*
 * Member @i is not opened, perf's COUNTER_SKIP: a counter of its own
 * that is never asked for. 0, or -ENOSPC after saying why.
 */
static int skip_member(struct cxs_event_list *l, int i, int err, bool verbose)
{
	char msg[128];
	int c;

	warn_not_supported(l->ev[i].name, verbose);
	c = cxs_events_own_counter(l, i, msg, sizeof(msg));
	if (c < 0) {
		fprintf(stderr, "ctxstat: %s: not supported in its group, and %s\n",
			l->ev[i].name, msg);
		return -ENOSPC;
	}
	l->counters[c].open_err = err;
	return 0;
}

static void close_all(int *fd, int n)
{
	while (n-- > 0)
		close(fd[n]);
}

/* The group whose first event is @leader, opened as perf opens it. */
static int check_group(struct cxs_event_list *l, int leader,
		       const struct cxs_proof_target *t, const int *fds,
		       bool verbose, cxs_perf_open_fn open)
{
	int fd[CXS_MAX_EVENTS], n = 0, i, err = 0;
	const struct cxs_event *ev;

	fd[0] = open_event(l, leader, t, -1, open);
	if (fd[0] < 0) {
		err = errno;
		if (cxs_proof_not_supported(err))
			warn_not_supported(l->ev[leader].name, verbose);
		print_open_error(l->ev[leader].name, err);
		return -err;
	}
	n = 1;
	for (i = leader + 1; i < l->nr && !err; i++) {
		ev = &l->ev[i];
		/* <not supported> already, or skipped in an earlier run */
		if (ev->group != leader || fds[ev->counter] < 0)
			continue;
		fd[n] = open_event(l, i, t, fd[0], open);
		if (fd[n] >= 0) {
			n++;
			continue;
		}
		err = errno;
		if (ev->weak_group && (err == EINVAL || err == EBADF))
			break;	/* perf opens them apart: all count */
		if (!cxs_proof_not_supported(err)) {
			print_open_error(ev->name, err);
			err = -err;
			break;
		}
		err = skip_member(l, i, err, verbose);
	}
	close_all(fd, n);
	return err < 0 ? err : 0;
}

int cxs_groups_check(struct cxs_event_list *l, const struct cxs_proof_target *t,
		     const int *fds, bool verbose, cxs_perf_open_fn open)
{
	int i, err = 0;

	for (i = 0; i < l->nr && !err; i++)
		if (l->ev[i].group == i)
			err = check_group(l, i, t, fds, verbose, open);
	return err;
}

int cxs_groups_proofs_open(struct cxs_event_list *l,
			   const struct cxs_proof_target *t, bool verbose,
			   int *fds)
{
	int i, err = cxs_proofs_open(l, t, verbose, fds);

	if (err)
		return err;
	err = cxs_groups_check(l, t, fds, verbose, cxs_perf_event_open);
	for (i = 0; i < l->nr_counters; i++) {
		if (err || l->counters[i].open_err)
			cxs_proofs_close(&fds[i], 1);
	}
	return err;
}
