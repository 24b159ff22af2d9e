// SPDX-License-Identifier: GPL-2.0
/*
 * pmu: what perf's pmu.c does for a PMU event, on the parts
 * ctxstat can count: a format file reads "config:0-7,21" or
 * "config1:0-63"; an alias file holds terms ("event=0x11" or
 * "event=0x3c,umask=0x00"), read like the user's. The ctxcount module
 * takes an event's type and config only, so terms that fill config1 or
 * config2 (or perf's other built-in terms) are refused, named.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/pmu.h"
#include "util/util.h"

#define PMU_DIR "%s/bus/event_source/devices/%s"

struct pmu_config {
	uint64_t config[3];	/* config, config1, config2 */
};

/* The first line of sysfs file @fmt..., without its newline. */
static int read_line(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int read_line(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A term's value: decimal or 0x hex, as perf's lexer takes it. */
static int term_value(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/* Place @value in the bits a format line "config1:0-7,32-35" names. */
static int apply_format(const char *format, uint64_t value,
			struct pmu_config *pc)
{
	const char *p = strchr(format, ':');
	int which, lo, hi, n, bit;

	if (!strncmp(format, "config:", 7))
		which = 0;
	else if (!strncmp(format, "config1:", 8))
		which = 1;
	else if (!strncmp(format, "config2:", 8))
		which = 2;
	else
		return -1;
	for (p++; *p; p += n + (p[n] == ',')) {
		if (sscanf(p, "%d-%d%n", &lo, &hi, &n) != 2) {
			if (sscanf(p, "%d%n", &lo, &n) != 1)
				return -1;
			hi = lo;
		}
		if (lo < 0 || hi > 63 || lo > hi)
			return -1;
		for (bit = lo; bit <= hi; bit++, value >>= 1)
			if (value & 1)
				pc->config[which] |= 1ULL << bit;
	}
	return value ? -1 : 0;	/* bits left over: too large */
}

static int apply_terms(const char *pmu, const char *terms,
		       struct pmu_config *pc, struct cxs_event *ev,
		       int depth, char *err, size_t errlen);

/* One "name=value" (or "name", value 1) of @pmu. */
static int apply_term(const char *pmu, char *term, struct pmu_config *pc,
		      struct cxs_event *ev, int depth, char *err, size_t errlen)
{
	char *eq = strchr(term, '='), line[256];
	const char *val = eq ? eq + 1 : "1";
	uint64_t v;

	if (eq)
		*eq = '\0';
	if (!strcmp(term, "name") && eq) {
		if (strlen(val) >= sizeof(ev->name))
			return cxs_err(err, errlen, "name= too long: '%s'", val);
		snprintf(ev->name, sizeof(ev->name), "%s", val);
		return 0;
	}
	if (term_value(val, &v))
		return cxs_err(err, errlen, "bad value '%s' of term '%s' in PMU %s",
			       val, term, pmu);
	if (!strcmp(term, "config")) {
		pc->config[0] = v;
		return 0;
	}
	if (!strcmp(term, "config1") || !strcmp(term, "config2")) {
		pc->config[term[6] - '0'] = v;
		return 0;
	}
	if (!read_line(line, sizeof(line), PMU_DIR "/format/%s", cxs_sysfs_root(), pmu, term)) {
		if (apply_format(line, v, pc))
			return cxs_err(err, errlen,
				       "value %s of '%s' does not fit %s's format '%s'",
				       val, term, pmu, line);
		return 0;
	}
	/* an alias of the PMU's events: its terms (depth: no loops) */
	if (!eq && depth < 2 &&
	    !read_line(line, sizeof(line), PMU_DIR "/events/%s", cxs_sysfs_root(), pmu, term))
		return apply_terms(pmu, line, pc, ev, depth + 1, err, errlen);
	return cxs_err(err, errlen, "PMU %s has no term or event '%s' (perf list)",
		       pmu, term);
}

static int apply_terms(const char *pmu, const char *terms,
		       struct pmu_config *pc, struct cxs_event *ev,
		       int depth, char *err, size_t errlen)
{
	char *copy = strdup(terms), *term, *save = NULL;
	int ret = 0;

	if (!copy)
		return cxs_err(err, errlen, "out of memory");
	for (term = strtok_r(copy, ",", &save); term && !ret;
	     term = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*term))
			term++;
		ret = apply_term(pmu, term, pc, ev, depth, err, errlen);
	}
	free(copy);
	return ret;
}

int cxs_pmu_event_parse(const char *pmu, const char *terms,
			struct cxs_event *ev, char *err, size_t errlen)
{
	struct pmu_config pc = { { 0 } };
	char line[64];
	uint64_t type;

	if (!*pmu || strchr(pmu, '.') || strchr(pmu, '/'))
		return cxs_err(err, errlen, "event syntax error: '%s'", ev->name);
	if (read_line(line, sizeof(line), PMU_DIR "/type", cxs_sysfs_root(), pmu) ||
	    term_value(line, &type) || type > UINT32_MAX)
		return cxs_err(err, errlen, "Cannot find PMU `%s'. Missing kernel support? (perf list)",
			       pmu);
	if (!*terms)
		return cxs_err(err, errlen, "event syntax error: '%s': no event between the slashes",
			       ev->name);
	if (apply_terms(pmu, terms, &pc, ev, 0, err, errlen))
		return -1;
	if (pc.config[1] || pc.config[2])
		return cxs_err(err, errlen,
			       "%s: not supported by ctxstat: it needs config1 or config2, and the ctxcount module takes an event's config only",
			       ev->name);
	ev->type = type;
	ev->config = pc.config[0];
	return 0;
}
