// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate: the user-mode loop the module measures (see run/calibrate.h).
 */
#include <errno.h>
#include <sched.h>

#include "run/calibrate.h"

/*
 * 0.4 M instructions: some 20 to 80 timer interrupts at the module's
 * period, and short enough that the thread is seldom switched out
 * meanwhile (a run that was does not count and is repeated). The loop is
 * the same instructions every iteration, so the quiet and the storm run
 * differ only by the interrupts.
 */
#define CALIBRATE_ITERS		200000UL
#define CALIBRATE_TRIES		5

static void __attribute__((noinline)) calibrate_loop(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r" (n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r" (n) : : "cc");
#else
	while (n--)
		__asm__ volatile("" : : : "memory");
#endif
}

/* One run: begin, the loop, end. */
static int calibrate_run(struct ctxc_sock *nl, uint32_t begin)
{
	int err = ctxc_calibrate(nl, begin);

	if (err)
		return err;
	calibrate_loop(CALIBRATE_ITERS);
	return ctxc_calibrate(nl, CTXCOUNT_CALIBRATE_END);
}

int cxs_calibrate(struct ctxc_sock *nl, uint32_t features)
{
	cpu_set_t old, one;
	int tries, cpu, err = -EAGAIN;

	if (!(features & CTXCOUNT_FEATURE_EST_KERNEL) ||
	    (features & CTXCOUNT_FEATURE_EST_USER))
		return 0;
	/* Every run on one CPU: the module's timer is pinned to it. */
	cpu = sched_getcpu();
	if (cpu < 0 || sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -errno;
	for (tries = 0; tries < CALIBRATE_TRIES && err == -EAGAIN; tries++) {
		/*
		 * The first quiet run warms up (the loop's page, the module's
		 * paths); the module keeps the least quiet run.
		 */
		err = calibrate_run(nl, CTXCOUNT_CALIBRATE_QUIET_BEGIN);
		if (!err)
			err = calibrate_run(nl, CTXCOUNT_CALIBRATE_QUIET_BEGIN);
		if (!err)
			err = calibrate_run(nl, CTXCOUNT_CALIBRATE_STORM_BEGIN);
	}
	sched_setaffinity(0, sizeof(old), &old);
	return err == -EEXIST || err == -EPERM ? 0 : err;
}
