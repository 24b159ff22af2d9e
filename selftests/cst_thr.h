/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_thr: checks over a READ's thread rows (CTXCOUNT_READ_F_PER_THREAD,
 * parsed by cst_res.c into the caller's struct cst_threads), and the
 * threads /proc shows, to compare them with.
 */
#ifndef CST_THR_H
#define CST_THR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cst_oracle.h"
#include "cst_res.h"

/* cst_row_value()'s @b for FULL (no bucket has type 0). */
#define CST_ROW_FULL CTXCOUNT_BUCKET_UNSPEC

/* Event @e's bucket @b of row @t, or its FULL for CST_ROW_FULL. */
uint64_t cst_row_value(const struct cst_thread_res *t, int e, int b);
/*
 * What thread @tid's row gained over @d (its READs around a command), or
 * LLONG_MIN when a READ has no row of it.
 */
long long cst_row_delta(const struct cst_worker_delta *d, uint32_t tid,
			int e, int b);
/*
 * 0 when @r's rows add up to its totals exactly: per event FULL and every
 * bucket (and with @times TIME_ENABLED and TIME_RUNNING), and every
 * excursion count; else 1, and @what says where they first differ (or
 * that rows are missing or short of events).
 */
int cst_rows_sum_diff(const struct cst_res *r, bool times, char *what,
		      size_t len);
/*
 * 0 when rows @a and @b hold the same values (FULL, times, buckets,
 * estimate, excursions), else 1 and @what says where they first differ.
 */
int cst_row_diff(const struct cst_thread_res *a, const struct cst_thread_res *b,
		 char *what, size_t len);
/*
 * 0 when row @t carries what a total's events carry (nev events in
 * order, FULL, times, every bucket once and adding up to FULL, the
 * estimate's state and error), DIRECT_CPUS 0 and no SOURCES, its PID,
 * COMM (nul-terminated, at most 16 bytes) and EXCURSIONS, those in its
 * first part only; else 1 and @what says what is wrong.
 */
int cst_row_shape(const struct cst_thread_res *t, int nev, char *what,
		  size_t len);
/* Why the module here has no per-thread rows (version < 6), or NULL. */
const char *cst_per_thread_cannot_run(void);

/*
 * A process of @n threads (at most CST_MANY_MAX), all there when
 * cst_many_fork() returns 0; at cst_many_go() each runs cst_loop(@iters)
 * once, and it returns when all have; they wait for cst_many_end(),
 * which ends them and is called whatever cst_many_fork() returned.
 */
#define CST_MANY_MAX 256
struct cst_many {
	pid_t pid;
	int n;
	int ready, go, hold;	/* the parent's ends of the pipes */
};

int cst_many_fork(struct cst_many *m, int n, unsigned long long iters);
int cst_many_go(struct cst_many *m);
void cst_many_end(struct cst_many *m);

/* Room for the rows of every thread there is now, and @slack more. */
struct cst_threads *cst_threads_for_all(int slack);
/* The threads of process @pid (/proc/@pid/task), or -1. */
int cst_proc_tasks(pid_t pid);
/* Thread @tid of process @pid's comm from /proc, into @buf; 0 or -errno. */
int cst_proc_comm(pid_t pid, pid_t tid, char *buf, size_t len);

#endif /* CST_THR_H */
