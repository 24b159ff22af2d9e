/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ctxcount: per-context (task / hardirq / softirq / NMI) attribution of
 * perf counter deltas, exposed over the generic netlink family "ctxcount".
 *
 * This header is the only definition of the protocol. The module and the
 * userspace tools both include it; nothing else may define these numbers.
 *
 * Every command is a request/response (NLM_F_REQUEST | NLM_F_ACK; READ may
 * also be a dump) on a socket of the family. A session belongs to the
 * socket (net namespace and port id) that created it: other sockets
 * cannot see it, and it is destroyed when that socket is closed, so a
 * client that dies leaks nothing.
 *
 * CTXCOUNT_CMD_SESSION_NEW: create a session (counters allocated, not yet
 * counting).
 *   request:
 *     CTXCOUNT_A_TARGET: NLA_NESTED
 *       CTXCOUNT_TARGET_A_PID: NLA_U32, a process in the caller's pid
 *                              namespace; all of its threads are monitored.
 *                              Absent with CTXCOUNT_TARGET_F_SYSTEM_WIDE.
 *       CTXCOUNT_TARGET_A_FLAGS: NLA_U32, 0 or more of enum ctxcount_target_flag
 *       CTXCOUNT_TARGET_A_CPUS: NLA_NESTED, optional, only with
 *                               SYSTEM_WIDE: count on these CPUs only
 *                               (default: every CPU); each one online
 *         CTXCOUNT_CPUS_A_CPU: NLA_U32, a CPU number; 1 or more, no
 *                              duplicates
 *     CTXCOUNT_A_EVENTS: NLA_NESTED, 1 to CTXCOUNT_MAX_EVENTS of
 *       CTXCOUNT_EVENTS_A_EVENT: NLA_NESTED
 *         CTXCOUNT_EVENT_A_TYPE: NLA_U32, PERF_TYPE_*
 *         CTXCOUNT_EVENT_A_CONFIG: NLA_U64, perf_event_attr.config
 *         CTXCOUNT_EVENT_A_FLAGS: NLA_U32, 0 or more of enum ctxcount_event_flag
 *         CTXCOUNT_EVENT_A_PERF_FD: NLA_S32 >= 0, the proof (see above)
 *     CTXCOUNT_A_SESSION_FLAGS: NLA_U32, optional, 0 or more of
 *                               enum ctxcount_session_flag
 *     CTXCOUNT_A_MAX_SOURCES: NLA_U32, optional (since version 4), only
 *                             with CTXCOUNT_SESSION_F_IRQ_SOURCES: 1 to
 *                             CTXCOUNT_MAX_SOURCES handler rows (default:
 *                             the module's parameter max_irq_sources)
 *   A session with CTXCOUNT_SESSION_F_PER_THREAD (since version 6) keeps
 *   a row per thread that got its task events at SESSION_NEW: the
 *   target's threads, or with CTXCOUNT_TARGET_F_ALL_THREADS every thread
 *   of the system in the sender's pid namespace (perf stat -a
 *   --per-thread, which opens a task event per thread too). Threads and
 *   children created later count in the row of the thread they were
 *   inherited from, as perf's inherited events do.
 *   reply:
 *     CTXCOUNT_A_SESSION_ID: NLA_U32
 *     CTXCOUNT_A_EVENTS: NLA_NESTED, one per requested event, in order
 *       CTXCOUNT_EVENTS_A_EVENT: NLA_NESTED
 *         CTXCOUNT_EVENT_A_INDEX: NLA_U32, position in the request
 *         CTXCOUNT_EVENT_A_ERROR: NLA_S32, 0, or the negative errno the
 *                                 perf core gave (e.g. -ENOENT: this event
 *                                 is not supported here). The session is
 *                                 still created; that event never counts.
 *
 * CTXCOUNT_CMD_SESSION_START / CTXCOUNT_CMD_SESSION_STOP: begin or end
 * counting. A stopped session can be read and started again. With
 * CTXCOUNT_TARGET_F_ENABLE_ON_EXEC, START arms the session and counting
 * begins when a monitored task execs.
 *   request:
 *     CTXCOUNT_A_SESSION_ID: NLA_U32
 *
 * CTXCOUNT_CMD_SESSION_READ: current totals of a session (one reply; as a
 * dump, below). A reply over a page that would leave its ack no room in
 * the requester's receive buffer is refused with -EMSGSIZE (the socket
 * would drop the ack).
 *   request:
 *     CTXCOUNT_A_SESSION_ID: NLA_U32
 *     CTXCOUNT_A_READ_FLAGS: NLA_U32, optional (since version 3), 0 or
 *                            more of enum ctxcount_read_flag
 *   reply:
 *     CTXCOUNT_A_SESSION_ID: NLA_U32
 *     CTXCOUNT_A_TASKS_SEEN: NLA_U64, tasks ever monitored by the session
 *     CTXCOUNT_A_TASKS_LOST: NLA_U64, tasks that should have been monitored
 *                            but could not be (allocation failure); when
 *                            non-zero, the counts are known to be short
 *     CTXCOUNT_A_TASKS_NOW: NLA_U32, tasks in the monitored set now (0 for
 *                           SYSTEM_WIDE): tasks leave it when they exit or
 *                           exec a non-dumpable image
 *     CTXCOUNT_A_CPUS_LOST: NLA_U32, CPUs that came online during the
 *                           session and could not get its counters (a CPU
 *                           that goes offline and online again normally
 *                           gets new ones and loses nothing); when
 *                           non-zero, the counts are known to be short
 *     CTXCOUNT_A_EXCURSIONS: NLA_NESTED, interrupts the monitored tasks
 *                            took from task context, by kind: one NLA_U64
 *                            per kind, attribute type = enum
 *                            ctxcount_excursion (the estimate's counts)
 *     CTXCOUNT_A_EVENTS: NLA_NESTED
 *       CTXCOUNT_EVENTS_A_EVENT: NLA_NESTED
 *         CTXCOUNT_EVENT_A_INDEX: NLA_U32
 *         CTXCOUNT_EVENT_A_ERROR: NLA_S32
 *         CTXCOUNT_EVENT_A_FULL: NLA_U64, what perf counted for the
 *                                event (since version 5 perf's own
 *                                value: the task events and their
 *                                children, or the CPU counters, as
 *                                perf stat reads them); the buckets add
 *                                up to it
 *         CTXCOUNT_EVENT_A_TIME_ENABLED: NLA_U64, perf's time enabled (ns)
 *         CTXCOUNT_EVENT_A_TIME_RUNNING: NLA_U64, perf's time running (ns):
 *                                        less than enabled when perf
 *                                        multiplexed the counter; scale
 *                                        as perf stat does
 *         CTXCOUNT_EVENT_A_BUCKETS: NLA_NESTED
 *           one NLA_U64 per context, attribute type = enum ctxcount_bucket
 *         CTXCOUNT_EVENT_A_DIRECT_CPUS: NLA_U32, CPUs on which the counter
 *                                       is read from the PMU's registers
 *                                       (the others read it through the
 *                                       PMU driver)
 *         CTXCOUNT_EVENT_A_SOURCES: NLA_NESTED, only for a session with
 *                                   CTXCOUNT_SESSION_F_IRQ_SOURCES: the
 *                                   HARDIRQ bucket split by source, one
 *                                   NLA_U64 per source, attribute type =
 *                                   the source's CTXCOUNT_SOURCE_A_ID;
 *                                   they add up to BUCKETS[HARDIRQ]
 *                                   (in a CPU's nest: OUTSIDE and the
 *                                   sources that ran or counted there)
 *         CTXCOUNT_EVENT_A_EST_STATE: NLA_U32, since version 5: enum
 *                                     ctxcount_est_state, whether
 *                                     BUCKETS[IRQ_ENTRY_EST] is applied
 *         CTXCOUNT_EVENT_A_EST_ERROR: NLA_U64, since version 5: the
 *                                     estimate's uncertainty (counts)
 *     CTXCOUNT_A_SOURCES: NLA_NESTED, only for a session with
 *                         CTXCOUNT_SESSION_F_IRQ_SOURCES, after
 *                         CTXCOUNT_A_EVENTS: the sources seen so far
 *       CTXCOUNT_SOURCES_A_SOURCE: NLA_NESTED, one per source
 *         CTXCOUNT_SOURCE_A_ID: NLA_U32, >= CTXCOUNT_SOURCE_ID_FIRST for
 *                               a handler, or one of the fixed ids
 *                               (enum ctxcount_source_id); stable for
 *                               the session's life
 *         CTXCOUNT_SOURCE_A_KIND: NLA_U32, enum ctxcount_source_kind
 *         CTXCOUNT_SOURCE_A_IRQ: NLA_U32, the Linux irq number (KIND_IRQ)
 *                                or the vector (KIND_VECTOR)
 *         CTXCOUNT_SOURCE_A_HWIRQ: NLA_U64, optional, the irq's hardware
 *                                  number (arm64's IPI<n> is hwirq n)
 *         CTXCOUNT_SOURCE_A_NAME: NLA_NUL_STRING, at most
 *                                 CTXCOUNT_SOURCE_NAME_LEN bytes with the
 *                                 nul: the irqaction's name (as
 *                                 /proc/interrupts shows it; a shared
 *                                 line: the first handler the session
 *                                 saw run, not the joined names), or the
 *                                 vector's tracepoint name without
 *                                 "_entry" (e.g. "local_timer")
 *         CTXCOUNT_SOURCE_A_COUNT: NLA_U64, handler runs counted (0 for
 *                                  OUTSIDE, which is no handler)
 *     CTXCOUNT_A_CPU: NLA_NESTED, only with CTXCOUNT_READ_F_PER_CPU (since
 *                     version 5 only for SYSTEM_WIDE sessions: perf
 *                     has no per-CPU value of a task event): one
 *                     per CPU, in increasing CPU order, after
 *                     CTXCOUNT_A_EVENTS; for each CPU of the session's
 *                     CPU list (every possible CPU without one) that is
 *                     online or counted something. Each holds that CPU's
 *                     share of the totals above: summed over these
 *                     nests, every FULL, TIME_*, bucket and excursion
 *                     count is exactly the total's.
 *       CTXCOUNT_CPU_A_CPU: NLA_U32, the CPU number
 *       CTXCOUNT_CPU_A_EXCURSIONS: NLA_NESTED, as CTXCOUNT_A_EXCURSIONS
 *       CTXCOUNT_CPU_A_EVENTS: NLA_NESTED, as CTXCOUNT_A_EVENTS (DIRECT_CPUS
 *                              is 0 or 1), with EVENT_A_SOURCES
 *       CTXCOUNT_CPU_A_SOURCE_COUNTS: NLA_NESTED, only with sources: the
 *                                     handler runs on this CPU, one
 *                                     NLA_U64 per source seen on it,
 *                                     attribute type = source id (names
 *                                     are in the top-level
 *                                     CTXCOUNT_A_SOURCES only)
 *     CTXCOUNT_A_THREAD: NLA_NESTED, only with CTXCOUNT_READ_F_PER_THREAD
 *                        (since version 6, sessions with
 *                        CTXCOUNT_SESSION_F_PER_THREAD): one per thread
 *                        row, in the order the rows were made, after
 *                        CTXCOUNT_A_EVENTS. FULL and the times are perf's
 *                        value of that thread's task events (children
 *                        included); the buckets and excursions what the
 *                        hooks counted while it (or a child) ran. Summed
 *                        over the rows, every value is the total's when
 *                        no monitored thread ran during the READ (e.g.
 *                        after STOP); otherwise the two are a few counts
 *                        apart.
 *       CTXCOUNT_THREAD_A_TID: NLA_U32, the thread's id in the requester's
 *                              pid namespace
 *       CTXCOUNT_THREAD_A_PID: NLA_U32, its process's id
 *       CTXCOUNT_THREAD_A_COMM: NLA_NUL_STRING, at most 16 bytes with
 *                               the nul: its comm at SESSION_NEW
 *       CTXCOUNT_THREAD_A_EXCURSIONS: NLA_NESTED, as CTXCOUNT_A_EXCURSIONS
 *       CTXCOUNT_THREAD_A_EVENTS: NLA_NESTED, as CTXCOUNT_A_EVENTS
 *                                 (DIRECT_CPUS is 0, SOURCES absent)
 *
 * CTXCOUNT_CMD_SESSION_READ with NLM_F_DUMP (since version 5): the same
 * READ as a series of messages, none larger than a page (NLMSG_GOODSIZE),
 * whatever the number of CPUs, events and sources; a single reply needs
 * one allocation of its whole size (about 3.5 KiB per CPU with 16
 * events, 12 KiB with 64 sources) and a receive buffer to hold it and its
 * ack. The request is a READ's (SESSION_ID, optional READ_FLAGS). A READ
 * refused (no such session, unknown flags, no memory) is an NLMSG_DONE
 * with the negative errno and the extended ack message, and no message
 * before it; attributes the policy refuses get the request's
 * NLMSG_ERROR, as for every command. The session is read
 * once, when the dump starts: every message comes from that snapshot,
 * so the parts add up exactly as a single reply's do.
 *   each message (cmd CTXCOUNT_CMD_SESSION_READ, NLM_F_MULTI):
 *     CTXCOUNT_A_SESSION_ID: NLA_U32, in every message
 *     then some of the attributes of the single reply, in its order:
 *     TASKS_SEEN, TASKS_LOST, TASKS_NOW, CPUS_LOST and EXCURSIONS (in
 *     the first message); CTXCOUNT_A_EVENTS nests holding the totals'
 *     events, each event whole; CTXCOUNT_A_SOURCES nests holding whole
 *     sources; CTXCOUNT_A_CPU nests in CPU order. A CPU's nest may be
 *     split over consecutive nests (in one or more messages) with the
 *     same CTXCOUNT_CPU_A_CPU: the first carries its EXCURSIONS and
 *     SOURCE_COUNTS, each carries some of its events in
 *     CTXCOUNT_CPU_A_EVENTS (each event whole, in index order).
 *     CTXCOUNT_A_THREAD nests in row order, split the same way: each
 *     carries CTXCOUNT_THREAD_A_TID, the first of a thread also its PID,
 *     COMM and EXCURSIONS.
 *   then NLMSG_DONE.
 *
 * CTXCOUNT_CMD_SESSION_CALIBRATE: measure what a hardirq that interrupts
 * user mode leaves on the task's side of the counter reads (for
 * CTXCOUNT_BUCKET_IRQ_ENTRY_EST), with the caller's thread as the
 * user-mode code, which the module has not got: the caller sends a
 * *_BEGIN, runs a fixed user-mode loop on the same CPU, sends _END; once
 * with CTXCOUNT_CALIBRATE_QUIET_BEGIN and once with
 * CTXCOUNT_CALIBRATE_STORM_BEGIN (the module fires a timer interrupt at
 * that CPU every few microseconds until _END, for at most 100 ms), the
 * same loop both times (the quiet run may be repeated, the first as a
 * warm-up: the least counts). The module counts with counters of its own;
 * the result holds for every session until the module is unloaded
 * (CTXCOUNT_FEATURE_EST_USER). Kernel mode is measured by the module
 * itself when it is loaded (CTXCOUNT_FEATURE_EST_KERNEL).
 * Since version 5 module-wide, and only for a caller with CAP_PERFMON or
 * CAP_SYS_ADMIN (sender and socket opener); no session is needed.
 *   request:
 *     CTXCOUNT_A_SESSION_ID: NLA_U32, ignored (before version 5: required)
 *     CTXCOUNT_A_CALIBRATE: NLA_U32, enum ctxcount_calibrate
 *   errors: -EPERM: not privileged; -EEXIST at a _BEGIN: user mode was
 *   measured already, no run is needed; -EAGAIN at _END: the caller
 *   changed CPU or was switched out, run it again; -EBUSY: another client
 *   is between its _BEGIN and _END; -EINVAL: _END without _BEGIN;
 *   -ENODEV at a _BEGIN: nothing is measured on this CPU's type (no
 *   counter the estimate applies to); -ERANGE at the _END of the storm
 *   run: the runs were not fit to keep (the storm
 *   run's hardirqs came mostly from kernel mode, or its figure is beyond
 *   what the module measured for kernel mode): nothing is kept, run the
 *   storm run again with the quiet runs' loop.
 *
 * CTXCOUNT_CMD_SESSION_DEL: destroy a session now.
 *   request:
 *     CTXCOUNT_A_SESSION_ID: NLA_U32
 *
 * CTXCOUNT_CMD_STATS: module-wide state, for tests and diagnostics.
 *   reply:
 *     CTXCOUNT_A_STATS_SESSIONS: NLA_U32, live sessions: of all sockets
 *                                for a caller with CAP_PERFMON or
 *                                CAP_SYS_ADMIN, else those of the
 *                                caller's real uid
 *     CTXCOUNT_A_STATS_FEATURES: NLA_U32, enum ctxcount_feature bits
 *
 * All u64 attributes are padded with CTXCOUNT_A_PAD / CTXCOUNT_EVENT_A_PAD,
 * with CTXCOUNT_BUCKET_UNSPEC inside CTXCOUNT_EVENT_A_BUCKETS, with
 * CTXCOUNT_EXCURSION_UNSPEC inside CTXCOUNT_A_EXCURSIONS and
 * CTXCOUNT_CPU_A_EXCURSIONS, with CTXCOUNT_SOURCE_A_PAD inside a source
 * and with CTXCOUNT_SOURCE_ID_UNSPEC inside CTXCOUNT_EVENT_A_SOURCES and
 * CTXCOUNT_CPU_A_SOURCE_COUNTS.
 * Unknown flag bits are rejected with -EOPNOTSUPP; every error carries an
 * extended ack message naming the offending attribute.
 */

#ifndef _UAPI_LINUX_CTXCOUNT_H
#define _UAPI_LINUX_CTXCOUNT_H

#define CTXCOUNT_GENL_NAME	"ctxcount"
/*
 * 3: CTXCOUNT_A_READ_FLAGS (per-CPU totals) and CTXCOUNT_TARGET_A_CPUS.
 * 4: CTXCOUNT_SESSION_F_IRQ_SOURCES and CTXCOUNT_A_MAX_SOURCES.
 * 5: per-task events (FULL and the times are perf's), CTXCOUNT_EVENT_A_EST_*,
 *    module-wide privileged CALIBRATE, per-CPU READ for SYSTEM_WIDE only,
 *    CTXCOUNT_CMD_SESSION_READ as a dump (NLM_F_DUMP).
 * 6: per-thread rows: CTXCOUNT_SESSION_F_PER_THREAD,
 *    CTXCOUNT_TARGET_F_ALL_THREADS, CTXCOUNT_READ_F_PER_THREAD.
 * A client that needs them checks the family's version first: older
 * versions reject the attributes as unknown and the flag as unsupported,
 * and a READ dump with -EOPNOTSUPP.
 */
#define CTXCOUNT_GENL_VERSION	6

/* Protocol limits; the module may enforce lower limits of its own. */
#define CTXCOUNT_MAX_EVENTS	16
#define CTXCOUNT_MAX_SOURCES	64
#define CTXCOUNT_SOURCE_NAME_LEN	32

enum ctxcount_cmd {
	CTXCOUNT_CMD_UNSPEC,
	CTXCOUNT_CMD_SESSION_NEW,
	CTXCOUNT_CMD_SESSION_START,
	CTXCOUNT_CMD_SESSION_STOP,
	CTXCOUNT_CMD_SESSION_READ,
	CTXCOUNT_CMD_SESSION_DEL,
	CTXCOUNT_CMD_STATS,
	CTXCOUNT_CMD_SESSION_CALIBRATE,
	__CTXCOUNT_CMD_LAST
};

#define CTXCOUNT_CMD_MAX (__CTXCOUNT_CMD_LAST - 1)

enum ctxcount_attr {
	CTXCOUNT_A_UNSPEC,
	CTXCOUNT_A_PAD,
	CTXCOUNT_A_SESSION_ID,
	CTXCOUNT_A_TARGET,
	CTXCOUNT_A_EVENTS,
	CTXCOUNT_A_TASKS_SEEN,
	CTXCOUNT_A_TASKS_LOST,
	CTXCOUNT_A_STATS_SESSIONS,
	CTXCOUNT_A_STATS_FEATURES,
	CTXCOUNT_A_CPUS_LOST,
	CTXCOUNT_A_TASKS_NOW,
	CTXCOUNT_A_SESSION_FLAGS,
	CTXCOUNT_A_EXCURSIONS,
	CTXCOUNT_A_CALIBRATE,
	CTXCOUNT_A_READ_FLAGS,
	CTXCOUNT_A_CPU,
	CTXCOUNT_A_MAX_SOURCES,
	CTXCOUNT_A_SOURCES,
	CTXCOUNT_A_THREAD,
	__CTXCOUNT_A_LAST
};

#define CTXCOUNT_A_MAX (__CTXCOUNT_A_LAST - 1)

enum ctxcount_target_attr {
	CTXCOUNT_TARGET_A_UNSPEC,
	CTXCOUNT_TARGET_A_PID,
	CTXCOUNT_TARGET_A_FLAGS,
	CTXCOUNT_TARGET_A_CPUS,
	__CTXCOUNT_TARGET_A_LAST
};

#define CTXCOUNT_TARGET_A_MAX (__CTXCOUNT_TARGET_A_LAST - 1)

enum ctxcount_cpus_attr {
	CTXCOUNT_CPUS_A_UNSPEC,
	CTXCOUNT_CPUS_A_CPU,
	__CTXCOUNT_CPUS_A_LAST
};

#define CTXCOUNT_CPUS_A_MAX (__CTXCOUNT_CPUS_A_LAST - 1)

enum ctxcount_read_flag {
	/* Add one CTXCOUNT_A_CPU nest per CPU to the reply. */
	CTXCOUNT_READ_F_PER_CPU		= 1U << 0,
	/* Add one CTXCOUNT_A_THREAD nest per thread row to the reply. */
	CTXCOUNT_READ_F_PER_THREAD	= 1U << 1,
	__CTXCOUNT_READ_F_ALL		= CTXCOUNT_READ_F_PER_CPU |
					  CTXCOUNT_READ_F_PER_THREAD
};

enum ctxcount_cpu_attr {
	CTXCOUNT_CPU_A_UNSPEC,
	CTXCOUNT_CPU_A_CPU,
	CTXCOUNT_CPU_A_EXCURSIONS,
	CTXCOUNT_CPU_A_EVENTS,
	CTXCOUNT_CPU_A_SOURCE_COUNTS,
	__CTXCOUNT_CPU_A_LAST
};

#define CTXCOUNT_CPU_A_MAX (__CTXCOUNT_CPU_A_LAST - 1)

enum ctxcount_thread_attr {
	CTXCOUNT_THREAD_A_UNSPEC,
	CTXCOUNT_THREAD_A_TID,
	CTXCOUNT_THREAD_A_PID,
	CTXCOUNT_THREAD_A_COMM,
	CTXCOUNT_THREAD_A_EXCURSIONS,
	CTXCOUNT_THREAD_A_EVENTS,
	__CTXCOUNT_THREAD_A_LAST
};

#define CTXCOUNT_THREAD_A_MAX (__CTXCOUNT_THREAD_A_LAST - 1)
#define CTXCOUNT_THREAD_COMM_LEN	16

enum ctxcount_target_flag {
	/* Children forked (and threads created) after START are monitored. */
	CTXCOUNT_TARGET_F_INHERIT	= 1U << 0,
	/* Every task but the idle tasks; proofs are CPU events (pid -1). */
	CTXCOUNT_TARGET_F_SYSTEM_WIDE	= 1U << 1,
	/*
	 * START arms the session; counting begins when a monitored task
	 * execs, where perf enables enable_on_exec events. Not with
	 * SYSTEM_WIDE.
	 */
	CTXCOUNT_TARGET_F_ENABLE_ON_EXEC = 1U << 2,
	/*
	 * Every thread alive at SESSION_NEW in the sender's pid namespace,
	 * each with its own task events (perf stat -a --per-thread). Only
	 * with CTXCOUNT_SESSION_F_PER_THREAD, without a PID, SYSTEM_WIDE,
	 * CPUS and ENABLE_ON_EXEC; only for a sender with CAP_PERFMON or
	 * CAP_SYS_ADMIN (sender and socket opener: perf checks ptrace
	 * access to each thread, which a module cannot). Proofs are task
	 * events on the sender's own thread (pid 0, cpu -1). At most the
	 * module's parameter max_threads threads.
	 */
	CTXCOUNT_TARGET_F_ALL_THREADS	= 1U << 3,
	__CTXCOUNT_TARGET_F_ALL		= CTXCOUNT_TARGET_F_INHERIT |
					  CTXCOUNT_TARGET_F_SYSTEM_WIDE |
					  CTXCOUNT_TARGET_F_ENABLE_ON_EXEC |
					  CTXCOUNT_TARGET_F_ALL_THREADS
};

enum ctxcount_session_flag {
	/*
	 * Leave CTXCOUNT_BUCKET_IRQ_ENTRY_EST empty: the task bucket keeps
	 * what interrupts leave on the task's side of the counter reads.
	 */
	CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE	= 1U << 0,
	/*
	 * Split the HARDIRQ bucket by interrupt handler (irq number and
	 * name; on x86 also the system vectors) in READ's
	 * CTXCOUNT_EVENT_A_SOURCES. Costs counter reads around every handler
	 * run. Needs CTXCOUNT_FEATURE_IRQ_SOURCES.
	 */
	CTXCOUNT_SESSION_F_IRQ_SOURCES		= 1U << 1,
	/*
	 * Keep a row per thread (CTXCOUNT_READ_F_PER_THREAD). Task sessions
	 * only (perf has no per-thread value of a CPU event), not with
	 * CTXCOUNT_SESSION_F_IRQ_SOURCES.
	 */
	CTXCOUNT_SESSION_F_PER_THREAD		= 1U << 2,
	__CTXCOUNT_SESSION_F_ALL		= CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE |
						  CTXCOUNT_SESSION_F_IRQ_SOURCES |
						  CTXCOUNT_SESSION_F_PER_THREAD
};

enum ctxcount_calibrate {
	CTXCOUNT_CALIBRATE_UNSPEC,
	CTXCOUNT_CALIBRATE_QUIET_BEGIN,
	CTXCOUNT_CALIBRATE_STORM_BEGIN,
	CTXCOUNT_CALIBRATE_END,
	__CTXCOUNT_CALIBRATE_LAST
};

#define CTXCOUNT_CALIBRATE_MAX (__CTXCOUNT_CALIBRATE_LAST - 1)

enum ctxcount_events_attr {
	CTXCOUNT_EVENTS_A_UNSPEC,
	CTXCOUNT_EVENTS_A_EVENT,
	__CTXCOUNT_EVENTS_A_LAST
};

#define CTXCOUNT_EVENTS_A_MAX (__CTXCOUNT_EVENTS_A_LAST - 1)

enum ctxcount_event_attr {
	CTXCOUNT_EVENT_A_UNSPEC,
	CTXCOUNT_EVENT_A_PAD,
	CTXCOUNT_EVENT_A_TYPE,
	CTXCOUNT_EVENT_A_CONFIG,
	CTXCOUNT_EVENT_A_FLAGS,
	CTXCOUNT_EVENT_A_INDEX,
	CTXCOUNT_EVENT_A_ERROR,
	CTXCOUNT_EVENT_A_FULL,
	CTXCOUNT_EVENT_A_TIME_ENABLED,
	CTXCOUNT_EVENT_A_TIME_RUNNING,
	CTXCOUNT_EVENT_A_BUCKETS,
	CTXCOUNT_EVENT_A_PERF_FD,
	CTXCOUNT_EVENT_A_DIRECT_CPUS,
	CTXCOUNT_EVENT_A_SOURCES,
	CTXCOUNT_EVENT_A_EST_STATE,
	CTXCOUNT_EVENT_A_EST_ERROR,
	__CTXCOUNT_EVENT_A_LAST
};

#define CTXCOUNT_EVENT_A_MAX (__CTXCOUNT_EVENT_A_LAST - 1)

/* Same meaning as perf_event_attr's exclude_* bits (perf's :u, :k, :h). */
enum ctxcount_event_flag {
	CTXCOUNT_EVENT_F_EXCLUDE_USER	= 1U << 0,
	CTXCOUNT_EVENT_F_EXCLUDE_KERNEL	= 1U << 1,
	CTXCOUNT_EVENT_F_EXCLUDE_HV	= 1U << 2,
	__CTXCOUNT_EVENT_F_ALL		= CTXCOUNT_EVENT_F_EXCLUDE_USER |
					  CTXCOUNT_EVENT_F_EXCLUDE_KERNEL |
					  CTXCOUNT_EVENT_F_EXCLUDE_HV
};

/*
 * The contexts a counter delta is attributed to; also the attribute types
 * inside CTXCOUNT_EVENT_A_BUCKETS. The softirq buckets follow the kernel's
 * softirq vector order (HI_SOFTIRQ .. RCU_SOFTIRQ), which has been stable
 * since 4.1.
 *
 * CTXCOUNT_BUCKET_IRQ_ENTRY_EST is not a context but an estimate moved out
 * of CTXCOUNT_BUCKET_TASK: the code every interrupt leaves on the task's
 * side of the counter reads (the architecture's interrupt entry and exit,
 * ftrace's dispatch to the hooks, the reads themselves), per interrupt of
 * each kind as the module measured it, times the interrupts of that kind
 * the monitored tasks took. Zero with CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE
 * and where CTXCOUNT_EVENT_A_EST_STATE says it is not applied. The
 * buckets still add up to FULL.
 */
enum ctxcount_bucket {
	CTXCOUNT_BUCKET_UNSPEC,
	CTXCOUNT_BUCKET_TASK,
	CTXCOUNT_BUCKET_HARDIRQ,
	CTXCOUNT_BUCKET_NMI,
	CTXCOUNT_BUCKET_SOFTIRQ_HI,
	CTXCOUNT_BUCKET_SOFTIRQ_TIMER,
	CTXCOUNT_BUCKET_SOFTIRQ_NET_TX,
	CTXCOUNT_BUCKET_SOFTIRQ_NET_RX,
	CTXCOUNT_BUCKET_SOFTIRQ_BLOCK,
	CTXCOUNT_BUCKET_SOFTIRQ_IRQ_POLL,
	CTXCOUNT_BUCKET_SOFTIRQ_TASKLET,
	CTXCOUNT_BUCKET_SOFTIRQ_SCHED,
	CTXCOUNT_BUCKET_SOFTIRQ_HRTIMER,
	CTXCOUNT_BUCKET_SOFTIRQ_RCU,
	CTXCOUNT_BUCKET_IRQ_ENTRY_EST,
	__CTXCOUNT_BUCKET_LAST
};

#define CTXCOUNT_BUCKET_MAX (__CTXCOUNT_BUCKET_LAST - 1)
#define CTXCOUNT_BUCKET_SOFTIRQ_FIRST CTXCOUNT_BUCKET_SOFTIRQ_HI
#define CTXCOUNT_NR_SOFTIRQ_BUCKETS \
	(CTXCOUNT_BUCKET_SOFTIRQ_RCU - CTXCOUNT_BUCKET_SOFTIRQ_HI + 1)

/*
 * The kinds of interrupts taken from task context that
 * CTXCOUNT_BUCKET_IRQ_ENTRY_EST is estimated from: a hardirq; a hardirq
 * that ran softirqs on its way out, with its exit read left to the first
 * softirq (the kernel lets the module know they follow) or done; softirqs
 * run from task context (local_bh_enable()); the first three when the
 * hardirq interrupted user mode.
 */
enum ctxcount_excursion {
	CTXCOUNT_EXCURSION_UNSPEC,
	CTXCOUNT_EXCURSION_HARDIRQ,
	CTXCOUNT_EXCURSION_HARDIRQ_SOFTIRQ,
	CTXCOUNT_EXCURSION_HARDIRQ_THEN_SOFTIRQ,
	CTXCOUNT_EXCURSION_SOFTIRQ,
	CTXCOUNT_EXCURSION_USER_HARDIRQ,
	CTXCOUNT_EXCURSION_USER_HARDIRQ_SOFTIRQ,
	CTXCOUNT_EXCURSION_USER_HARDIRQ_THEN_SOFTIRQ,
	__CTXCOUNT_EXCURSION_LAST
};

#define CTXCOUNT_EXCURSION_MAX (__CTXCOUNT_EXCURSION_LAST - 1)

enum ctxcount_source_attr {
	CTXCOUNT_SOURCE_A_UNSPEC,
	CTXCOUNT_SOURCE_A_PAD,
	CTXCOUNT_SOURCE_A_ID,
	CTXCOUNT_SOURCE_A_KIND,
	CTXCOUNT_SOURCE_A_IRQ,
	CTXCOUNT_SOURCE_A_HWIRQ,
	CTXCOUNT_SOURCE_A_NAME,
	CTXCOUNT_SOURCE_A_COUNT,
	__CTXCOUNT_SOURCE_A_LAST
};

#define CTXCOUNT_SOURCE_A_MAX (__CTXCOUNT_SOURCE_A_LAST - 1)

enum ctxcount_sources_attr {
	CTXCOUNT_SOURCES_A_UNSPEC,
	CTXCOUNT_SOURCES_A_SOURCE,
	__CTXCOUNT_SOURCES_A_LAST
};

#define CTXCOUNT_SOURCES_A_MAX (__CTXCOUNT_SOURCES_A_LAST - 1)

/*
 * Source ids (attribute types in CTXCOUNT_EVENT_A_SOURCES). OUTSIDE is the
 * hardirq work outside any handler (entry, controller acknowledge, the
 * flow handler, irq_exit); OTHER sums the handlers that found the
 * session's table full. Handlers get ids from CTXCOUNT_SOURCE_ID_FIRST
 * on, in the order the session first saw them.
 */
enum ctxcount_source_id {
	CTXCOUNT_SOURCE_ID_UNSPEC,
	CTXCOUNT_SOURCE_ID_OUTSIDE,
	CTXCOUNT_SOURCE_ID_OTHER,
	CTXCOUNT_SOURCE_ID_FIRST
};

#define CTXCOUNT_SOURCE_ID_MAX \
	(CTXCOUNT_SOURCE_ID_FIRST + CTXCOUNT_MAX_SOURCES - 1)

enum ctxcount_source_kind {
	CTXCOUNT_SOURCE_KIND_UNSPEC,
	CTXCOUNT_SOURCE_KIND_OUTSIDE,
	CTXCOUNT_SOURCE_KIND_OTHER,
	/* A handler of a Linux irq (irq_handler_entry/exit). */
	CTXCOUNT_SOURCE_KIND_IRQ,
	/* An x86 system vector (the irq_vectors tracepoints). */
	CTXCOUNT_SOURCE_KIND_VECTOR,
	__CTXCOUNT_SOURCE_KIND_LAST
};

enum ctxcount_feature {
	/* NMIs get a bucket of their own on this architecture/kernel. */
	CTXCOUNT_FEATURE_NMI		= 1U << 0,
	/* CTXCOUNT_SESSION_F_IRQ_SOURCES works: device handlers are split. */
	CTXCOUNT_FEATURE_IRQ_SOURCES	= 1U << 1,
	/* ... and x86's system vectors (local timer, IPIs) get rows too. */
	CTXCOUNT_FEATURE_IRQ_VECTORS	= 1U << 2,
	/* The estimate is measured for kernel mode (at load) for some event. */
	CTXCOUNT_FEATURE_EST_KERNEL	= 1U << 3,
	/* ... and for user mode (a privileged CALIBRATE). */
	CTXCOUNT_FEATURE_EST_USER	= 1U << 4,
};

/*
 * CTXCOUNT_EVENT_A_EST_STATE: whether the estimate is applied to an event,
 * and if not, why. Measured well means: a counter read from its register,
 * of an event type the module measured at load (instructions, branches,
 * cycles) whose rounds agreed (cycles of a real CPU do not).
 */
enum ctxcount_est_state {
	CTXCOUNT_EST_UNSPEC,
	CTXCOUNT_EST_APPLIED,
	/* CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE */
	CTXCOUNT_EST_DISABLED,
	/* It counts no kernel code (exclude_kernel): nothing to move. */
	CTXCOUNT_EST_NONE_NEEDED,
	/* Not an event type the module measures, or not on this CPU type. */
	CTXCOUNT_EST_NOT_MEASURED,
	/* Measured, but its rounds disagreed (e.g. cycles of a real CPU). */
	CTXCOUNT_EST_UNSTABLE,
	/* Read through its driver on some CPU: the model does not hold. */
	CTXCOUNT_EST_DRIVER_READ,
	__CTXCOUNT_EST_LAST
};

#endif /* _UAPI_LINUX_CTXCOUNT_H */
