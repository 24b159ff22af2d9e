// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-stat: ctxstat [<options>] <command>: parse, run the series,
 * print the counts in perf's layout (output/display.c), then what the
 * runs say about themselves (run/repeat.c), then --save.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "events/tracepoint.h"
#include "output/display.h"
#include "output/outfile.h"
#include "output/progress.h"
#include "results/save.h"
#include "run/noise.h"
#include "run/repeat.h"
#include "run/runner.h"
#include "run/signals.h"
#include "run/target-wait.h"
#include "run/workload.h"
#include "setup.h"

static double timeval_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

/*
 * "Not supported here" is normal and only shown with -v, as in perf; a
 * permission problem is not, so it is always said.
 */
static void print_event_errors(const struct cxs_runner *r)
{
	const struct cxs_event_list *l = r->events;
	int i, err;

	for (i = 0; i < l->nr; i++) {
		err = r->counters[l->ev[i].counter].error;
		if (!err)
			continue;
		if (err == -EPERM || err == -EACCES)
			fprintf(stderr, "ctxstat: %s: not counted: %s\n",
				l->ev[i].name, strerror(-err));
		else if (r->args->verbose)
			fprintf(stderr, "ctxstat: %s: not counted: %s\n",
				l->ev[i].name, strerror(-err));
	}
}

/* How the counts of @r are printed to @out, and what they are. */
static void output_of(const struct cxs_runner *r, FILE *out,
		      struct cxs_output_opts *o, struct cxs_series *s)
{
	const struct cxs_args *a = r->args;

	*o = (struct cxs_output_opts){
		.f = out,
		.format = a->json ? CXS_OUTPUT_JSON :
			  a->field_sep ? CXS_OUTPUT_CSV : CXS_OUTPUT_STD,
		.sep = a->field_sep,
		.breakdown = a->breakdown,
		.verbose = a->verbose,
		.summary = a->summary,
		.no_csv_summary = a->no_csv_summary,
		.no_big_num = !a->big_num,
		.quiet = a->quiet,
		.trim = isatty(fileno(out)),
		.dialect = a->dialect,
	};
	*s = (struct cxs_series){
		.events = r->events,
		.counters = r->counters,
		.runs = r->runs_done,
		.null_run = a->null_run,
		.elapsed_ns = &r->elapsed_ns,
		/* user/sys are the command's: meaningless when it is not the target */
		/* perf: one run, no -p/-a/-C: the command's own times */
		.show_rusage = a->cmd && !a->pid && !a->system_wide &&
			       r->runs_done == 1,
		.user_s = timeval_s(&r->rusage.ru_utime),
		.sys_s = timeval_s(&r->rusage.ru_stime),
		.target = a->system_wide ? CXS_TARGET_SYSTEM_WIDE :
			  a->pid ? CXS_TARGET_PID : CXS_TARGET_COMMAND,
		.no_nmi_bucket = r->no_nmi_bucket,
		.cmd = a->cmd,
		.pid = a->pid,
		.pid_list = a->pid_list,
		.cpu_list = a->all_cpus ? NULL : a->cpu_list,
		.nr_cpus = r->pc.nr_cpus,
		.cpu_ids = r->pc.cpu_ids,
		.cpu_counters = r->pc.cpu_counters,
		.aggr = a->aggr,
		.cache_level = a->cache_level,
		.threads = cxs_args_per_thread(a) ? &r->pt.rows : NULL,
		.sources = a->irq_sources ? &r->sources : NULL,
	};
}

/* With -I, the whole run's counts only after --summary, as perf. */
static void print_series(const struct cxs_runner *r, FILE *out)
{
	struct cxs_output_opts o;
	struct cxs_series s;

	print_event_errors(r);
	if (r->args->interval_ms && !r->args->summary)
		return;
	output_of(r, out, &o, &s);
	cxs_output_series(&o, &s);
}

/* -I: the runner prints every interval through @iv. */
static int start_intervals(struct cxs_runner *r, FILE *out,
			   struct cxs_interval *iv)
{
	struct cxs_output_opts o;
	struct cxs_series s;

	output_of(r, out, &o, &s);
	if (cxs_interval_init(iv, &o, &s, r->args->interval_ms,
			      r->args->no_aggr ? r->pc.cpus.cap : 0,
			      r->args->interval_count)) {
		fprintf(stderr, "ctxstat: out of memory\n");
		return -ENOMEM;
	}
	r->interval = iv;
	return 0;
}

/* "run 2 of 3: " with several runs, "" with one. */
static const char *run_label(const struct cxs_args *a, int run)
{
	static char buf[48];

	buf[0] = '\0';
	if (a->forever)
		snprintf(buf, sizeof(buf), "run %d: ", run);
	else if (cxs_max_runs(a) > 1)
		snprintf(buf, sizeof(buf), "run %d of %s%d: ", run,
			 a->repeat_until ? "at most " : "", cxs_max_runs(a));
	return buf;
}

/*
 * What happened to a run that Ctrl-C (or SIGTERM) cut short: run @run
 * was left out (@dropped), or the single run's counts are printed.
 */
static void say_cut_short(const struct cxs_runner *r, int run, bool dropped)
{
	const struct cxs_args *a = r->args;
	const char *sig = cxs_signal_name(cxs_interrupt_signal());

	if (dropped && (a->forever || cxs_max_runs(a) > 1))
		fprintf(stderr, "ctxstat: %.*s cut short by %s: left out of the counts%s%s\n",
			(int)strlen(run_label(a, run)) - 2, run_label(a, run),
			sig, a->save ? " and of " : "", a->save ?: "");
	else if (dropped)
		fprintf(stderr, "ctxstat: %s before '%s' ran: nothing counted\n",
			sig, a->cmd[0]);
	else
		fprintf(stderr, "ctxstat: '%s' cut short by %s: the counts are of the part that ran%s%s\n",
			a->cmd[0], sig, a->save ? "; not saved to " : "",
			a->save ?: "");
}

/* A run whose command failed, named as it ends. */
static void say_failed(const struct cxs_runner *r, int run)
{
	char what[64];

	cxs_status_text(r->status, what, sizeof(what));
	fprintf(stderr, "ctxstat: %s'%s' %s\n", run_label(r->args, run),
		r->args->cmd[0], what);
}

/*
 * After several runs: how many failed; left out of the counts when
 * others succeeded (a command that always fails keeps its counts).
 */
static void drop_failed(struct cxs_runner *r)
{
	const struct cxs_args *a = r->args;

	if (!r->runs_failed || r->runs_done < 2)
		return;
	if (r->runs_failed == r->runs_done) {
		fprintf(stderr, "ctxstat: all %d runs failed: the counts are theirs\n",
			r->runs_done);
		return;
	}
	fprintf(stderr, "ctxstat: %d of %d runs failed: left out of the counts%s%s\n",
		r->runs_failed, r->runs_done, a->save ? " and of " : "",
		a->save ?: "");
	cxs_runner_drop_failed(r);
}

static int run_series(const struct cxs_args *a, struct cxs_event_list *l,
		      FILE *out, struct cxs_recording *rec)
{
	int i, err = 0, code, dropped = 0, watch = cxs_until_event(a, l);
	struct cxs_progress progress;
	struct cxs_interval iv;
	struct cxs_runner *r;

	cxs_say_until_capped(stderr, a);
	if (cxs_noise_check_wanted(a))
		cxs_noise_check_env(stderr);
	r = cxs_runner_new(a, l);
	if (!r)
		return 1;
	cxs_signals_install();
	if (a->interval_ms && start_intervals(r, out, &iv)) {
		cxs_runner_free(r);
		return 1;
	}
	/*
	 * perf prints the counts of a single run that Ctrl-C ended; with
	 * -r 0 Ctrl-C kills perf, and the run it cut short is never printed.
	 */
	r->keep_cut_short = cxs_max_runs(a) == 1 && !a->forever;
	for (i = 0; i < a->warmup && !err && !cxs_interrupted(); i++)
		err = cxs_runner_warmup(r, i + 1, "ctxstat");
	if (err == -EINTR)
		err = 0;
	cxs_progress_init(&progress, stderr, "ctxstat", cxs_max_runs(a),
			  a->repeat_until, a->verbose);
	for (i = 0; (a->forever || i < cxs_max_runs(a)) && !err &&
	     !cxs_interrupted(); i++) {
		cxs_progress_run(&progress, i + 1, NULL);
		err = cxs_runner_run(r);
		if (err == -EINTR) {
			dropped = i + 1;
			err = 0;
			break;
		}
		if (!err && r->failed[r->runs_done - 1]) {
			cxs_progress_done(&progress);
			say_failed(r, i + 1);
		}
		if (a->repeat_until && cxs_precise_enough(r, watch))
			break;
		/* -r 0: perf's forever, each run printed on its own */
		if (!err && a->forever) {
			print_series(r, out);
			cxs_runner_clear(r);
		}
	}
	cxs_progress_done(&progress);
	if (dropped || (r->cut_short && r->runs_done))
		say_cut_short(r, dropped ?: r->runs_done, dropped);
	drop_failed(r);
	if (r->runs_done)
		print_series(r, out);
	if (r->runs_done && a->repeat_until)
		cxs_print_until(r, watch, "");
	cxs_print_outliers(r, "");
	if (r->runs_done && a->save && !r->cut_short && cxs_save_stat(r) && !err)
		err = -EIO;
	/* as perf, a run that Ctrl-C ended is recorded: it is what was asked */
	if (rec && r->runs_done && cxs_record_write(rec, r) && !err)
		err = -EIO;
	code = cxs_runner_exit_code(r, err);
	if (r->interval)
		cxs_interval_free(r->interval);
	cxs_runner_free(r);
	return code;
}

int cmd_stat(int argc, char **argv, void (*subcommands_usage)(FILE *f))
{
	struct cxs_recording rec = { .fd = -1 };
	struct cxs_event_list events = { 0 };
	struct cxs_args args;
	char err[256];
	FILE *out;
	int code;

	if (cxs_args_parse(&args, argc, argv, err, sizeof(err))) {
		/* a perf option: its name says it all, the usage would not */
		if (args.perf_only) {
			fprintf(stderr, "ctxstat: %s\n", err);
			return CXS_EXIT_USAGE;
		}
		cxs_usage_error(stderr, cxs_args_help, err, args.err_option);
		return CXS_EXIT_USAGE;
	}
	/* they only print: a write that failed (a full disk) fails them */
	if (args.help && args.record) {
		cxs_record_usage(stdout);
		return cxs_outfile_close(stdout, NULL, "ctxstat") ? 1 : 0;
	}
	if (args.help) {
		cxs_args_usage(stdout);
		subcommands_usage(stdout);
		return cxs_outfile_close(stdout, NULL, "ctxstat") ? 1 : 0;
	}
	if (args.list) {
		cxs_events_print_known(stdout);
		cxs_tracepoints_print(stdout);
		return cxs_outfile_close(stdout, NULL, "ctxstat") ? 1 : 0;
	}
	/* perf's "perf version 6.1.192" */
	if (args.version) {
		printf("ctxstat version %s\nprints as perf %s (--perf-dialect)\n",
		       CXS_VERSION,
		       args.dialect == CXS_PERF_7_2 ? "7.2" : "6.1");
		return cxs_outfile_close(stdout, NULL, "ctxstat") ? 1 : 0;
	}
	/* perf stat report, named after stat's options */
	if (args.report)
		return cmd_report(args.cmd_argc, args.cmd);
	code = cxs_stat_prepare(&args, &events, stderr, &out);
	if (code)
		return code;
	if (args.record && cxs_record_open(&args, argc, argv, &rec))
		return 1;
	code = run_series(&args, &events, out, args.record ? &rec : NULL);
	if (args.record && cxs_record_close(&rec) && !code)
		code = 1;
	if (cxs_outfile_close(out, cxs_stat_output(&args), "ctxstat") && !code)
		code = 1;
	cxs_signals_reraise();
	return code;
}
