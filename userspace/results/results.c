// SPDX-License-Identifier: GPL-2.0
/*
 * results: the --save document. Every run's value is kept, so a report
 * made later can compute whatever it needs (means, CIs, Welch) and show
 * the outliers; the summary fields written beside the values are for
 * people and jq, and are not read back.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "util/json.h"
#include "util/util.h"

static void write_values(FILE *f, const struct cxs_sample *s)
{
	int i;

	fputc('[', f);
	for (i = 0; i < s->n; i++)
		fprintf(f, "%s%.17g", i ? ", " : "", s->v[i]);
	fputc(']', f);
}

/* 0, or -ENOMEM: the outliers cannot be found. */
static int write_event(FILE *f, const struct cxs_result_event *e)
{
	bool *out = calloc(e->values.n ? e->values.n : 1, sizeof(*out));
	int i, first = 1, nr = out ? cxs_sample_outliers(&e->values, out) : -1;

	if (nr < 0) {
		free(out);
		return -ENOMEM;
	}
	fputs("        {\"name\": ", f);
	cxs_json_write_string(f, e->name);
	if (e->error) {
		fputs(", \"error\": ", f);
		cxs_json_write_string(f, e->error);
	}
	fputs(", \"values\": ", f);
	write_values(f, &e->values);
	fputs(", \"outliers\": [", f);
	for (i = 0; nr && i < e->values.n; i++)
		if (out[i]) {
			fprintf(f, "%s%d", first ? "" : ", ", i);
			first = 0;
		}
	free(out);
	fprintf(f, "], \"mean\": %.17g", cxs_sample_mean(&e->values));
	/* one run has no spread: null, not 0 */
	if (e->values.n < 2)
		fputs(", \"stddev\": null, \"ci95\": null}", f);
	else
		fprintf(f, ", \"stddev\": %.17g, \"ci95\": %.17g}",
			cxs_sample_sd(&e->values), cxs_sample_ci95(&e->values));
	return 0;
}

static int write_result(FILE *f, const struct cxs_result *r)
{
	int i;

	fputs("    {\n      \"benchmark\": ", f);
	cxs_json_write_string(f, r->benchmark);
	fputs(",\n      \"config\": ", f);
	cxs_json_write_string(f, r->config);
	fputs(",\n      \"command\": [", f);
	for (i = 0; r->command && r->command[i]; i++) {
		fputs(i ? ", " : "", f);
		cxs_json_write_string(f, r->command[i]);
	}
	fprintf(f, "],\n      \"runs\": %d,\n      \"elapsed_ns\": ",
		r->elapsed_ns.n);
	write_values(f, &r->elapsed_ns);
	fputs(",\n      \"events\": [\n", f);
	for (i = 0; i < r->nr_ev; i++) {
		if (write_event(f, &r->ev[i]))
			return -ENOMEM;
		fputs(i + 1 < r->nr_ev ? ",\n" : "\n", f);
	}
	fputs("      ]\n    }", f);
	return 0;
}

static int write_doc(FILE *f, const struct cxs_result *r, int nr)
{
	int i;

	fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"results\": [\n",
		CXS_RESULTS_FORMAT, CXS_RESULTS_VERSION);
	for (i = 0; i < nr; i++) {
		if (write_result(f, &r[i]))
			return -ENOMEM;
		fputs(i + 1 < nr ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	return 0;
}

int cxs_results_write(FILE *f, const struct cxs_result *r, int nr)
{
	locale_t old = uselocale(cxs_c_locale());
	int err = write_doc(f, r, nr);

	if (old)
		uselocale(old);
	fflush(f);
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

/* ------------------------------------------------------------ reading -- */

struct loader {
	const char *name;
	char *err;
	size_t errlen;
};

/* "name: message" into the caller's buffer; returns -1. */
static int __attribute__((format(printf, 2, 3)))
bad(struct loader *l, const char *fmt, ...)
{
	int n = snprintf(l->err, l->errlen, "%s: ", l->name);
	va_list ap;

	if (n < 0 || (size_t)n >= l->errlen)
		return -1;
	va_start(ap, fmt);
	cxs_verr(l->err + n, l->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct cxs_json *member(const struct cxs_json *o,
				     const char *key, enum cxs_json_type t)
{
	const struct cxs_json *j = cxs_json_get(o, key);

	return j && j->type == t ? j : NULL;
}

static int get_string(struct loader *l, const struct cxs_json *o,
		      const char *key, const char *where, char **out)
{
	const struct cxs_json *j = member(o, key, CXS_JSON_STRING);

	if (!j)
		return bad(l, "%s: \"%s\" must be a string", where, key);
	*out = strdup(j->str);
	return *out ? 0 : bad(l, "out of memory");
}

static int get_values(struct loader *l, const struct cxs_json *o,
		      const char *key, const char *where, struct cxs_sample *s)
{
	const struct cxs_json *a = member(o, key, CXS_JSON_ARRAY);
	int i;

	if (!a)
		return bad(l, "%s: \"%s\" must be an array of numbers", where, key);
	for (i = 0; i < a->nr; i++) {
		if (a->items[i]->type != CXS_JSON_NUMBER)
			return bad(l, "%s: \"%s\" must be an array of numbers",
				   where, key);
		if (cxs_sample_add(s, a->items[i]->num))
			return bad(l, "out of memory");
	}
	return 0;
}

static int get_command(struct loader *l, const struct cxs_json *o,
		       const char *where, struct cxs_result *r)
{
	const struct cxs_json *a = member(o, "command", CXS_JSON_ARRAY);
	int i;

	if (!a)
		return bad(l, "%s: \"command\" must be an array of strings", where);
	r->command = calloc(a->nr + 1, sizeof(*r->command));
	if (!r->command)
		return bad(l, "out of memory");
	for (i = 0; i < a->nr; i++) {
		if (a->items[i]->type != CXS_JSON_STRING)
			return bad(l, "%s: \"command\" must be an array of strings",
				   where);
		r->command[i] = strdup(a->items[i]->str);
		if (!r->command[i])
			return bad(l, "out of memory");
	}
	return 0;
}

static int load_event(struct loader *l, const struct cxs_json *o,
		      const char *where, struct cxs_result_event *e)
{
	const struct cxs_json *err;

	if (o->type != CXS_JSON_OBJECT)
		return bad(l, "%s: an event must be an object", where);
	if (get_string(l, o, "name", where, &e->name) ||
	    get_values(l, o, "values", where, &e->values))
		return -1;
	err = cxs_json_get(o, "error");
	if (err && err->type != CXS_JSON_STRING)
		return bad(l, "%s: \"error\" must be a string", where);
	if (err && !(e->error = strdup(err->str)))
		return bad(l, "out of memory");
	return 0;
}

static int load_result(struct loader *l, const struct cxs_json *o, int idx,
		       struct cxs_result *r)
{
	const struct cxs_json *ev, *runs;
	char where[64];
	int i;

	snprintf(where, sizeof(where), "results[%d]", idx);
	r->source = l->name;
	if (o->type != CXS_JSON_OBJECT)
		return bad(l, "%s must be an object", where);
	if (get_string(l, o, "benchmark", where, &r->benchmark) ||
	    get_string(l, o, "config", where, &r->config) ||
	    get_command(l, o, where, r) ||
	    get_values(l, o, "elapsed_ns", where, &r->elapsed_ns))
		return -1;
	runs = member(o, "runs", CXS_JSON_NUMBER);
	if (!runs || runs->num != r->elapsed_ns.n)
		return bad(l, "%s: \"runs\" must be the number of elapsed_ns values",
			   where);
	ev = member(o, "events", CXS_JSON_ARRAY);
	if (!ev)
		return bad(l, "%s: \"events\" must be an array", where);
	r->ev = calloc(ev->nr ? ev->nr : 1, sizeof(*r->ev));
	if (!r->ev)
		return bad(l, "out of memory");
	for (i = 0; i < ev->nr; i++) {
		snprintf(where, sizeof(where), "results[%d].events[%d]", idx, i);
		r->nr_ev++;
		if (load_event(l, ev->items[i], where, &r->ev[i]))
			return -1;
		if (!r->ev[i].error && r->ev[i].values.n != r->elapsed_ns.n)
			return bad(l, "%s: %d values for %d runs", where,
				   r->ev[i].values.n, r->elapsed_ns.n);
	}
	return 0;
}

static int load_doc(struct loader *l, const struct cxs_json *doc,
		    struct cxs_result_set *set)
{
	const struct cxs_json *fmt, *ver, *res;
	struct cxs_result *r;
	int i;

	fmt = member(doc, "format", CXS_JSON_STRING);
	if (!fmt || strcmp(fmt->str, CXS_RESULTS_FORMAT))
		return bad(l, "not a ctxstat results file (no \"format\": \"%s\")",
			   CXS_RESULTS_FORMAT);
	ver = member(doc, "version", CXS_JSON_NUMBER);
	if (!ver || ver->num != CXS_RESULTS_VERSION)
		return bad(l, "results format version %g, this ctxstat reads %d",
			   ver ? ver->num : 0.0, CXS_RESULTS_VERSION);
	res = member(doc, "results", CXS_JSON_ARRAY);
	if (!res)
		return bad(l, "\"results\" must be an array");
	r = realloc(set->r, (set->nr + res->nr) * sizeof(*r) + 1);
	if (!r)
		return bad(l, "out of memory");
	set->r = r;
	for (i = 0; i < res->nr; i++) {
		memset(&set->r[set->nr], 0, sizeof(*r));
		set->nr++;
		if (load_result(l, res->items[i], i, &set->r[set->nr - 1]))
			return -1;
	}
	return 0;
}

int cxs_results_parse(struct cxs_result_set *set, const char *name,
		      const char *text, size_t len, char *err, size_t errlen)
{
	struct loader l = { .name = name, .err = err, .errlen = errlen };
	struct cxs_json *doc;
	char jerr[160];
	int ret;

	doc = cxs_json_parse(text, len, jerr, sizeof(jerr));
	if (!doc)
		return bad(&l, "%s", jerr);
	ret = load_doc(&l, doc, set);
	cxs_json_free(doc);
	return ret;
}

int cxs_results_load(struct cxs_result_set *set, const char *path,
		     char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	{
		FILE *m = open_memstream(&text, &len);
		char buf[65536];
		size_t n;

		if (!m) {
			fclose(f);
			snprintf(err, errlen, "%s: out of memory", path);
			return -1;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, m);
		fclose(m);
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		fclose(f);
		free(text);
		return -1;
	}
	fclose(f);
	ret = cxs_results_parse(set, path, text, len, err, errlen);
	free(text);
	return ret;
}

int cxs_results_check_unique(const struct cxs_result_set *set,
			     char *err, size_t errlen)
{
	const struct cxs_result *a, *b;
	int i, j;

	for (i = 0; i < set->nr; i++)
		for (j = i + 1; j < set->nr; j++) {
			a = &set->r[i];
			b = &set->r[j];
			if (strcmp(a->benchmark, b->benchmark) ||
			    strcmp(a->config, b->config))
				continue;
			return cxs_err(err, errlen,
				       "benchmark '%s', configuration '%s': in %s and in %s (one of them needs another --label or --name)",
				       a->benchmark, a->config, a->source, b->source);
		}
	return 0;
}

void cxs_result_free(struct cxs_result *r)
{
	int i;

	free(r->benchmark);
	free(r->config);
	for (i = 0; r->command && r->command[i]; i++)
		free(r->command[i]);
	free(r->command);
	cxs_sample_free(&r->elapsed_ns);
	for (i = 0; i < r->nr_ev; i++) {
		free(r->ev[i].name);
		free(r->ev[i].error);
		cxs_sample_free(&r->ev[i].values);
	}
	free(r->ev);
	memset(r, 0, sizeof(*r));
}

void cxs_results_free(struct cxs_result_set *set)
{
	int i;

	for (i = 0; i < set->nr; i++)
		cxs_result_free(&set->r[i]);
	free(set->r);
	set->r = NULL;
	set->nr = 0;
}
