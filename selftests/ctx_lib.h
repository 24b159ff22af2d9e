/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the ctxcount selftests: a small generic netlink client
 * (libnl builds and parses the messages; the ack and its extended-ack TLVs
 * are parsed here so a test can check the error message), module and
 * parameter handling, forked workloads, running programs and reading the
 * kernel log.
 *
 * Nothing here includes kselftest_harness.h: it defines non-static
 * functions and may only be included by the test's own file.
 */
#ifndef CTX_LIB_H
#define CTX_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <linux/ctxcount.h>

#include "ctx_work.h"

struct nl_sock;
struct nl_msg;

/* ---- netlink client ---------------------------------------------------- */

struct ctx_sock {
	struct nl_sock *sk;
	int family;			/* resolved genl family id */
	unsigned int version;		/* CTRL_ATTR_VERSION */
	unsigned int maxattr;		/* CTRL_ATTR_MAXATTR */
};

/* The outcome of one request: the ack's error and extended ack. */
struct ctx_ack {
	int err;			/* 0 or a negative errno */
	bool has_msg;
	char msg[512];			/* NLMSGERR_ATTR_MSG */
	bool has_off;
	unsigned int off;		/* NLMSGERR_ATTR_OFFS */
	bool has_miss;
	unsigned int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE */
};

struct ctx_ev {
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	uint32_t flags;			/* enum ctxcount_event_flag */
	const char *name;		/* for messages only */
};

struct ctx_ev_res {
	bool has_index, has_error, has_full, has_enabled, has_running;
	bool has_buckets;
	uint32_t index;
	int32_t error;
	uint64_t full, enabled, running;
	int nbuckets;			/* bucket attributes seen */
	int dup_buckets;		/* bucket types seen twice */
	int bad_buckets;		/* bucket types out of range */
	bool has_b[CTXCOUNT_BUCKET_MAX + 1];
	uint64_t b[CTXCOUNT_BUCKET_MAX + 1];
};

/* A parsed ctxcount reply (NEW, READ or STATS). */
struct ctx_res {
	bool has_id, has_seen, has_lost, has_sessions, has_features;
	uint32_t id;
	uint64_t tasks_seen, tasks_lost;
	uint32_t sessions, features;
	int nev;
	struct ctx_ev_res ev[CTXCOUNT_MAX_EVENTS + 8];
	bool replied;			/* a reply message came back */
};

#define CTX_EV_SW(cfg, fl, nm) { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg, fl, nm }
#define CTX_EV_HW(cfg, fl, nm) { PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg, fl, nm }
#define CTX_F_USER_ONLY (CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV)

/* Open a socket of the family with NETLINK_EXT_ACK; -ENOENT: no family. */
int ctx_open(struct ctx_sock *s);
void ctx_close(struct ctx_sock *s);
int ctx_fd(struct ctx_sock *s);

/* A request message for cmd, header version CTXCOUNT_GENL_VERSION. */
struct nl_msg *ctx_msg(struct ctx_sock *s, uint8_t cmd);
/* Append the TARGET nest (pid < 0: no PID attribute). */
int ctx_put_target(struct nl_msg *m, int pid, uint32_t flags);
int ctx_put_events(struct nl_msg *m, const struct ctx_ev *ev, int n);
/*
 * Send msg (freed), collect the reply (if any) into res (may be NULL) and
 * the ack into ack (may be NULL). Returns the ack's error.
 */
int ctx_xfer(struct ctx_sock *s, struct nl_msg *msg, struct ctx_res *res,
	     struct ctx_ack *ack);

int ctx_new(struct ctx_sock *s, int pid, uint32_t tflags,
	    const struct ctx_ev *ev, int n, struct ctx_res *res,
	    struct ctx_ack *ack);
int ctx_cmd(struct ctx_sock *s, uint8_t cmd, uint32_t id,
	    struct ctx_res *res, struct ctx_ack *ack);
/* Live sessions (all sockets) or a negative errno. */
long ctx_live_sessions(void);
/*
 * Wait up to @ms for the live session count to reach @want (sockets are
 * released asynchronously after close); returns the last count seen.
 */
long ctx_wait_live_sessions(long want, int ms);
/* 1 if @cpu is online, 0 if not, -errno when sysfs cannot tell. */
int ctx_cpu_is_online(int cpu);
/* Take @cpu offline (@on 0) or online (@on 1) through sysfs; -errno. */
int ctx_cpu_set_online(int cpu, int on);
/* The id of tracepoint @event ("group/name") in tracefs, or -1. */
long ctx_tracepoint_id(const char *event);

uint64_t ctx_bucket_sum(const struct ctx_ev_res *e);
uint64_t ctx_softirq_sum(const struct ctx_ev_res *e);
const char *ctx_bucket_name(int b);
/* Text of a reply's per-event buckets, for logs. */
void ctx_fmt_event(const struct ctx_ev_res *e, char *buf, size_t len);

/* ---- module and environment -------------------------------------------- */

bool ctx_module_loaded(void);
int ctx_param_get(const char *name, long *val);
int ctx_param_set(const char *name, long val);
const char *ctx_ko_path(void);		/* $CTXCOUNT_KO or /ctx/module/ctxcount.ko */
const char *ctx_ctxstat_path(void);	/* $CTXSTAT or /ctx/bin/ctxstat */
const char *ctx_ctxload_path(void);	/* $CTXLOAD or /ctx/bin/ctxload */
const char *ctx_self_dir(void);		/* directory of this test program */
/* $dir/ctx_workload */
const char *ctx_workload_path(void);
/*
 * A copy of ctx_workload in a new directory under /tmp (tmpfs in the
 * guest), for tests that compare instruction counts between runs: run
 * from /ctx, each exec pages the program in over 9p, which sleeps a varying
 * number of times. Returns the path, or NULL with errno set. Remove it with
 * ctx_workload_copy_remove(path).
 */
const char *ctx_workload_copy(void);
void ctx_workload_copy_remove(const char *path);
/* delete_module("ctxcount") / finit_module(ko, params): 0 or -errno. */
int ctx_rmmod(void);
int ctx_insmod(const char *params);
/* "max_sessions=64 max_sessions_per_socket=8 paranoid=2" of the loaded module */
void ctx_current_params(char *buf, size_t len);
/* Why the test program cannot run here, or NULL. */
const char *ctx_cannot_run(void);
/* Whether an event counts here: the module's per-event error (0 = yes). */
int ctx_event_error(const struct ctx_ev *ev);
/*
 * Count an event on this thread with perf_event_open() around fn(arg):
 * the kernel's own answer, independent of ctxcount. Returns the count or a
 * negative errno (-ENOENT etc.: no such event here).
 */
long long ctx_perf_count(uint32_t type, uint64_t config, uint32_t flags,
			 void (*fn)(void *), void *arg);
/* perf binary in the guest (perf, perf_6.1, ...) or NULL */
const char *ctx_perf_path(void);

/* ---- forked workloads -------------------------------------------------- */

/* ctx_loop(*(uint64_t *)iters), for ctx_child_fork() and ctx_perf_count(). */
void ctx_loop_fn(void *iters);
/* Why the hardware instruction counter does not count here (in buf), or NULL. */
const char *ctx_no_insn_reason(char *buf, size_t len);

struct ctx_child {
	pid_t pid;
	int go_fd;
};

/* Fork a child that waits for ctx_child_go() then runs fn(arg) and exits 0. */
int ctx_child_fork(struct ctx_child *c, void (*fn)(void *), void *arg);
int ctx_child_go(struct ctx_child *c);
/* waitpid; returns the wait status or -1 */
int ctx_child_wait(struct ctx_child *c);

/* ---- running programs -------------------------------------------------- */

struct ctx_run {
	int status;		/* wait status; -1 if it could not run */
	bool timed_out;
	char out[16384];	/* stdout */
	char err[16384];	/* stderr */
};

/* Run argv (argv[0] a path), capture output, kill after timeout_s. */
int ctx_run(struct ctx_run *r, char *const argv[], int timeout_s);
/* Same, dropping to uid/gid first (uid < 0: stay root). */
int ctx_run_as(struct ctx_run *r, char *const argv[], int timeout_s,
	       int uid, int gid);

/* ---- perf stat / ctxstat CSV output (-x SEP) --------------------------- */

struct ctx_csv_row {
	int nfields;
	char f[12][160];	/* fields as printed */
	bool numeric;		/* f[0] is a number */
	double value;		/* f[0] when numeric */
};

/* Find the row whose event field (the 3rd) is event; 0 or -ENOENT. */
int ctx_csv_find(const char *text, char sep, const char *event,
		 struct ctx_csv_row *row);

/* ---- kernel log -------------------------------------------------------- */

/* Open /dev/kmsg positioned at its end; -1 if unavailable. */
int ctx_kmsg_open(void);
/* Read what was logged since; returns the number of report lines
 * (WARNING, BUG, Oops, ...) and copies the first into first. */
int ctx_kmsg_reports(int fd, char *first, size_t len);

/*
 * For FIXTURE_TEARDOWN: fail the test if the kernel logged a report since
 * ctx_kmsg_open() returned fd, naming the first one, then close fd.
 */
#define CTX_EXPECT_NO_KERNEL_REPORT(fd) do {				\
	char first_report[512];						\
									\
	EXPECT_EQ(0, ctx_kmsg_reports((fd), first_report,		\
				      sizeof(first_report)))		\
		TH_LOG("kernel report: %s", first_report);		\
	if ((fd) >= 0)							\
		close(fd);						\
} while (0)

/* Interrupt totals from /proc/interrupts (sum over CPUs and lines). */
unsigned long long ctx_total_interrupts(void);
unsigned long long ctx_softirq_total(const char *name);

/* ---- kernel type and interrupt threads ---------------------------------- */

/*
 * A PREEMPT_RT kernel ("PREEMPT_RT" in uname -v): softirqs run preemptible
 * in task context and every interrupt handler not marked IRQF_NO_THREAD
 * runs in an irq/N-name thread.
 */
bool ctx_kernel_is_rt(void);
/* Whether the running kernel has a symbol of this name (/proc/kallsyms). */
bool ctx_kernel_has_symbol(const char *name);
/*
 * The handler threads (irq/N-...) of the interrupts whose /proc/interrupts
 * line contains name; up to max pids in pids. Returns how many.
 */
int ctx_irq_threads(const char *name, pid_t *pids, int max);

/*
 * CTX_TIMEOUT_SCALE=N multiplies every test's harness timeout: on the debug
 * kernel (KASAN, lockdep under TCG) the same work takes several times as
 * long, and a test killed at its timeout proves nothing about the module.
 * The harness keeps its tests in lists private to each program, hence a
 * macro rather than a function in ctx_lib.c.
 */
#define CTX_SCALE_TIMEOUTS()						\
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
#define CTX_TEST_MAIN							\
int main(int argc, char **argv)						\
{									\
	const char *why = NULL;						\
									\
	setvbuf(stdout, NULL, _IOLBF, 0);				\
	if (!(argc > 1 && (!strcmp(argv[1], "-l") || !strcmp(argv[1], "-h")))) \
		why = ctx_cannot_run();					\
	if (why)							\
		ksft_exit_skip("%s", why);				\
	CTX_SCALE_TIMEOUTS();						\
	return test_harness_run(argc, argv);				\
}

#endif /* CTX_LIB_H */
