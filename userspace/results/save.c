// SPDX-License-Identifier: GPL-2.0
/*
 * save: a result borrows the runner's samples (nothing is copied) and
 * owns only its names.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "results/results.h"
#include "results/save.h"
#include "util/util.h"

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

/* A result that borrows @r's samples; free with unborrow_result(). */
static int borrow_result(const struct cxs_runner *r, const char *config,
			 struct cxs_result *res)
{
	const struct cxs_args *a = r->args;
	const struct cxs_event_list *l = r->events;
	char fallback[64];
	int i, err;

	memset(res, 0, sizeof(*res));
	if (a->system_wide)
		snprintf(fallback, sizeof(fallback), "system wide");
	else
		snprintf(fallback, sizeof(fallback), "pid %s", a->pid_list);
	res->benchmark = a->name ? strdup(a->name) : join_cmd(a->cmd, fallback);
	res->config = strdup(config);
	res->command = a->cmd;
	res->elapsed_ns = r->elapsed_ns;
	res->ev = calloc(l->nr ? l->nr : 1, sizeof(*res->ev));
	if (!res->benchmark || !res->config || !res->ev)
		return -ENOMEM;
	res->nr_ev = l->nr;
	for (i = 0; i < l->nr; i++) {
		res->ev[i].name = (char *)l->ev[i].name;
		res->ev[i].values = *cxs_runner_values(r, i);
		err = r->counters[l->ev[i].counter].error;
		if (err)
			res->ev[i].error = strerror(-err);
	}
	return 0;
}

static void unborrow_result(struct cxs_result *res)
{
	free(res->benchmark);
	free(res->config);
	free(res->ev);
}

static int cannot_save(const char *path, int err)
{
	fprintf(stderr, "ctxstat: cannot save to %s: %s\n", path, strerror(err));
	return -1;
}

int cxs_save_check(const char *path)
{
	/* The file is made anew beside itself: its directory must take it. */
	int err = cxs_path_writable(path, true);

	return err ? cannot_save(path, err) : 0;
}

/* A new file beside @path, as fopen(path, "w") would make it. */
static FILE *open_beside(const char *path, char **tmp)
{
	mode_t mask = umask(0);
	FILE *f = NULL;
	int fd;

	umask(mask);
	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd >= 0 && (fchmod(fd, 0666 & ~mask) || !(f = fdopen(fd, "w")))) {
		close(fd);
		unlink(*tmp);
	}
	if (!f) {
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

static int save_results(const char *path, const struct cxs_result *r, int nr)
{
	char *tmp;
	FILE *f = open_beside(path, &tmp);
	int err;

	if (!f)
		return cannot_save(path, errno);
	err = cxs_results_write(f, r, nr);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err ? cannot_save(path, -err) : 0;
}

int cxs_save_stat(const struct cxs_runner *r)
{
	const struct cxs_args *a = r->args;
	char *label = a->label ? strdup(a->label) : file_label(a->save);
	struct cxs_result res = { 0 };
	int err;

	if (!label || borrow_result(r, label, &res))
		err = cannot_save(a->save, ENOMEM);
	else
		err = save_results(a->save, &res, 1);
	unborrow_result(&res);
	free(label);
	return err;
}

int cxs_save_compare(const struct cxs_runner *ra, const struct cxs_runner *rb)
{
	const struct cxs_args *a = ra->args;
	/* options/args.c made sure --label has a comma */
	char *labels = strdup(a->label ? a->label : "A,B");
	char *comma = labels ? strchr(labels, ',') : NULL;
	struct cxs_result r[2] = { { 0 }, { 0 } };
	int err = -1;

	if (comma) {
		*comma = '\0';
		/* one benchmark, two configurations: rows of a report line up */
		if (!borrow_result(ra, labels, &r[0]) &&
		    !borrow_result(rb, comma + 1, &r[1])) {
			free(r[1].benchmark);
			r[1].benchmark = strdup(r[0].benchmark);
			if (r[1].benchmark)
				err = save_results(a->save, r, 2);
		}
	}
	if (err && !r[1].benchmark)
		err = cannot_save(a->save, ENOMEM);
	unborrow_result(&r[0]);
	unborrow_result(&r[1]);
	free(labels);
	return err;
}
