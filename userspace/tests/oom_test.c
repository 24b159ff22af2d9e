// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-memory paths: every allocation the code under test makes is
 * failed in turn (tests/failalloc.c), in a child whose stack was first
 * filled with garbage, so that freeing anything never set is a crash, not
 * luck. Each must fail cleanly: -1 (or -ENOMEM), the state as before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "failalloc.h"
#include "results/results.h"
#include "results/save.h"
#include "run/interval.h"
#include "run/runner.h"
#include "stats/counts.h"

/* What an uninitialised local would hold: not NULL, not a heap pointer. */
static void __attribute__((noinline)) poison_stack(void)
{
	volatile char junk[65536];
	size_t i;

	/* volatile stores, which the compiler may not drop as dead */
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0x5a;
}

/* A runner that made 3 runs of @l (after adding @specs), without a module. */
static struct cxs_runner *three_runs(struct cxs_args *a,
				     struct cxs_event_list *l,
				     const char *specs)
{
	struct cxs_runner *r = calloc(1, sizeof(*r));
	struct cxs_counter_reading rd = { .time_enabled = 1, .time_running = 1 };
	char err[128];
	int i, run;

	if (!r || (specs && cxs_events_add(l, specs, err, sizeof(err))))
		abort();
	r->args = a;
	r->events = l;
	for (run = 0; run < 3; run++) {
		for (i = 0; i < l->nr_counters; i++) {
			rd.full = 1000 + run;
			rd.bucket[CTXCOUNT_BUCKET_TASK] = 990 + run;
			if (cxs_counter_add(&r->counters[i], &rd))
				abort();
		}
		if (cxs_sample_add(&r->elapsed_ns, 1e6))
			abort();
		r->runs_done++;
	}
	return r;
}

enum { OK_UNTOUCHED, FAILED, CRASHED, OK_DESPITE_FAILURE };

/*
 * fn() in a child with the @n-th allocation failing. OK_UNTOUCHED: it
 * succeeded and made fewer than @n allocations (nothing left to fail).
 */
static int with_failure(int n, int (*fn)(void *), void *arg)
{
	int status, rc;
	pid_t pid = fork();

	if (pid == 0) {
		poison_stack();
		failalloc_calls = 0;
		failalloc_at = n;
		rc = fn(arg);
		failalloc_at = 0;
		if (!rc)
			_exit(failalloc_calls < n ? OK_UNTOUCHED : OK_DESPITE_FAILURE);
		_exit(FAILED);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return CRASHED;
	return WIFEXITED(status) ? WEXITSTATUS(status) : CRASHED;
}

struct save_case {
	struct cxs_runner *a, *b;
	const char *path;
};

static int save_stat(void *arg)
{
	struct save_case *c = arg;

	return cxs_save_stat(c->a);
}

static int save_compare(void *arg)
{
	struct save_case *c = arg;

	return cxs_save_compare(c->a, c->b);
}

/* Fail every allocation of @fn in turn: clean failures, file untouched. */
static void fail_each(struct __test_metadata *_metadata, int (*fn)(void *),
		      struct save_case *c, int want_results)
{
	struct cxs_result_set set = { 0 };
	char err[256];
	int n, rc;

	for (n = 1; n < 1000; n++) {
		unlink(c->path);
		rc = with_failure(n, fn, c);
		ASSERT_NE(CRASHED, rc) TH_LOG("allocation %d failing: crashed", n);
		ASSERT_NE(OK_DESPITE_FAILURE, rc) TH_LOG("allocation %d failing: no error", n);
		if (rc == OK_UNTOUCHED)
			break;
		EXPECT_NE(0, access(c->path, F_OK)) TH_LOG("allocation %d failing: %s written", n, c->path);
	}
	TH_LOG("%d allocations, each failed once", n - 1);
	EXPECT_GT(n, 2);
	/* and with none failing, the file reads back */
	ASSERT_EQ(0, cxs_results_load(&set, c->path, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(want_results, set.nr);
	EXPECT_EQ(3, set.r[0].elapsed_ns.n);
	cxs_results_free(&set);
	unlink(c->path);
}

TEST(save_stat_out_of_memory)
{
	static struct cxs_event_list l;
	char path[64];
	struct cxs_args a = { .save = path, .name = "loop" };
	struct save_case c = { .path = path };

	snprintf(path, sizeof(path), "/tmp/ctxstat-oom-%d.json", (int)getpid());
	c.a = three_runs(&a, &l, "instructions,instructions:t");
	fail_each(_metadata, save_stat, &c, 1);
	cxs_runner_free(c.a);
}

TEST(save_compare_out_of_memory)
{
	static struct cxs_event_list l;
	char path[64];
	struct cxs_args a = { .save = path, .label = "base,patched" };
	char *cmd[] = { "true", NULL };
	struct save_case c = { .path = path };

	a.cmd = cmd;
	snprintf(path, sizeof(path), "/tmp/ctxstat-oom-%d.json", (int)getpid());
	c.a = three_runs(&a, &l, "cycles");
	c.b = three_runs(&a, &l, NULL);
	fail_each(_metadata, save_compare, &c, 2);
	cxs_runner_free(c.a);
	cxs_runner_free(c.b);
}

/* Every sample of @c holds @n values. */
static bool holds(const struct cxs_counter_values *c, int n)
{
	int b;

	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		if (c->bucket[b].n != n)
			return false;
	return c->full.n == n && c->enabled.n == n && c->running.n == n;
}

/* One run into an empty counter; a failure must leave it empty. */
static int add_run(void *arg)
{
	struct cxs_counter_values *c = arg;
	struct cxs_counter_reading rd = {
		.full = 7, .time_enabled = 1, .time_running = 1,
	};

	if (!cxs_counter_add(c, &rd))
		return holds(c, 1) ? 0 : (abort(), 0);
	return holds(c, 0) ? -1 : (abort(), 0);
}

/* A counter gets a run in all of its samples or in none. */
TEST(counter_add_all_or_nothing)
{
	struct cxs_counter_values c;
	int n, rc;

	memset(&c, 0, sizeof(c));
	for (n = 1; n < 100; n++) {
		rc = with_failure(n, add_run, &c);
		ASSERT_NE(CRASHED, rc);
		ASSERT_NE(OK_DESPITE_FAILURE, rc);
		if (rc == OK_UNTOUCHED)
			break;
	}
	EXPECT_GT(n, 2);
	/* in this process nothing failed: one run everywhere */
	ASSERT_EQ(0, add_run(&c));
	cxs_counter_free(&c);
}

/* Every sample of @c, source rows included, holds @n values. */
static bool holds_src(const struct cxs_counter_values *c, int n)
{
	int j;

	for (j = 0; j < c->nr_src; j++)
		if (c->src[j].n != n)
			return false;
	return holds(c, n);
}

/*
 * A second run that brings two new source rows into a counter with one:
 * all of it or nothing, the rows included.
 */
static int add_src_run(void *arg)
{
	struct cxs_counter_values *c = arg;
	uint64_t rows[3] = { 1, 2, 3 };
	struct cxs_counter_reading rd = {
		.full = 7, .time_enabled = 1, .time_running = 1,
		.src = rows, .nr_src = 1,
	};
	int at = failalloc_at;

	/* the first run is before any failure */
	failalloc_at = 0;
	if (cxs_counter_add(c, &rd) || !holds_src(c, 1))
		abort();
	failalloc_calls = 0;
	failalloc_at = at;
	rd.nr_src = 3;
	if (!cxs_counter_add(c, &rd))
		return c->nr_src == 3 && holds_src(c, 2) ? 0 : (abort(), 0);
	return c->nr_src == 1 && holds_src(c, 1) ? -1 : (abort(), 0);
}

TEST(counter_add_source_rows_all_or_nothing)
{
	struct cxs_counter_values c;
	int n, rc;

	memset(&c, 0, sizeof(c));
	for (n = 1; n < 100; n++) {
		rc = with_failure(n, add_src_run, &c);
		ASSERT_NE(CRASHED, rc) TH_LOG("allocation %d failing: crashed", n);
		ASSERT_NE(OK_DESPITE_FAILURE, rc);
		if (rc == OK_UNTOUCHED)
			break;
	}
	TH_LOG("%d allocations, each failed once", n - 1);
	EXPECT_GT(n, 2);
}

/* One -I interval of two counters, printed to /dev/null. */
static int print_interval(void *arg)
{
	struct cxs_event_list *l = arg;
	struct cxs_output_opts o = { .format = CXS_OUTPUT_CSV, .sep = ",",
				     .breakdown = true };
	struct cxs_series s = { .events = l };
	struct ctxc_reply *rp = calloc(1, sizeof(*rp));
	struct cxs_interval *iv = calloc(1, sizeof(*iv));
	int i, err = -ENOMEM;

	o.f = fopen("/dev/null", "w");
	if (rp && iv && o.f) {
		cxs_interval_init(iv, &o, &s, 100, 0, 0);
		for (i = 0; i < l->nr_counters; i++)
			rp->ev[i] = (struct ctxc_event_val){
				.present = true, .full = 10, .time_enabled = 5,
				.time_running = 5,
			};
		err = cxs_interval_print(iv, rp, NULL, 1e8);
		/* a failed interval is not the new base: the next one has it */
		if (err && iv->prev.ev[0].full)
			abort();
		cxs_interval_free(iv);
	}
	if (o.f)
		fclose(o.f);
	free(iv);
	free(rp);
	return err;
}

/*
 * --per-thread's values of three threads of two counters kept as a READ
 * hands them over, then freed: a failure on the way leaves nothing that
 * cxs_perthread_free() cannot free.
 */
static int keep_threads(void *arg)
{
	const struct cxs_counter_values *counters = arg;
	struct ctxc_thread_val *row = calloc(1, sizeof(*row));
	struct cxs_args a = { .system_wide = true };
	static const int counter_of[] = { 0, 1 };
	struct cxs_counter_values c[2];
	struct cxs_perthread pt;
	int k, i, err = row ? 0 : -ENOMEM;

	cxs_perthread_init(&pt, &a, 2);
	for (k = 0; !err && k < 3; k++) {
		for (i = 0; i < 2; i++)
			row->ev[i] = (struct ctxc_event_val){
				.present = true, .full = 10 * k + i,
				.time_enabled = 1, .time_running = 1,
			};
		err = cxs_perthread_add(&pt, row, counter_of, 2);
	}
	if (!err) {
		cxs_perthread_keep(&pt, counters);
		cxs_thread_counters(&pt.rows, 2, c);
		if (pt.rows.nr != 3 || c[1].full.v[0] != 21)
			err = -EINVAL;
	}
	cxs_perthread_free(&pt);
	free(row);
	return err;
}

TEST(perthread_keep_out_of_memory)
{
	static struct cxs_counter_values counters[2];
	int n, rc;

	for (n = 1; n < 200; n++) {
		rc = with_failure(n, keep_threads, counters);
		ASSERT_NE(CRASHED, rc) TH_LOG("allocation %d failing: crashed", n);
		ASSERT_NE(OK_DESPITE_FAILURE, rc) TH_LOG("allocation %d failing: no error", n);
		if (rc == OK_UNTOUCHED)
			break;
	}
	TH_LOG("%d allocations, each failed once", n - 1);
	/* the READ's row, then the kept rows and their values */
	EXPECT_GT(n, 3);
}

/* Every allocation of an interval's values fails cleanly: -ENOMEM. */
TEST(interval_out_of_memory)
{
	static struct cxs_event_list l;
	char err[128];
	int n, rc;

	ASSERT_EQ(0, cxs_events_add(&l, "instructions,task-clock", err, sizeof(err)));
	for (n = 1; n < 200; n++) {
		rc = with_failure(n, print_interval, &l);
		ASSERT_NE(CRASHED, rc) TH_LOG("allocation %d failing: crashed", n);
		ASSERT_NE(OK_DESPITE_FAILURE, rc) TH_LOG("allocation %d failing: no error", n);
		if (rc == OK_UNTOUCHED)
			break;
	}
	TH_LOG("%d allocations, each failed once", n - 1);
	/* the two calloc()s here, and the interval's own */
	EXPECT_GT(n, 4);
}

TEST_HARNESS_MAIN
