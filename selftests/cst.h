/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst: what every ctxcount selftest program includes after
 * kselftest_harness.h: the helpers (netlink client, thread rows, system,
 * kernel, processes) and the harness glue below (the kernel-report check of a
 * fixture's teardown, timeout scaling, main()).
 *
 * Only the test's own file may include kselftest_harness.h (it defines
 * non-static functions), so the helpers' .c files never do.
 */
#ifndef CST_H
#define CST_H

#include <stdlib.h>
#include <string.h>

#include "cst_kern.h"
#include "cst_nl.h"
#include "cst_oracle.h"
#include "cst_race.h"
#include "cst_hold.h"
#include "cst_run.h"
#include "cst_sys.h"
#include "cst_thr.h"

/*
 * For FIXTURE_TEARDOWN: fail the test if the kernel logged a report since
 * cst_kmsg_open() returned fd, naming the first one, then close fd.
 */
#define CST_EXPECT_NO_KERNEL_REPORT(fd) do {				\
	char first_report[512];						\
									\
	EXPECT_EQ(0, cst_kmsg_reports((fd), first_report,		\
				      sizeof(first_report)))		\
		TH_LOG("kernel report: %s", first_report);		\
	if ((fd) >= 0)							\
		close(fd);						\
} while (0)

/*
 * A request that must fail in the kernel (not already in the client, e.g.
 * opening a proof) and say why in an extended ack message.
 */
#define CST_EXPECT_REFUSED(ret, ack) do {				\
	EXPECT_GT(0, (ret));						\
	EXPECT_TRUE((ack).from_kernel) TH_LOG("refused before the kernel: %s", \
					      (ack).msg);		\
	EXPECT_TRUE((ack).has_msg) TH_LOG("error %d (%s) has no extack message%s", \
		(ret), strerror(-(ret)),				\
		(ack).has_miss ? " (only NLMSGERR_ATTR_MISS_TYPE)" : ""); \
	if ((ack).has_msg)						\
		TH_LOG("refused as expected: %d (%s): \"%s\"", (ret),	\
		       strerror(-(ret)), (ack).msg);			\
} while (0)

/*
 * For a task-clock or cpu-clock count @e (struct cst_ev_res *) of a task
 * that ran at least @lo_ns and at most @hi_ns by its own CPU-time clock
 * over the time counted. That clock leaves out interrupt time on kernels
 * with IRQ_TIME_ACCOUNTING (the debug target; large there, KASAN makes
 * every interrupt slow) and includes it elsewhere, so it lies between the
 * task bucket and the full count: within 10 % of that range, a counter
 * that lost the CPU while it was away, or counted twice, falls outside it.
 */
#define CST_EXPECT_CPU_TIME_COUNTED(e, lo_ns, hi_ns) do {		\
	uint64_t lo_ = (lo_ns), hi_ = (hi_ns);				\
									\
	EXPECT_LT(lo_ * 0.9, (double)(e)->full)				\
		TH_LOG("full %llu ns, the task ran at least %llu ns",	\
		       (unsigned long long)(e)->full,			\
		       (unsigned long long)lo_);			\
	EXPECT_GT(hi_ * 1.1, (double)(e)->b[CTXCOUNT_BUCKET_TASK])	\
		TH_LOG("task bucket %llu ns, the task ran at most %llu ns", \
		       (unsigned long long)(e)->b[CTXCOUNT_BUCKET_TASK], \
		       (unsigned long long)hi_);			\
} while (0)

/*
 * CTX_TIMEOUT_SCALE=N multiplies every test's harness timeout: on the debug
 * kernel (KASAN, lockdep under TCG) the same work takes several times as
 * long, and a test killed at its timeout proves nothing about the module.
 * The harness keeps its tests in lists private to each program, hence a
 * macro rather than a function in a .c file.
 */
#define CST_SCALE_TIMEOUTS()						\
do {									\
	const char *scale_env = getenv("CTX_TIMEOUT_SCALE");		\
	int scale = scale_env ? atoi(scale_env) : 1;			\
	struct __fixture_metadata *f;					\
	struct __test_metadata *t;					\
									\
	for (f = __fixture_list; scale > 1 && f; f = f->next)		\
		for (t = f->tests; t; t = t->next)			\
			t->timeout *= scale;				\
} while (0)

/*
 * main() of every test program: exit 4 (KSFT_SKIP) with the reason when the
 * tests cannot run here (not root, module not loaded); -l/-h always work.
 * stdout is line-buffered so that a long test's progress lines reach the
 * console as they are printed, not when the test program ends.
 */
#define CST_TEST_MAIN							\
int main(int argc, char **argv)						\
{									\
	const char *why = NULL;						\
									\
	setvbuf(stdout, NULL, _IOLBF, 0);				\
	if (!(argc > 1 && (!strcmp(argv[1], "-l") || !strcmp(argv[1], "-h")))) \
		why = cst_cannot_run();					\
	if (why)							\
		ksft_exit_skip("%s", why);				\
	CST_SCALE_TIMEOUTS();						\
	return test_harness_run(argc, argv);				\
}

#endif /* CST_H */
