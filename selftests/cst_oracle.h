/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_oracle: the test bed's oracle module (module/tests/oracle_mod.c:
 * interrupts with known work on request) and a long-lived child that runs
 * its commands, measured around each one: by a ctxcount session on the
 * child, by perf_event_open() counters on it, by the oracle's own counts
 * and /proc/interrupts.
 */
#ifndef CST_ORACLE_H
#define CST_ORACLE_H

#include <stdbool.h>

#include "cst_nl.h"
#include "cst_run.h"

#define CST_ORACLE_RUN		"/sys/kernel/debug/ctxoracle/run"
#define CST_ORACLE_STATS	"/sys/kernel/debug/ctxoracle/stats"

/* How many of each handler the oracle ran, ever. */
struct cst_oracle_stats {
	long hardirqs, tasklets, nmis, storm;
	long devirqs;		/* its own irq's handler runs */
	int virq;		/* that irq's number, -1 without one */
	long long nmi_ns;	/* local_clock() its NMI handlers spun */
};

int cst_oracle_stats(struct cst_oracle_stats *st);
/* $CTX_ORACLE_KO, else testbed/oracle_mod.ko next to the selftests' dir. */
const char *cst_oracle_ko_path(void);
/* Load the oracle module unless it is loaded; 0 or -errno. */
int cst_oracle_load(void);
/* Write one command (oracle_mod.c's head comment); 0 or -errno. */
int cst_oracle_cmd(const char *cmd);
/*
 * Why the exact-count oracles cannot run here (no instruction counter,
 * more than one CPU: under -icount each vCPU counts the others), or NULL.
 */
const char *cst_oracle_exact_cannot_run(void);

/*
 * |full - perf_event_open| per command, in instructions. The child switches
 * in and out about twice per command, and the two count from different
 * points of a context switch (the sched_switch tracepoint; perf's
 * sched_in/sched_out), a few hundred instructions apart: measured 400 to
 * 510 on arm64 6.1.
 */
#define CST_ORACLE_PERF_SLACK	2000

/*
 * The oracles' sessions: the first event (instructions) alone, or all
 * four; with shift=0 QEMU's cycle counter counts instructions too.
 */
extern const struct cst_ev cst_oracle_events[4];

/*
 * The child: runs each command it is sent (an oracle command; "loop N":
 * cst_loop(N) in user space; "thread N": the same in a new thread, joined;
 * "storm-HZ T loop N" or "storm-HZ T kloop N": the oracle's storm started
 * and stopped by the child around that loop) and answers. One long-lived process,
 * so that what its own task context costs from one command to the next
 * (pipe, syscall and scheduler paths, all warm) hardly varies; a new
 * process per command varied by thousands of instructions (page faults,
 * exit).
 */
#define CST_WORKER_PERF	2
#define CST_WORKER_THREADS	2

/* What cst_worker_start_cfg() does beyond cst_worker_start(). */
struct cst_worker_cfg {
	/*
	 * A second thread S (thread 1) beside the main thread M (thread
	 * 0), each reading commands of its own, both there before the
	 * session's NEW (so both get task events: per-thread rows);
	 * perf[i] is opened on thread i alone (pid = tid, no inherit),
	 * before NEW.
	 */
	bool second_thread;
	/* The session's target flags; ALL_THREADS: no pid, proofs on us. */
	uint32_t tflags;
	/* Flags of the READs around each command, and whether dumps. */
	uint32_t read_flags;
	bool read_dump;
};

struct cst_worker {
	struct cst_child c;
	int nthr;
	int cmd_fd[CST_WORKER_THREADS], ack_fd[CST_WORKER_THREADS];
	pid_t tid[CST_WORKER_THREADS];
	struct cst_worker_cfg cfg;
	struct cst_sock s;
	uint32_t id;		/* the session on it, if any */
	int nev;		/* its events (0: no session) */
	int pfd[CST_WORKER_PERF];
};

/*
 * Start the child, with a started session of @nev events on it (none when
 * 0; @r gets the NEW reply) and perf_event_open() counters of @perf[0..nperf)
 * on it (as perf stat opens them: counting the child only).
 */
int cst_worker_start(struct cst_worker *w, const struct cst_ev *ev, int nev,
		     const struct cst_ev *perf, int nperf, struct cst_res *r);
/*
 * The same with @cfg; the session's flags are cst_new_session_flags
 * (CTXCOUNT_SESSION_F_PER_THREAD).
 */
int cst_worker_start_cfg(struct cst_worker *w, const struct cst_worker_cfg *cfg,
			 const struct cst_ev *ev, int nev,
			 const struct cst_ev *perf, int nperf, struct cst_res *r);
void cst_worker_stop(struct cst_worker *w);
/* Thread @t of the child runs @cmd, nothing measured: 0 or -errno. */
int cst_worker_tell(struct cst_worker *w, int t, const char *cmd);

/* What one command added. */
struct cst_worker_delta {
	/* the session's READ around it (rows in .thr, if the caller set it) */
	struct cst_res before, after;
	long long perf[CST_WORKER_PERF];
	struct cst_oracle_stats oracle;	/* handlers the oracle ran */
	long long interrupts;		/* /proc/interrupts, all CPUs */
	/* strict: the oracle's own interrupts were all (a devirq shows twice) */
	long long proc_nmis;		/* its NMI row */
	/*
	 * Times the thread that ran @cmd was switched out involuntarily
	 * meanwhile (/proc's nonvoluntary_ctxt_switches; -1 unknown): the
	 * scheduler's code on its side of such a switch is task context of
	 * its own, a few thousand instructions.
	 */
	long long preempted;
};

/*
 * Run @cmd in the child and measure around it. With @strict, repeated (up
 * to 20 times) while an interrupt other than the oracle's landed meanwhile.
 * Returns 0, -EAGAIN when every try had one, or another negative errno.
 */
int cst_worker_run(struct cst_worker *w, const char *cmd,
		   struct cst_worker_delta *d, bool strict);
/* The same with thread @t of the child running @cmd (cst_worker_cfg). */
int cst_worker_run_on(struct cst_worker *w, int t, const char *cmd,
		      struct cst_worker_delta *d, bool strict);
/* Was the thread that ran them preempted in one of @n commands from @d. */
bool cst_worker_preempted(const struct cst_worker_delta *d, int n);
/*
 * Put the caller, and a child it then starts, at SCHED_BATCH: woken by
 * the child's ack, the caller would now and then preempt the child before
 * it was back asleep, a few thousand instructions of the child's task
 * context (per_thread_oracle.c's "Steady"). 0 or -errno.
 */
int cst_worker_no_wakeup_preemption(void);
/* The growth of bucket @b of event @e over @d. */
long long cst_worker_bucket(const struct cst_worker_delta *d, int e, int b);
long long cst_worker_full(const struct cst_worker_delta *d, int e);

#endif /* CST_ORACLE_H */
