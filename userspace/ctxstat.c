// SPDX-License-Identifier: GPL-2.0
/*
 * ctxstat: perf stat for ctxcount. Glue only: parse the command line, set
 * up a ctxcount session per run around the workload, collect the counts
 * and hand them to output.c.
 */
#include <errno.h>
#include <libgen.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "args.h"
#include "compare.h"
#include "events.h"
#include "nlclient.h"
#include "noise.h"
#include "output.h"
#include "report.h"
#include "results.h"
#include "sample.h"
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
	/* every run's value of every displayed event, and its elapsed time */
	struct ctx_sample values[CTX_MAX_EVENTS];
	struct ctx_sample elapsed_ns;
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
	return ctx_sample_add(&s->elapsed_ns, t1 - t0);
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

/* This run's value of every displayed event, as output.c shows it. */
static void keep_values(struct run_state *s, const struct ctx_nl_reply *r)
{
	const struct ctx_event_list *l = s->events;
	const struct ctx_nl_event_val *v;
	uint64_t raw;
	int i;

	for (i = 0; i < l->nr; i++) {
		v = &r->ev[l->ev[i].counter];
		if (!v->present || v->error)
			continue;
		raw = l->ev[i].task_only ? v->bucket[CTXCOUNT_BUCKET_TASK] :
		      v->full;
		if (ctx_sample_add(&s->values[i], ctx_scale_count(raw,
				   v->time_enabled, v->time_running)))
			fprintf(stderr, "ctxstat: out of memory keeping values\n");
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
	keep_values(s, r);
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

static struct run_state *new_state(const struct ctx_args *a,
				   const struct ctx_event_list *l)
{
	struct run_state *s = calloc(1, sizeof(*s));

	if (!s) {
		fprintf(stderr, "ctxstat: out of memory\n");
		return NULL;
	}
	s->args = a;
	s->events = l;
	init_results(s);
	if (!a->null_run && open_netlink(s)) {
		free(s);
		return NULL;
	}
	return s;
}

static void free_state(struct run_state *s)
{
	int i;

	if (!s)
		return;
	ctx_nl_close(&s->nl);
	for (i = 0; i < CTX_MAX_EVENTS; i++)
		ctx_sample_free(&s->values[i]);
	ctx_sample_free(&s->elapsed_ns);
	free(s);
}

/* The event --repeat-until watches: --repeat-event's, else the first. */
static int until_event(const struct ctx_args *a, const struct ctx_event_list *l)
{
	int i;

	if (!a->repeat_event)
		return 0;
	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->ev[i].name, a->repeat_event))
			return i;
	return -1;
}

/*
 * --repeat-until: done once the watched event's relative standard error
 * is below the target after at least CTX_REPEAT_UNTIL_MIN_RUNS runs. An
 * event that is not counted at all has nothing to wait for.
 */
static bool precise_enough(const struct run_state *s, int ev)
{
	const struct ctx_sample *v = &s->values[ev];

	if (s->runs_done < CTX_REPEAT_UNTIL_MIN_RUNS)
		return false;
	if (!v->n)
		return true;
	return ctx_sample_rse_pct(v) < s->args->repeat_until;
}

static int max_runs(const struct ctx_args *a)
{
	if (a->repeat_until && !a->repeat_set)
		return CTX_REPEAT_UNTIL_MAX_RUNS;
	return a->repeat;
}

static void print_until(const struct run_state *s, int ev, const char *who)
{
	const struct ctx_sample *v = &s->values[ev];
	const char *name = s->events->ev[ev].name;

	if (!v->n) {
		fprintf(stderr, "ctxstat: %s%s: not counted, --repeat-until has nothing to watch\n",
			who, name);
		return;
	}
	fprintf(stderr, "ctxstat: %s%s: relative standard error %.3f%% after %d runs (target %g%%%s)\n",
		who, name, ctx_sample_rse_pct(v), s->runs_done,
		s->args->repeat_until,
		ctx_sample_rse_pct(v) < s->args->repeat_until ? "" : ", not reached");
}

/*
 * Outliers by the MAD rule, one line per event on stderr; they are
 * reported, never dropped from the mean. Plain numbers (no grouping) so
 * the line cannot look like a CSV row.
 */
static void print_outliers(const struct run_state *s, const char *who)
{
	const struct ctx_event_list *l = s->events;
	bool out[1024], *o;
	int i, j, first;

	for (i = 0; i < l->nr; i++) {
		const struct ctx_sample *v = &s->values[i];

		o = v->n <= 1024 ? out : calloc(v->n, sizeof(*o));
		if (!o || !ctx_sample_outliers(v, o)) {
			if (o != out)
				free(o);
			continue;
		}
		fprintf(stderr, "ctxstat: %s%s: outlier runs (more than %g x MAD %.*f from the median %.*f, kept in the mean):",
			who, l->ev[i].name, CTX_OUTLIER_MADS,
			ctx_sample_mad(v) < 10 ? 3 : 0, ctx_sample_mad(v),
			ctx_sample_median(v) < 10 ? 3 : 0, ctx_sample_median(v));
		for (j = 0, first = 1; j < v->n; j++)
			if (o[j]) {
				fprintf(stderr, "%s run %d (%.*f)",
					first ? "" : ",", j + 1,
					fabs(v->v[j]) < 10 ? 3 : 0, v->v[j]);
				first = 0;
			}
		fputc('\n', stderr);
		if (o != out)
			free(o);
	}
}

/* "cmd arg arg" into a new string */
static char *join_cmd(char **cmd, const char *fallback)
{
	size_t len = 1;
	char *j;
	int i;

	for (i = 0; cmd && cmd[i]; i++)
		len += strlen(cmd[i]) + 1;
	if (!cmd)
		return strdup(fallback);
	j = calloc(1, len);
	for (i = 0; j && cmd[i]; i++) {
		if (i)
			strcat(j, " ");
		strcat(j, cmd[i]);
	}
	return j;
}

/* The saved file's name without directory and .json: the default label. */
static char *file_label(const char *path)
{
	char *copy = strdup(path), *base, *label;
	size_t n;

	if (!copy)
		return NULL;
	base = basename(copy);
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		base[n - 5] = '\0';
	label = strdup(base);
	free(copy);
	return label;
}

/* A result that borrows @s's samples; free with unborrow_result(). */
static int borrow_result(const struct run_state *s, char **cmd,
			 const char *config, struct ctx_result *r)
{
	const struct ctx_args *a = s->args;
	const struct ctx_event_list *l = s->events;
	char fallback[64];
	int i, err;

	memset(r, 0, sizeof(*r));
	if (a->system_wide)
		snprintf(fallback, sizeof(fallback), "system wide");
	else
		snprintf(fallback, sizeof(fallback), "pid %d", (int)a->pid);
	r->benchmark = a->name ? strdup(a->name) : join_cmd(cmd, fallback);
	r->config = strdup(config);
	r->command = cmd;
	r->elapsed_ns = s->elapsed_ns;
	r->ev = calloc(l->nr ? l->nr : 1, sizeof(*r->ev));
	if (!r->benchmark || !r->config || !r->ev)
		return -ENOMEM;
	r->nr_ev = l->nr;
	for (i = 0; i < l->nr; i++) {
		r->ev[i].name = (char *)l->ev[i].name;
		r->ev[i].values = s->values[i];
		err = s->results[l->ev[i].counter].error;
		if (err)
			r->ev[i].error = strerror(-err);
	}
	return 0;
}

static void unborrow_result(struct ctx_result *r)
{
	free(r->benchmark);
	free(r->config);
	free(r->ev);
}

static int save_results(const char *path, const struct ctx_result *r, int nr)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f) {
		fprintf(stderr, "ctxstat: cannot save to %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	err = ctx_results_write(f, r, nr);
	if (fclose(f) || err) {
		fprintf(stderr, "ctxstat: cannot save to %s: write error\n", path);
		return -1;
	}
	return 0;
}

static int save_stat(const struct run_state *s)
{
	const struct ctx_args *a = s->args;
	char *label = a->label ? strdup(a->label) : file_label(a->save);
	struct ctx_result r;
	int err = -1;

	if (label && !borrow_result(s, a->cmd, label, &r))
		err = save_results(a->save, &r, 1);
	else
		fprintf(stderr, "ctxstat: out of memory\n");
	unborrow_result(&r);
	free(label);
	return err;
}

static bool noisy_setup_check_wanted(const struct ctx_args *a)
{
	return !a->no_noise_check &&
	       (a->compare || a->repeat > 1 || a->repeat_until);
}

static int run(const struct ctx_args *a, const struct ctx_event_list *l,
	       FILE *out)
{
	int i, err = 0, code, watch = until_event(a, l);
	struct run_state *s;

	if (noisy_setup_check_wanted(a))
		ctx_noise_check_env(stderr);
	s = new_state(a, l);
	if (!s)
		return CTX_EXIT_FAILURE;
	install_signal_handlers();
	for (i = 0; i < max_runs(a) && !err; i++) {
		err = one_run(s);
		if (!err)
			s->runs_done++;
		/* Ctrl-C ends a repeated series early, as in perf. */
		if (interrupted)
			break;
		if (a->repeat_until && precise_enough(s, watch))
			break;
	}
	if (s->runs_done)
		print_report(s, out);
	if (s->runs_done && a->repeat_until)
		print_until(s, watch, "");
	print_outliers(s, "");
	if (s->runs_done && a->save && save_stat(s) && !err)
		err = -EIO;
	/*
	 * 127 only for a command that does not exist: -ENOENT from the
	 * kernel (the module unloaded mid-run) is a counting failure.
	 */
	code = err ? (s->exec_failed && err == -ENOENT ? 127 : CTX_EXIT_FAILURE) :
	       a->cmd ? ctx_exit_code(s->status) : 0;
	free_state(s);
	return code;
}

/* ----------------------------------------------------------- compare -- */

static bool is_clock_event(const struct ctx_event *ev)
{
	return ctx_event_is(ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       ctx_event_is(ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

static int compare_table(struct run_state *sa, struct run_state *sb, FILE *out)
{
	const struct ctx_args *a = sa->args;
	const struct ctx_event_list *l = sa->events;
	struct ctx_compare_row *rows = calloc(l->nr ? l->nr : 1, sizeof(*rows));
	struct ctx_compare_print p = {
		.f = out, .sep = a->field_sep, .cmd_a = sa->args->cmd,
		.cmd_b = sb->args->cmd,
		.runs = sa->runs_done < sb->runs_done ? sa->runs_done :
			sb->runs_done,
	};
	int i, err;

	if (!rows)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++) {
		struct ctx_compare_row *r = &rows[i];

		r->name = l->ev[i].name;
		r->counter = l->ev[i].counter;
		r->task_only = l->ev[i].task_only;
		r->clock = is_clock_event(&l->ev[i]);
		err = sa->results[r->counter].error ?: sb->results[r->counter].error;
		if (err == -EOPNOTSUPP || err == -ENOENT)
			r->error = "<not supported>";
		else if (err)
			r->error = strerror(-err);
		r->a = &sa->values[i];
		r->b = &sb->values[i];
		ctx_compare_row_eval(r);
	}
	ctx_compare_print(&p, rows, l->nr);
	free(rows);
	return 0;
}

static int save_compare(const struct run_state *sa, const struct run_state *sb)
{
	const struct ctx_args *a = sa->args;
	char *labels = strdup(a->label ? a->label : "A,B"), *comma;
	struct ctx_result r[2];
	int err = -1;

	comma = labels ? strchr(labels, ',') : NULL;
	if (!comma) {
		fprintf(stderr, "ctxstat: --label for compare is '<A label>,<B label>'\n");
		free(labels);
		return -1;
	}
	*comma = '\0';
	/* one benchmark, two configurations: rows of a report line up */
	if (!borrow_result(sa, sa->args->cmd, labels, &r[0]) &&
	    !borrow_result(sb, sb->args->cmd, comma + 1, &r[1])) {
		free(r[1].benchmark);
		r[1].benchmark = strdup(r[0].benchmark);
		if (r[1].benchmark)
			err = save_results(a->save, r, 2);
	}
	unborrow_result(&r[0]);
	unborrow_result(&r[1]);
	free(labels);
	return err;
}

/* A command that fails makes every number meaningless: stop and say so. */
static int check_status(const struct run_state *s, const char *who)
{
	int code = ctx_exit_code(s->status);

	if (!code)
		return 0;
	fprintf(stderr, "ctxstat: command %s ('%s') exited with status %d; comparison stopped\n",
		who, s->args->cmd[0], code);
	return code;
}

static bool compare_precise_enough(const struct run_state *sa,
				   const struct run_state *sb, int watch)
{
	return sa->runs_done == sb->runs_done && precise_enough(sa, watch) &&
	       precise_enough(sb, watch);
}

static int run_compare(const struct ctx_args *args,
		       const struct ctx_event_list *l, FILE *out)
{
	struct ctx_args a = *args, b = *args;
	struct run_state *sa, *sb, *s;
	int i, err = 0, code = 0, watch = until_event(args, l);

	b.cmd = args->cmd_b;
	b.cmd_argc = args->cmd_b_argc;
	if (noisy_setup_check_wanted(args))
		ctx_noise_check_env(stderr);
	sa = new_state(&a, l);
	sb = sa ? new_state(&b, l) : NULL;
	if (!sb) {
		free_state(sa);
		return CTX_EXIT_FAILURE;
	}
	install_signal_handlers();
	for (i = 0; i < 2 * max_runs(args) && !err && !code; i++) {
		bool is_b = ctx_abba_is_b(i);

		s = is_b ? sb : sa;
		err = one_run(s);
		if (!err) {
			s->runs_done++;
			code = check_status(s, is_b ? "B" : "A");
		}
		if (interrupted)
			break;
		if (args->repeat_until && compare_precise_enough(sa, sb, watch))
			break;
	}
	if (!err && !code) {
		err = compare_table(sa, sb, out);
		if (args->repeat_until) {
			print_until(sa, watch, "A: ");
			print_until(sb, watch, "B: ");
		}
		print_outliers(sa, "A: ");
		print_outliers(sb, "B: ");
		if (args->save && save_compare(sa, sb))
			err = -EIO;
	}
	if (!code)
		code = err ? (err == -ENOENT ? 127 : CTX_EXIT_FAILURE) : 0;
	free_state(sa);
	free_state(sb);
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

	bool compare = argc > 1 && !strcmp(argv[1], "compare");

	/* perf groups thousands per the locale ("%'"); so do we. */
	setlocale(LC_ALL, "");
	if (argc > 1 && !strcmp(argv[1], "report"))
		return ctx_report_main(argc - 1, argv + 1);
	if (compare ? ctx_args_parse_compare(&args, argc - 1, argv + 1, err,
					     sizeof(err)) :
		      ctx_args_parse(&args, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "  Error: %s\n\n", err);
		if (compare)
			ctx_args_compare_usage(stderr);
		else
			ctx_args_usage(stderr);
		return CTX_EXIT_USAGE;
	}
	if (args.help) {
		if (compare)
			ctx_args_compare_usage(stdout);
		else
			ctx_args_usage(stdout);
		return 0;
	}
	if (args.list) {
		ctx_events_print_known(stdout);
		return 0;
	}
	if (add_events(&args, &events))
		return CTX_EXIT_USAGE;
	if (until_event(&args, &events) < 0) {
		fprintf(stderr, "ctxstat: --repeat-event %s: not one of the counted events\n",
			args.repeat_event);
		return CTX_EXIT_USAGE;
	}
	if (args.output) {
		out = fopen(args.output, "w");
		if (!out) {
			fprintf(stderr, "ctxstat: cannot open %s: %s\n",
				args.output, strerror(errno));
			return CTX_EXIT_FAILURE;
		}
	}
	code = compare ? run_compare(&args, &events, out) :
			 run(&args, &events, out);
	if (out != stderr)
		fclose(out);
	return code;
}
