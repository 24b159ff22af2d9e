// SPDX-License-Identifier: GPL-2.0
/*
 * cst_thr: checks over a READ's thread rows (see cst_thr.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cst_nl.h"
#include "cst_work.h"

#include "cst_thr.h"

uint64_t cst_row_value(const struct cst_thread_res *t, int e, int b)
{
	return b == CST_ROW_FULL ? t->ev[e].full : t->ev[e].b[b];
}

long long cst_row_delta(const struct cst_worker_delta *d, uint32_t tid,
			int e, int b)
{
	const struct cst_thread_res *t0 = cst_thread_row(&d->before, tid);
	const struct cst_thread_res *t1 = cst_thread_row(&d->after, tid);

	if (!t0 || !t1 || e >= t0->nev || e >= t1->nev)
		return LLONG_MIN;
	return (long long)(cst_row_value(t1, e, b) - cst_row_value(t0, e, b));
}

/* Per event, the rows' sums against the totals; 1 at the first difference. */
static int rows_sum_event(const struct cst_res *r, int e, bool times,
			  char *what, size_t len)
{
	const struct cst_threads *thr = r->thr;
	uint64_t sum[CTXCOUNT_BUCKET_MAX + 1] = { 0 }, en = 0, run = 0;
	const struct cst_ev_res *tot = &r->ev[e];
	int i, b;

	for (i = 0; i < thr->n; i++) {
		for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
			sum[b] += cst_row_value(&thr->row[i], e, b);
		en += thr->row[i].ev[e].enabled;
		run += thr->row[i].ev[e].running;
	}
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++) {
		uint64_t want = b == CST_ROW_FULL ? tot->full : tot->b[b];

		if (sum[b] == want)
			continue;
		snprintf(what, len, "event %d: %s of the rows %llu, total %llu",
			 e, b == CST_ROW_FULL ? "full" : cst_bucket_name(b),
			 (unsigned long long)sum[b], (unsigned long long)want);
		return 1;
	}
	if (times && (en != tot->enabled || run != tot->running)) {
		snprintf(what, len, "event %d: times of the rows %llu/%llu, total %llu/%llu",
			 e, (unsigned long long)en, (unsigned long long)run,
			 (unsigned long long)tot->enabled,
			 (unsigned long long)tot->running);
		return 1;
	}
	return 0;
}

int cst_rows_sum_diff(const struct cst_res *r, bool times, char *what,
		      size_t len)
{
	const struct cst_threads *thr = r->thr;
	uint64_t exc;
	int i, e, k;

	if (!thr || !thr->n || thr->overflow) {
		snprintf(what, len, "rows: %d, %d beyond room", thr ? thr->n : 0,
			 thr ? thr->overflow : 0);
		return 1;
	}
	for (i = 0; i < thr->n; i++)
		if (thr->row[i].nev != r->nev) {
			snprintf(what, len, "row of tid %u: %d events of %d",
				 thr->row[i].tid, thr->row[i].nev, r->nev);
			return 1;
		}
	for (e = 0; e < r->nev; e++)
		if (rows_sum_event(r, e, times, what, len))
			return 1;
	for (k = 1; k <= CTXCOUNT_EXCURSION_MAX; k++) {
		for (i = 0, exc = 0; i < thr->n; i++)
			exc += thr->row[i].exc[k];
		if (exc == r->exc[k])
			continue;
		snprintf(what, len, "excursions of kind %d: rows %llu, total %llu",
			 k, (unsigned long long)exc, (unsigned long long)r->exc[k]);
		return 1;
	}
	return 0;
}

int cst_row_diff(const struct cst_thread_res *a, const struct cst_thread_res *b,
		 char *what, size_t len)
{
	const struct cst_ev_res *x, *y;
	int e, k;

	if (a->nev != b->nev) {
		snprintf(what, len, "%d events, then %d", a->nev, b->nev);
		return 1;
	}
	for (e = 0; e < a->nev; e++) {
		x = &a->ev[e];
		y = &b->ev[e];
		for (k = 0; k <= CTXCOUNT_BUCKET_MAX; k++)
			if (cst_row_value(a, e, k) != cst_row_value(b, e, k)) {
				snprintf(what, len, "event %d: %s %+lld", e,
					 k == CST_ROW_FULL ? "full" : cst_bucket_name(k),
					 (long long)(cst_row_value(b, e, k) -
						     cst_row_value(a, e, k)));
				return 1;
			}
		if (x->enabled != y->enabled || x->running != y->running ||
		    x->est_state != y->est_state || x->est_error != y->est_error) {
			snprintf(what, len, "event %d: times or estimate state", e);
			return 1;
		}
	}
	if (memcmp(a->exc, b->exc, sizeof(a->exc))) {
		snprintf(what, len, "excursions");
		return 1;
	}
	return 0;
}

int cst_proc_tasks(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

struct cst_threads *cst_threads_for_all(int slack)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int n = 0, k;

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		/* not a process, or one gone since: no room */
		k = atoi(de->d_name) > 0 ? cst_proc_tasks(atoi(de->d_name)) : 0;
		if (k > 0)
			n += k;
	}
	closedir(d);
	return cst_threads_alloc(n + slack);
}

int cst_proc_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return ret;
}

/* The first thing wrong with event @e of a row, or NULL. */
static const char *row_event_shape(const struct cst_ev_res *x, int e)
{
	if (!x->has_index || x->index != (uint32_t)e)
		return "index";
	if (x->error)
		return "error";
	if (!x->has_full || !x->has_enabled || !x->has_running)
		return "full or times missing";
	if (!x->has_est_state || !x->has_est_error)
		return "estimate's state or error missing";
	if (x->nbuckets != CTXCOUNT_BUCKET_MAX || x->dup_buckets || x->bad_buckets)
		return "not every bucket once";
	if (x->full != cst_bucket_sum(x))
		return "buckets do not add up to full";
	if (x->direct_cpus || x->has_sources)
		return "DIRECT_CPUS or SOURCES";
	return NULL;
}

int cst_row_shape(const struct cst_thread_res *t, int nev, char *what,
		  size_t len)
{
	const char *bad = NULL;
	int e;

	if (!t->has_pid || !t->has_comm || !t->has_excursions || !t->has_events)
		bad = "PID, COMM, EXCURSIONS or EVENTS missing";
	else if (t->comm_bad)
		bad = "COMM over 16 bytes or without its nul";
	else if (t->late_attrs)
		bad = "PID, COMM or EXCURSIONS in a later part";
	else if (t->nev != nev)
		bad = "events missing";
	if (bad) {
		snprintf(what, len, "tid %u: %s", t->tid, bad);
		return 1;
	}
	for (e = 0; e < nev; e++) {
		bad = row_event_shape(&t->ev[e], e);
		if (bad) {
			snprintf(what, len, "tid %u event %d: %s", t->tid, e, bad);
			return 1;
		}
	}
	return 0;
}

const char *cst_per_thread_cannot_run(void)
{
	static char why[96];
	struct cst_sock s;

	if (cst_open(&s))
		return "cannot open a socket of the family";
	cst_close(&s);
	if (s.version >= 6)
		return NULL;
	snprintf(why, sizeof(why), "the module's family is version %u: no per-thread rows before 6",
		 s.version);
	return why;
}

struct many_arg {
	int ready, go, hold;
	unsigned long long iters;
};

/* "r" when there, "d" when its loop is done; then it waits for hold. */
static void *many_thread(void *p)
{
	struct many_arg *a = p;
	char c;

	if (write(a->ready, "r", 1) != 1 || read(a->go, &c, 1) != 1)
		_exit(2);
	cst_loop(a->iters);
	if (write(a->ready, "d", 1) != 1)
		_exit(2);
	read(a->hold, &c, 1);
	_exit(0);
}

/* @n bytes from the threads; 0 or -EPIPE. */
static int many_wait(struct cst_many *m, int n)
{
	char buf[CST_MANY_MAX];
	ssize_t got;

	for (; n > 0; n -= got) {
		got = read(m->ready, buf, n);
		if (got <= 0)
			return -EPIPE;
	}
	return 0;
}

int cst_many_fork(struct cst_many *m, int n, unsigned long long iters)
{
	int ready[2], go[2], hold[2], i;
	struct many_arg a;
	pthread_t t;

	*m = (struct cst_many){ .pid = -1, .ready = -1, .go = -1, .hold = -1 };
	if (n < 1 || n > CST_MANY_MAX)
		return -EINVAL;
	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC) || pipe2(hold, O_CLOEXEC))
		return -errno;
	m->n = n;
	m->pid = fork();
	if (!m->pid) {
		/* the parent's ends: hold's end of file must come */
		close(ready[0]);
		close(go[1]);
		close(hold[1]);
		a = (struct many_arg){ ready[1], go[0], hold[0], iters };
		for (i = 1; i < n; i++)
			if (pthread_create(&t, NULL, many_thread, &a))
				_exit(2);
		many_thread(&a);
	}
	close(ready[1]);
	close(go[0]);
	close(hold[0]);
	m->ready = ready[0];
	m->go = go[1];
	m->hold = hold[1];
	return m->pid < 0 ? -EAGAIN : many_wait(m, n);
}

int cst_many_go(struct cst_many *m)
{
	char go[CST_MANY_MAX];

	memset(go, 'g', m->n);
	if (write(m->go, go, m->n) != m->n)
		return -EPIPE;
	return many_wait(m, m->n);
}

void cst_many_end(struct cst_many *m)
{
	/* hold's end of file ends every thread */
	if (m->hold >= 0)
		close(m->hold);
	if (m->go >= 0)
		close(m->go);
	if (m->ready >= 0)
		close(m->ready);
	if (m->pid > 0)
		waitpid(m->pid, NULL, 0);
}
