// SPDX-License-Identifier: GPL-2.0
/*
 * ctxstat: perf stat for ctxcount. Glue only: parse the command line, set
 * up a ctxcount session per run around the workload, collect the counts
 * and hand them to output.c.
 */
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "args.h"
#include "events.h"
#include "nlclient.h"
#include "output.h"
#include "stats.h"
#include "workload.h"

#define CTX_EXIT_FAILURE 1

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * Ctrl-C ends a -p/-a measurement and, with a workload, goes to the
 * workload (same process group) while ctxstat lives on to print, as perf.
 * No SA_RESTART: poll()/pause() must return.
 */
static void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double timeval_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

struct run_state {
	const struct ctx_args *args;
	const struct ctx_event_list *events;
	struct ctx_nl nl;
	struct ctx_counter_result results[CTXCOUNT_MAX_EVENTS];
	struct ctx_stats walltime_ns;
	struct rusage rusage;
	int status;		/* workload wait status of the last run */
	int runs_done;
	bool no_nmi_bucket;
	bool exec_failed;	/* the workload could not be executed */
};

/* Which privilege is missing, for when the kernel did not say itself. */
static void print_permission_hint(const struct ctx_args *a, bool kernel_said)
{
	if (a->system_wide) {
		if (!kernel_said)
			fprintf(stderr,
				"ctxstat: counting system wide needs CAP_PERFMON or CAP_SYS_ADMIN\n");
		return;
	}
	fprintf(stderr,
		"ctxstat: counting a task needs CAP_PERFMON or CAP_SYS_ADMIN, or a task\n"
		"         you own and the module's paranoid parameter allowing it\n"
		"         (/sys/module/ctxcount/parameters/paranoid: 2, the default,\n"
		"         allows user-space-only events (add :u), 1 or less all events)\n");
}

static void report_nl_error(const struct run_state *s, const char *what,
			    int err)
{
	bool kernel_said = s->nl.extack[0];

	fprintf(stderr, "ctxstat: %s: %s", what, strerror(-err));
	if (kernel_said)
		fprintf(stderr, ": %s", s->nl.extack);
	fputc('\n', stderr);
	if (err == -EPERM || err == -EACCES)
		print_permission_hint(s->args, kernel_said);
	else if (err == -ESRCH && !kernel_said)
		fprintf(stderr, "ctxstat: no process %d\n", (int)s->args->pid);
}

/* Optional: an older module without STATS just keeps the nmi row. */
static void query_features(struct run_state *s)
{
	struct ctx_nl_reply *reply = calloc(1, sizeof(*reply));

	if (reply && !ctx_nl_stats(&s->nl, reply))
		s->no_nmi_bucket = !(reply->stats_features & CTXCOUNT_FEATURE_NMI);
	free(reply);
}

static int open_netlink(struct run_state *s)
{
	int err = ctx_nl_open(&s->nl);

	if (!err)
		query_features(s);
	if (err == -ENOENT) {
		fprintf(stderr,
			"ctxstat: kernel module not loaded; load it with `sudo insmod module/ctxcount.ko` (or `modprobe ctxcount`)\n");
	} else if (err) {
		fprintf(stderr, "ctxstat: cannot talk to the kernel over generic netlink: %s\n",
			strerror(-err));
	}
	return err;
}

static int create_session(struct run_state *s, pid_t pid, uint32_t *id)
{
	const struct ctx_event_list *l = s->events;
	struct ctx_nl_event_req req[CTXCOUNT_MAX_EVENTS];
	struct ctx_nl_target target = { 0 };
	struct ctx_nl_reply *reply;
	int i, err;

	if (s->args->system_wide)
		target.flags = CTXCOUNT_TARGET_F_SYSTEM_WIDE;
	else {
		target.pid = pid;
		target.flags = CTXCOUNT_TARGET_F_INHERIT;
	}
	for (i = 0; i < l->nr_counters; i++) {
		req[i].type = l->counters[i].type;
		req[i].config = l->counters[i].config;
		req[i].flags = l->counters[i].flags;
	}
	reply = calloc(1, sizeof(*reply));
	if (!reply)
		return -ENOMEM;
	err = ctx_nl_session_new(&s->nl, &target, req, l->nr_counters, reply);
	if (err) {
		report_nl_error(s, "cannot create a counting session", err);
		free(reply);
		return err;
	}
	*id = reply->session_id;
	for (i = 0; i < l->nr_counters; i++)
		s->results[i].error = reply->ev[i].error;
	free(reply);
	return 0;
}

/* Wait for -p's process to exit, or Ctrl-C. */
static void wait_for_pid(pid_t pid)
{
#ifdef SYS_pidfd_open
	struct pollfd pfd = { .events = POLLIN };

	pfd.fd = syscall(SYS_pidfd_open, pid, 0);
	if (pfd.fd >= 0) {
		while (!interrupted && poll(&pfd, 1, -1) == 0)
			;
		close(pfd.fd);
		return;
	}
#endif
	/* Kernels before 5.3: poll for the pid every 100 ms. */
	while (!interrupted && (kill(pid, 0) == 0 || errno == EPERM)) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
}

static void wait_for_interrupt(void)
{
	while (!interrupted)
		pause();
}

/* Run the workload (or wait for the target) between START and STOP. */
static int measure(struct run_state *s, struct ctx_workload *w)
{
	const struct ctx_args *a = s->args;
	double t0, t1;
	int err;

	t0 = now_ns();
	if (a->cmd) {
		err = ctx_workload_start(w);
		if (err) {
			fprintf(stderr, "ctxstat: cannot run '%s': %s\n",
				a->cmd[0], strerror(-err));
			s->exec_failed = true;
			ctx_workload_wait(w, &s->status, &s->rusage);
			return err;
		}
		err = ctx_workload_wait(w, &s->status, &s->rusage);
		if (err) {
			fprintf(stderr, "ctxstat: wait: %s\n", strerror(-err));
			return err;
		}
	} else if (a->pid) {
		wait_for_pid(a->pid);
	} else {
		wait_for_interrupt();
	}
	t1 = now_ns();
	ctx_stats_update(&s->walltime_ns, t1 - t0);
	return 0;
}

static void warn_bucket_sum(const struct ctx_event_list *l, int i,
			    const struct ctx_nl_event_val *v)
{
	uint64_t sum = 0;
	int b;

	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum += v->bucket[b];
	if (sum != v->full) {
		int j;

		for (j = 0; j < l->nr && l->ev[j].counter != i; j++)
			;
		fprintf(stderr,
			"ctxstat: %s: contexts sum to %llu, full count is %llu\n",
			j < l->nr ? l->ev[j].name : "?",
			(unsigned long long)sum, (unsigned long long)v->full);
	}
}

/* Fold one READ reply into the per-counter statistics. */
static void accumulate(struct run_state *s, const struct ctx_nl_reply *r)
{
	const struct ctx_nl_event_val *v;
	struct ctx_counter_result *res;
	int i, b;

	if (r->tasks_lost)
		fprintf(stderr,
			"ctxstat: warning: %llu tasks could not be monitored; counts are short\n",
			(unsigned long long)r->tasks_lost);
	if (r->cpus_lost)
		fprintf(stderr,
			"ctxstat: warning: %u CPUs came online without counters; counts are short\n",
			r->cpus_lost);
	if (s->args->verbose)
		fprintf(stderr, "ctxstat: session %u: %llu tasks monitored\n",
			r->session_id, (unsigned long long)r->tasks_seen);
	for (i = 0; i < s->events->nr_counters; i++) {
		v = &r->ev[i];
		res = &s->results[i];
		if (!v->present) {
			res->error = res->error ?: -EBADMSG;
			continue;
		}
		if (v->error)
			res->error = v->error;
		res->counted = v->time_running > 0;
		if (s->args->verbose && !v->error)
			warn_bucket_sum(s->events, i, v);
		ctx_stats_update(&res->full, ctx_scale_count(v->full,
				 v->time_enabled, v->time_running));
		for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
			ctx_stats_update(&res->bucket[b], ctx_scale_count(
				v->bucket[b], v->time_enabled, v->time_running));
		ctx_stats_update(&res->enabled, v->time_enabled);
		ctx_stats_update(&res->running, v->time_running);
	}
}

static int stop_and_read(struct run_state *s, uint32_t id)
{
	struct ctx_nl_reply *reply = calloc(1, sizeof(*reply));
	int err;

	if (!reply)
		return -ENOMEM;
	err = ctx_nl_session_cmd(&s->nl, CTXCOUNT_CMD_SESSION_STOP, id);
	if (err)
		report_nl_error(s, "cannot stop the session", err);
	else {
		err = ctx_nl_session_read(&s->nl, id, reply);
		if (err)
			report_nl_error(s, "cannot read the session", err);
		else
			accumulate(s, reply);
	}
	free(reply);
	return err;
}

static int one_run(struct run_state *s)
{
	const struct ctx_args *a = s->args;
	struct ctx_workload w = { .go_fd = -1, .err_fd = -1 };
	uint32_t id = 0;
	bool have_session = false;
	int err;

	if (a->cmd) {
		err = ctx_workload_prepare(&w, a->cmd);
		if (err) {
			fprintf(stderr, "ctxstat: fork: %s\n", strerror(-err));
			return err;
		}
	}
	if (!a->null_run) {
		/* With -p, a command only sets how long to count the pid. */
		err = create_session(s, a->pid ? a->pid : w.pid, &id);
		if (err)
			goto out;
		have_session = true;
		err = ctx_nl_session_cmd(&s->nl, CTXCOUNT_CMD_SESSION_START, id);
		if (err) {
			report_nl_error(s, "cannot start counting", err);
			goto out;
		}
	}
	err = measure(s, &w);
	if (!err && have_session)
		err = stop_and_read(s, id);
out:
	/* Never leave the workload behind when counting failed. */
	ctx_workload_kill(&w);
	if (have_session)
		ctx_nl_session_cmd(&s->nl, CTXCOUNT_CMD_SESSION_DEL, id);
	return err;
}

static void init_results(struct run_state *s)
{
	int i, b;

	ctx_stats_init(&s->walltime_ns);
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++) {
		struct ctx_counter_result *r = &s->results[i];

		memset(r, 0, sizeof(*r));
		ctx_stats_init(&r->full);
		for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
			ctx_stats_init(&r->bucket[b]);
		ctx_stats_init(&r->enabled);
		ctx_stats_init(&r->running);
	}
}

/*
 * "Not supported here" is normal and only shown with -v, as in perf; a
 * permission problem is not, so it is always said.
 */
static void print_event_errors(const struct run_state *s)
{
	const struct ctx_event_list *l = s->events;
	int i, err;

	for (i = 0; i < l->nr; i++) {
		err = s->results[l->ev[i].counter].error;
		if (!err)
			continue;
		if (err == -EPERM || err == -EACCES)
			fprintf(stderr,
				"ctxstat: %s: not counted: %s (needs CAP_PERFMON, or a lower ctxcount paranoid setting)\n",
				l->ev[i].name, strerror(-err));
		else if (s->args->verbose)
			fprintf(stderr, "ctxstat: %s: not counted: %s\n",
				l->ev[i].name, strerror(-err));
	}
}

static void print_report(struct run_state *s, FILE *out)
{
	const struct ctx_args *a = s->args;
	struct ctx_output_opts o = {
		.f = out,
		.format = a->json ? CTX_OUTPUT_JSON :
			  a->field_sep ? CTX_OUTPUT_CSV : CTX_OUTPUT_STD,
		.sep = a->field_sep,
		.breakdown = a->breakdown,
		.verbose = a->verbose,
	};
	struct ctx_report r = {
		.events = s->events,
		.counters = s->results,
		.runs = s->runs_done,
		.null_run = a->null_run,
		.walltime_ns = s->walltime_ns,
		/* user/sys are the command's: meaningless when it is not the target */
		.show_rusage = a->cmd && !a->pid && s->runs_done == 1,
		.user_s = timeval_s(&s->rusage.ru_utime),
		.sys_s = timeval_s(&s->rusage.ru_stime),
		.target = a->system_wide ? CTX_TARGET_SYSTEM_WIDE :
			  a->pid ? CTX_TARGET_PID : CTX_TARGET_COMMAND,
		.no_nmi_bucket = s->no_nmi_bucket,
		.cmd = a->cmd,
		.pid = a->pid,
	};

	print_event_errors(s);
	ctx_output_report(&o, &r);
}

static int run(const struct ctx_args *a, const struct ctx_event_list *l,
	       FILE *out)
{
	struct run_state *s = calloc(1, sizeof(*s));
	int i, err = 0, code;

	if (!s) {
		fprintf(stderr, "ctxstat: out of memory\n");
		return CTX_EXIT_FAILURE;
	}
	s->args = a;
	s->events = l;
	init_results(s);
	if (!a->null_run && open_netlink(s)) {
		free(s);
		return CTX_EXIT_FAILURE;
	}
	install_signal_handlers();
	for (i = 0; i < a->repeat && !err; i++) {
		err = one_run(s);
		if (!err)
			s->runs_done++;
		/* Ctrl-C ends a repeated series early, as in perf. */
		if (interrupted)
			break;
	}
	if (s->runs_done)
		print_report(s, out);
	/*
	 * 127 only for a command that does not exist: -ENOENT from the
	 * kernel (the module unloaded mid-run) is a counting failure.
	 */
	code = err ? (s->exec_failed && err == -ENOENT ? 127 : CTX_EXIT_FAILURE) :
	       a->cmd ? ctx_exit_code(s->status) : 0;
	ctx_nl_close(&s->nl);
	free(s);
	return code;
}

static int add_events(const struct ctx_args *a, struct ctx_event_list *l)
{
	char err[256];
	int i;

	if (a->null_run)
		return 0;
	for (i = 0; i < a->nr_event_specs; i++) {
		if (ctx_events_add(l, a->event_specs[i], err, sizeof(err)))
			goto bad;
	}
	if (!a->nr_event_specs && ctx_events_add_defaults(l, err, sizeof(err)))
		goto bad;
	return 0;
bad:
	fprintf(stderr, "ctxstat: %s\n", err);
	return -1;
}

int main(int argc, char **argv)
{
	static struct ctx_event_list events;
	struct ctx_args args;
	char err[256];
	FILE *out = stderr;
	int code;

	/* perf groups thousands per the locale ("%'"); so do we. */
	setlocale(LC_ALL, "");
	if (ctx_args_parse(&args, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "  Error: %s\n\n", err);
		ctx_args_usage(stderr);
		return CTX_EXIT_USAGE;
	}
	if (args.help) {
		ctx_args_usage(stdout);
		return 0;
	}
	if (args.list) {
		ctx_events_print_known(stdout);
		return 0;
	}
	if (add_events(&args, &events))
		return CTX_EXIT_USAGE;
	if (args.output) {
		out = fopen(args.output, "w");
		if (!out) {
			fprintf(stderr, "ctxstat: cannot open %s: %s\n",
				args.output, strerror(errno));
			return CTX_EXIT_FAILURE;
		}
	}
	code = run(&args, &events, out);
	if (out != stderr)
		fclose(out);
	return code;
}
