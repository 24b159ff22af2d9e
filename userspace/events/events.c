// SPDX-License-Identifier: GPL-2.0
/*
 * events: perf's event names (hardware, software, hardware cache, raw) to
 * PERF_TYPE_* / config as <linux/perf_event.h> defines them, perf's
 * modifiers u/k/h plus ctxcount's t, and the dedupe into kernel counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>

#include "events/events.h"
#include "events/pmu.h"
#include "util/util.h"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* Same names and aliases as perf's event parser (tools/perf/util/parse-events.l). */
static const struct named_event named_events[] = {
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

/*
 * perf's tool events (parse-events.l): perf stat measures them itself and
 * gives them the attr of the dummy software event (parse-events.c,
 * add_event_tool()), which perf stat record writes.
 */
static const struct {
	const char *name;
	enum cxs_tool tool;
} tool_events[] = {
	{ "duration_time",	CXS_TOOL_DURATION_TIME },
};

/*
 * Hardware cache events as perf 6.1 spells them (evsel.c's alias tables,
 * which its lexer matches exactly, case included): <cache>[-<op>][-<result>].
 */
#define MAX_ALIASES 6
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

/* The ops each cache has (perf's evsel__hw_cache_stat). */
static const unsigned int cache_ops_valid[PERF_COUNT_HW_CACHE_MAX] = {
	7, 5, 7, 7, 1, 1, 7,
};

static int lookup_named(const char *name, struct cxs_event *ev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(named_events); i++) {
		if (!strcmp(name, named_events[i].name)) {
			ev->type = named_events[i].type;
			ev->config = named_events[i].config;
			return 0;
		}
	}
	return -1;
}

static int lookup_tool(const char *name, struct cxs_event *ev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tool_events); i++) {
		if (!strcmp(name, tool_events[i].name)) {
			ev->type = PERF_TYPE_SOFTWARE;
			ev->config = PERF_COUNT_SW_DUMMY;
			ev->tool = tool_events[i].tool;
			return 0;
		}
	}
	return -1;
}

/*
 * The alias of @names (@n rows) that @s begins with, followed by '-' or
 * the end; its row, with @s moved past it; -1 if none.
 */
static int match_alias(const char **s, const char *const names[][MAX_ALIASES],
		       int n)
{
	size_t len, best = 0;
	int i, j, row = -1;

	for (i = 0; i < n; i++)
		for (j = 0; j < MAX_ALIASES && names[i][j]; j++) {
			len = strlen(names[i][j]);
			if (len > best && !strncmp(*s, names[i][j], len) &&
			    (!(*s)[len] || ((*s)[len] == '-' && (*s)[len + 1]))) {
				best = len;
				row = i;
			}
		}
	if (row >= 0)
		*s += best + ((*s)[best] == '-');
	return row;
}

/*
 * perf's parse_events_add_cache(): after the cache, up to two words, an
 * op first if the first is one, else a result; read and access when
 * not named. An op the cache does not have is refused.
 */
static int lookup_cache(const char *name, struct cxs_event *ev)
{
	int cache, op = -1, result = -1, k, v;

	cache = match_alias(&name, cache_names, PERF_COUNT_HW_CACHE_MAX);
	if (cache < 0)
		return -1;
	for (k = 0; k < 2 && *name; k++) {
		if (op < 0 && (v = match_alias(&name, cache_ops,
					       PERF_COUNT_HW_CACHE_OP_MAX)) >= 0)
			op = v;
		else if (result < 0 && (v = match_alias(&name, cache_results,
						      PERF_COUNT_HW_CACHE_RESULT_MAX)) >= 0)
			result = v;
		else
			return -1;
	}
	if (*name)
		return -1;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_ops_valid[cache] & 1 << op))
		return -1;
	ev->type = PERF_TYPE_HW_CACHE;
	ev->config = cache | op << 8 | result << 16;
	return 0;
}

/* "rNNNN": a raw, model-specific event code in hex, as perf takes it. */
static int lookup_raw(const char *name, struct cxs_event *ev)
{
	char *end;
	unsigned long long config;

	if (name[0] != 'r' || !name[1])
		return -1;
	if (strspn(name + 1, "0123456789abcdefABCDEF") != strlen(name + 1))
		return -1;
	errno = 0;
	config = strtoull(name + 1, &end, 16);
	if (errno || *end)
		return -1;
	ev->type = PERF_TYPE_RAW;
	ev->config = config;
	return 0;
}

/*
 * perf's check_modifier(): each letter at most once ('p' up to three
 * times), and no more than perf has.
 */
static int check_modifiers(const char *mods, const struct cxs_event *ev,
			   char *err, size_t errlen)
{
	const char *p;
	int precise = 0;

	if (!*mods || strlen(mods) > sizeof("tukhGHpppPSDIWeb") - 1)
		goto bad;
	for (p = mods; *p; p++) {
		precise += *p == 'p';
		if ((*p != 'p' && strchr(p + 1, *p)) || precise > 3)
			goto bad;
	}
	return 0;
bad:
	return cxs_err(err, errlen, "bad event modifier '%s' in '%s' (each at most once)",
		       mods, ev->name);
}

/*
 * perf's rule: naming any of u/k/h excludes the privilege levels not
 * named; naming none counts them all. t is ours and independent of the
 * others. p, P (precise: sampling's skid) and D (pinned: the module's
 * counters are flexible, as perf stat's without it) are taken and change
 * nothing else, nor does W (weak group) on
 * an event (a group's is events/evlist.c's); perf's other letters ask
 * for what the ctxcount module cannot do.
 */
int cxs_event_modifiers(const char *mods, struct cxs_event *ev,
			char *err, size_t errlen)
{
	bool user = false, kernel = false, hv = false;
	const char *p;

	if (check_modifiers(mods, ev, err, errlen))
		return -1;
	for (p = mods; *p; p++) {
		switch (*p) {
		case 't':
			ev->task_only = true;
			break;
		case 'u':
			user = true;
			break;
		case 'k':
			kernel = true;
			break;
		case 'h':
			hv = true;
			break;
		case 'p': case 'P': case 'W': case 'D':
			break;
		case 'G': case 'H': case 'I': case 'S': case 'e': case 'b':
			return cxs_err(err, errlen,
				       "modifier '%c' in '%s' is perf's but not supported by ctxstat (t, u, k, h; p, P, W and D change nothing here)",
				       *p, ev->name);
		default:
			return cxs_err(err, errlen,
				       "unknown modifier '%c' in '%s' (known: t, u, k, h)",
				       *p, ev->name);
		}
	}
	if (user || kernel || hv) {
		if (!user)
			ev->flags |= CTXCOUNT_EVENT_F_EXCLUDE_USER;
		if (!kernel)
			ev->flags |= CTXCOUNT_EVENT_F_EXCLUDE_KERNEL;
		if (!hv)
			ev->flags |= CTXCOUNT_EVENT_F_EXCLUDE_HV;
	}
	return 0;
}

/*
 * "pmu/terms/" with perf's modifiers after it ("cpu/event=0x3c/u", or
 * after a colon): the name is as written, unless a name= term renames it.
 */
static int parse_pmu_event(const char *spec, struct cxs_event *ev,
			   char *err, size_t errlen)
{
	const char *s1 = strchr(spec, '/'), *s2 = strchr(s1 + 1, '/');
	char pmu[CXS_EVENT_NAME_MAX], terms[CXS_EVENT_NAME_MAX];
	const char *mods;

	if (!s2)
		return cxs_err(err, errlen, "event syntax error: '%s': no closing '/'",
			       spec);
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(s1 - spec), spec);
	snprintf(terms, sizeof(terms), "%.*s", (int)(s2 - s1 - 1), s1 + 1);
	mods = s2 + 1 + (s2[1] == ':');
	if (cxs_pmu_event_parse(pmu, terms, ev, err, errlen))
		return -1;
	return *mods ? cxs_event_modifiers(mods, ev, err, errlen) : 0;
}

bool cxs_event_known(const char *name)
{
	struct cxs_event ev;

	return !lookup_named(name, &ev) || !lookup_tool(name, &ev) ||
	       !lookup_cache(name, &ev) || !lookup_raw(name, &ev);
}

int cxs_event_parse(const char *spec, struct cxs_event *ev,
		    char *err, size_t errlen)
{
	char base[CXS_EVENT_NAME_MAX];
	const char *colon, *hint;
	size_t len;

	memset(ev, 0, sizeof(*ev));
	ev->counter = -1;
	ev->group = -1;
	if (strlen(spec) >= sizeof(ev->name))
		return cxs_err(err, errlen, "event name too long: '%s'", spec);
	if (!*spec)
		return cxs_err(err, errlen, "empty event name");
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	if (strchr(spec, '/'))
		return parse_pmu_event(spec, ev, err, errlen);
	colon = strchr(spec, ':');
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	memcpy(base, spec, len);
	base[len] = '\0';
	if (lookup_named(base, ev) && lookup_tool(base, ev) &&
	    lookup_cache(base, ev) && lookup_raw(base, ev)) {
		hint = cxs_event_suggest(base);
		if (hint)
			return cxs_err(err, errlen,
				       "unknown event '%s'; did you mean '%s'? (ctxstat --list)",
				       base, hint);
		return cxs_err(err, errlen,
			       "unknown event '%s' (ctxstat --list shows the known ones)",
			       base);
	}
	if (colon && cxs_event_modifiers(colon + 1, ev, err, errlen))
		return -1;
	/*
	 * perf takes u, k and h on a tool event and ignores them; :t would
	 * promise a task-context part of a time no context counted.
	 */
	if (cxs_event_is_tool(ev) && ev->task_only)
		return cxs_err(err, errlen,
			       "'%s': %s is the run's wall-clock time, measured by ctxstat, not counted in a context: no :t",
			       spec, base);
	return 0;
}

bool cxs_event_name_is_clock(const char *name)
{
	struct cxs_event ev;
	char err[8];

	return !cxs_event_parse(name, &ev, err, sizeof(err)) &&
	       cxs_event_is_clock(&ev);
}

int cxs_modifiers_check(const char *what, const char *mods,
			char *err, size_t errlen)
{
	struct cxs_event ev = { 0 };

	snprintf(ev.name, sizeof(ev.name), "%s", what);
	return cxs_event_modifiers(mods, &ev, err, errlen);
}

int cxs_events_append(struct cxs_event_list *l, const struct cxs_event *ev,
		      char *err, size_t errlen)
{
	if (l->nr == CXS_MAX_EVENTS)
		return cxs_err(err, errlen, "too many events: at most %d",
			       CXS_MAX_EVENTS);
	l->ev[l->nr] = *ev;
	if (cxs_events_assign_counter(l, &l->ev[l->nr], err, errlen))
		return -1;
	l->nr++;
	return 0;
}

int cxs_events_add_one(struct cxs_event_list *l, const char *spec,
		       char *err, size_t errlen)
{
	struct cxs_event ev;

	return cxs_event_parse(spec, &ev, err, errlen) ||
	       cxs_events_append(l, &ev, err, errlen) ? -1 : 0;
}

int cxs_events_add_defaults(struct cxs_event_list *l, bool system_wide,
			    bool twins, char *err, size_t errlen)
{
	/* twin: interrupts inflate it (software counts of the task do not) */
	static const struct { const char *name; bool twin; } dflt[] = {
		{ "task-clock", true }, { "context-switches", false },
		{ "cpu-migrations", false }, { "page-faults", false },
		{ "cycles", true }, { "instructions", true },
		{ "branches", true }, { "branch-misses", true },
	};
	char spec[CXS_EVENT_NAME_MAX];
	const char *name;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dflt); i++) {
		name = !i && system_wide ? "cpu-clock" : dflt[i].name;
		if (cxs_events_add_one(l, name, err, errlen))
			return -1;
		l->ev[l->nr - 1].perf_default = true;
		snprintf(spec, sizeof(spec), "%s:t", name);
		if (!twins || !dflt[i].twin)
			continue;
		if (cxs_events_add_one(l, spec, err, errlen))
			return -1;
		l->ev[l->nr - 1].perf_default = true;
	}
	return 0;
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Levenshtein distance, for "did you mean"; names are short. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, tmp;
	size_t row[CXS_EVENT_NAME_MAX + 1];

	if (la > CXS_EVENT_NAME_MAX || lb > CXS_EVENT_NAME_MAX)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = min3(row[j] + 1, row[j - 1] + 1,
				      prev + (a[i - 1] != b[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

static void consider(const char *name, const char *cand,
		     char *best, size_t len, size_t *best_dist)
{
	size_t d = edit_distance(name, cand);

	if (d < *best_dist) {
		snprintf(best, len, "%s", cand);
		*best_dist = d;
	}
}

/*
 * perf list's name of cache event (@cache, @op, @miss), or "" when the
 * cache has no such op: "L1-dcache-loads", "L1-dcache-load-misses".
 */
static void cache_event_name(size_t cache, size_t op, bool miss,
			     char *buf, size_t len)
{
	buf[0] = '\0';
	if (cache_ops_valid[cache] & 1 << op)
		snprintf(buf, len, "%s-%s%s", cache_names[cache][0],
			 cache_ops[op][!miss], miss ? "-misses" : "");
}

/* Cache event names are generated, not listed: try every combination. */
static void consider_cache_events(const char *name, char *best, size_t len,
				  size_t *best_dist)
{
	char cand[CXS_EVENT_NAME_MAX];
	size_t cache, op, miss;

	for (cache = 0; cache < PERF_COUNT_HW_CACHE_MAX; cache++)
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (miss = 0; miss < 2; miss++) {
				cache_event_name(cache, op, miss, cand, sizeof(cand));
				if (cand[0])
					consider(name, cand, best, len, best_dist);
			}
}

const char *cxs_event_suggest(const char *name)
{
	static char best[CXS_EVENT_NAME_MAX];
	size_t best_dist = 4, i;	/* more than 3 edits is no typo */

	best[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(named_events); i++)
		consider(name, named_events[i].name, best, sizeof(best),
			 &best_dist);
	for (i = 0; i < ARRAY_SIZE(tool_events); i++)
		consider(name, tool_events[i].name, best, sizeof(best),
			 &best_dist);
	consider_cache_events(name, best, sizeof(best), &best_dist);
	/* A distance as long as the name itself is no suggestion either. */
	if (!best[0] || best_dist >= strlen(name))
		return NULL;
	return best;
}

void cxs_events_print_known(FILE *f)
{
	char name[CXS_EVENT_NAME_MAX];
	size_t i, op, miss;

	fprintf(f, "Hardware and software events:\n");
	for (i = 0; i < ARRAY_SIZE(named_events); i++)
		fprintf(f, "  %-40s [%s event]\n", named_events[i].name,
			named_events[i].type == PERF_TYPE_HARDWARE ?
			"Hardware" : "Software");
	for (i = 0; i < ARRAY_SIZE(tool_events); i++)
		fprintf(f, "  %-40s [Tool event]\n", tool_events[i].name);
	fprintf(f, "\nHardware cache events:\n");
	for (i = 0; i < PERF_COUNT_HW_CACHE_MAX; i++)
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
			for (miss = 0; miss < 2; miss++) {
				cache_event_name(i, op, miss, name, sizeof(name));
				if (name[0])
					fprintf(f, "  %s\n", name);
			}
	fprintf(f, "\nRaw events:\n  rNNNN  (hex, model specific)\n"
		"\nPMU events: pmu/term=value,.../ or pmu/event/, as perf list shows them\n"
		"\nModifiers: name:[t][u][k][h]  (see ctxstat --help)\n");
}
