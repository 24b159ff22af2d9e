// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-compare: ctxstat compare: one runner per command, runs in ABBA
 * order (stats/ab-test.c), then the comparison (output/compare-table.c)
 * and --save.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "builtin.h"
#include "output/compare-table.h"
#include "output/outfile.h"
#include "output/progress.h"
#include "results/save.h"
#include "run/noise.h"
#include "run/repeat.h"
#include "run/runner.h"
#include "run/signals.h"
#include "run/workload.h"
#include "setup.h"

static int compare_table(const struct cxs_runner *ra,
			 const struct cxs_runner *rb, FILE *out)
{
	const struct cxs_args *a = ra->args;
	const struct cxs_event_list *l = ra->events;
	struct cxs_compare_row *rows = calloc(l->nr ? l->nr : 1, sizeof(*rows));
	struct cxs_compare_print p = {
		.f = out, .sep = a->field_sep, .cmd_a = ra->args->cmd,
		.cmd_b = rb->args->cmd,
		.runs = ra->runs_done < rb->runs_done ? ra->runs_done :
			rb->runs_done,
	};
	int i, err;

	if (!rows)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++) {
		struct cxs_compare_row *r = &rows[i];

		r->name = l->ev[i].name;
		r->counter = l->ev[i].counter;
		r->task_only = l->ev[i].task_only;
		r->clock = cxs_event_is_clock(&l->ev[i]);
		err = ra->counters[r->counter].error ?: rb->counters[r->counter].error;
		if (err == -EOPNOTSUPP || err == -ENOENT)
			r->error = "<not supported>";
		else if (err)
			r->error = strerror(-err);
		r->a = cxs_runner_values(ra, i);
		r->b = cxs_runner_values(rb, i);
	}
	cxs_compare_eval(rows, l->nr, cxs_args_threshold(a));
	cxs_compare_print(&p, rows, l->nr);
	free(rows);
	return 0;
}

/*
 * A command that fails makes every number meaningless: stop and say so
 * (run @i, 0-based, of the ABBA series).
 */
static int check_status(const struct cxs_runner *r, int i)
{
	int code = cxs_exit_code(r->status);
	char what[64];

	if (!code)
		return 0;
	cxs_status_text(r->status, what, sizeof(what));
	fprintf(stderr, "ctxstat: run %d (%s): '%s' %s; comparison stopped\n",
		i + 1, cxs_abba_is_b(i) ? "B" : "A", r->args->cmd[0], what);
	return code;
}

static bool precise_enough(const struct cxs_runner *ra,
			   const struct cxs_runner *rb, int watch)
{
	return ra->runs_done == rb->runs_done && cxs_precise_enough(ra, watch) &&
	       cxs_precise_enough(rb, watch);
}

/* Ctrl-C cut run @i (0-based) of the ABBA series short. */
static void say_cut_short(const struct cxs_args *a, int i)
{
	fprintf(stderr, "ctxstat: run %d (%s) cut short by %s: left out of the comparison%s%s\n",
		i + 1, cxs_abba_is_b(i) ? "B" : "A",
		cxs_signal_name(cxs_interrupt_signal()),
		a->save ? " and of " : "", a->save ?: "");
}

static int run_compare(const struct cxs_args *args,
		       struct cxs_event_list *l, FILE *out)
{
	struct cxs_args a = *args, b = *args;
	struct cxs_runner *ra, *rb, *r = NULL;
	struct cxs_progress progress;
	int i, err = 0, code = 0, cut = -1, watch = cxs_until_event(args, l);

	b.cmd = args->cmd_b;
	b.cmd_argc = args->cmd_b_argc;
	cxs_say_until_capped(stderr, args);
	if (cxs_noise_check_wanted(args))
		cxs_noise_check_env(stderr);
	ra = cxs_runner_new(&a, l);
	rb = ra ? cxs_runner_new(&b, l) : NULL;
	if (!rb) {
		cxs_runner_free(ra);
		return 1;
	}
	cxs_signals_install();
	/* each command warmed up before either is counted */
	for (i = 0; i < args->warmup && !err; i++) {
		r = ra;
		err = cxs_runner_warmup(ra, i + 1, "ctxstat compare (A)");
		if (!err) {
			r = rb;
			err = cxs_runner_warmup(rb, i + 1, "ctxstat compare (B)");
		}
	}
	if (err == -EINTR)
		err = 0;
	cxs_progress_init(&progress, stderr, "ctxstat compare",
			  2 * cxs_max_runs(args), args->repeat_until,
			  args->verbose);
	for (i = 0; i < 2 * cxs_max_runs(args) && !err && !code &&
	     !cxs_interrupted(); i++) {
		bool is_b = cxs_abba_is_b(i);

		cxs_progress_run(&progress, i + 1, is_b ? "B" : "A");
		r = is_b ? rb : ra;
		err = cxs_runner_run(r);
		if (err == -EINTR) {
			cut = i;
			err = 0;
			break;
		}
		if (!err)
			code = check_status(r, i);
		if (args->repeat_until && precise_enough(ra, rb, watch))
			break;
	}
	cxs_progress_done(&progress);
	if (cut >= 0)
		say_cut_short(args, cut);
	if (!err && !code) {
		err = compare_table(ra, rb, out);
		if (args->repeat_until) {
			cxs_print_until(ra, watch, "A: ");
			cxs_print_until(rb, watch, "B: ");
		}
		cxs_print_outliers(ra, "A: ");
		cxs_print_outliers(rb, "B: ");
		if (args->save && cxs_save_compare(ra, rb))
			err = -EIO;
	}
	/* r: the runner whose run failed, if one did */
	if (!code && err)
		code = cxs_runner_exit_code(r, err);
	cxs_runner_free(ra);
	cxs_runner_free(rb);
	return code;
}

int cmd_compare(int argc, char **argv)
{
	struct cxs_event_list events = { 0 };
	struct cxs_args args;
	char err[256];
	FILE *out;
	int code;

	if (cxs_args_parse_compare(&args, argc, argv, err, sizeof(err))) {
		cxs_usage_error(stderr, cxs_args_compare_help, err,
				args.err_option);
		return CXS_EXIT_USAGE;
	}
	if (args.help) {
		cxs_args_compare_usage(stdout);
		return cxs_outfile_close(stdout, NULL, "ctxstat compare") ? 1 : 0;
	}
	/* results on stdout, as report's: they are not the workload's */
	code = cxs_stat_prepare(&args, &events, stdout, &out);
	if (code)
		return code;
	code = run_compare(&args, &events, out);
	if (cxs_outfile_close(out, cxs_stat_output(&args), "ctxstat compare") &&
	    !code)
		code = 1;
	cxs_signals_reraise();
	return code;
}
