/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_nl: nlclient's transactions without a kernel, for tests of the runs
 * (run/runner.c and the subcommands above it) on the host. Linked in place of
 * lib/nlclient.o, and of events/perf-open.o: perf_event_open() gives every
 * proof (an fd of /dev/null) at paranoid 2. Every counter of every session
 * counts fake_nl.base[socket] + 100 * counter + run in full, 10 of it in
 * hardirq and the rest in task context, with no multiplexing (enabled = running
 * = 1000000 + run ns: a later READ has run longer); the first socket opened is
 * A (0), the second B (1). A READ per CPU splits every count between CPUs 0 and
 * 1 (fake_nl.c).
 *
 * With fake_nl.sources, a READ splits hardirq (then 10 * m, m the
 * session's READs so far) by source: outside 3m, irq 24
 * "virtio0-input.0" 5m, vector local_timer 2m; every second session
 * numbers them differently and has 1m of the timer's in irq 40
 * "ctxoracle" instead (a source only some runs see). Per CPU, CPU 1's
 * hardirq (2m) is all virtio's.
 *
 * perf_event_open() opens /dev/null for a proof; hw_err, cache_err and
 * pmu_counters below make it refuse hardware (cache) events as a machine
 * without them, or with a PMU of a few counters, does.
 *
 * A READ per thread gives three rows per session s, process 1000 * s:
 * "main" (tid 1000 * s + 1) with CPU 1's share above, "worker" (+ 2)
 * with CPU 0's, "sleeper" (+ 3) with 0 of everything but the times;
 * with fake_nl.threads more rows than these three, the others are
 * "extra" (+ 4 on) with main's values (the rows no longer add up to the
 * totals: a machine's worth of threads, to measure what a row costs).
 */
#ifndef CTXSTAT_FAKE_NL_H
#define CTXSTAT_FAKE_NL_H

#include <stdint.h>
#include <ctxcount/ctxcount.h>

struct fake_nl {
	double base[2];		/* full count of counter 0 in run 0, per socket */
	int open_err;		/* ctxc_open's result */
	int version;		/* the family's (CTXCOUNT_GENL_VERSION) */
	/*
	 * The fail_at-th (1-based) request of command fail_cmd fails, and
	 * with fail_times > 1 so many from there.
	 */
	uint8_t fail_cmd;
	int fail_at;
	int fail_times;
	int fail_err;
	const char *fail_msg;	/* extack with it, or NULL */
	/*
	 * And the request after those fails with then_err (a command the
	 * module went on with after giving up: -EALREADY), if not 0.
	 */
	int then_err;
	uint32_t features;	/* STATS' CTXCOUNT_FEATURE_* */
	bool sources;		/* READs split hardirq by source (above) */
	int src_skew;		/* added to the outside row only: a bad sum */
	/*
	 * The fake perf_event_open(): a hardware event fails with hw_err
	 * (0: opens); one opened into a group that holds pmu_counters
	 * hardware events already fails with EINVAL, as x86's and arm's
	 * validate_group() refuse a group the PMU cannot schedule (0: no
	 * limit).
	 */
	int hw_err;
	int pmu_counters;
	int cache_err;		/* a hardware cache event fails with it (0: opens) */
	int threads;		/* rows of a READ per thread (0: the three) */
	/*
	 * The next READ per thread fails with rows_then_err after handing
	 * its rows over (a dump broken off at its end), if not 0.
	 */
	int rows_then_err;
	/* What happened: */
	int opened;
	int sessions;		/* SESSION_NEW requests answered */
	int reads;		/* SESSION_READ requests answered */
	int live;		/* sessions not deleted */
	struct ctxc_target target;	/* of the last SESSION_NEW */
	int nr_events;		/* the events the last SESSION_NEW asked for */
	/* CLOCK_MONOTONIC (ns) of the last SESSION_NEW and SESSION_START */
	double new_ns, start_ns;
};

extern struct fake_nl fake_nl;

/* Back to the defaults, nothing happened yet. */
void fake_nl_reset(void);

#endif
