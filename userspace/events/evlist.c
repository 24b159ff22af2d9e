// SPDX-License-Identifier: GPL-2.0
/*
 * evlist: perf's event list syntax (tools/perf/util/parse-events.y, the
 * parts ctxstat counts): "a,b" and groups "{a,b}[:mods]", a PMU event's
 * terms between slashes keeping their commas. An empty event is a
 * syntax error, as in perf. A group schedules its events together on
 * the PMU; ctxstat's counters are each an event of its own, which perf
 * schedules (and multiplexes) alone: a group is its events, each with
 * the group's modifiers, and marked as one for events/group.c, which
 * learns what perf would refuse of it.
 * Blanks around a list's or a group's events are left out: perf's lexer
 * skips them ("cycles, instructions"), and scripts written for perf
 * have them.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "events/tracepoint.h"
#include "util/util.h"

/*
 * The end of the element that starts at @s: the first ',' outside a
 * PMU event's slashes and a group's braces (or the end); NULL when a
 * brace or a slash is left open, or a '{' opens inside a group.
 */
static const char *element_end(const char *s, bool in_group)
{
	bool slash = false;
	int depth = 0;

	for (; *s; s++) {
		if (*s == '/')
			slash = !slash;
		else if (slash)
			continue;
		else if (*s == '{' && (in_group || depth++))
			return NULL;
		else if (*s == '}' && --depth < 0)
			return NULL;
		else if (*s == ',' && !depth)
			break;
	}
	return depth || slash ? NULL : s;
}

/*
 * [*start, *stop) without the blanks at either end. perf's lexer skips
 * the C locale's white space between tokens (tabs and newlines too).
 */
static void trim_blanks(const char **start, const char **stop)
{
	static const char blanks[] = " \t\n\r\f\v";

	while (*start < *stop && strchr(blanks, **start))
		(*start)++;
	while (*stop > *start && strchr(blanks, (*stop)[-1]))
		(*stop)--;
}

static int syntax(const char *specs, const char *why, char *err, size_t errlen)
{
	return cxs_err(err, errlen, "event syntax error: '%s': %s", specs, why);
}

/* One event: a tracepoint (or a glob of them), or any other. */
static int add_event(struct cxs_event_list *l, const char *spec,
		     char *err, size_t errlen)
{
	if (cxs_tracepoint_syntax(spec))
		return cxs_tracepoint_add(l, spec, err, errlen);
	return cxs_events_add_one(l, spec, err, errlen);
}

/*
 * Where @spec's own modifiers start: after a PMU event's last '/', a
 * tracepoint's second ':' or another event's ':'; NULL when it has none
 * (a ':' must come first).
 */
static const char *own_modifiers(const char *spec)
{
	if (cxs_tracepoint_syntax(spec))
		return strchr(strchr(spec, ':') + 1, ':');
	return strrchr(spec, '/') ?: strrchr(spec, ':');
}

/*
 * A member of a group with the group's modifiers: those that change a
 * count (t, u, k, h) join the member's own, as perf applies them, and
 * its name ("{cycles,instructions}:u" counts cycles:u, instructions:u).
 */
static int add_member(struct cxs_event_list *l, const char *m, size_t len,
		      const char *mods, char *err, size_t errlen)
{
	char spec[CXS_EVENT_NAME_MAX + 8];
	const char *own;
	size_t n, at;

	n = snprintf(spec, sizeof(spec), "%.*s", (int)len, m);
	own = own_modifiers(spec);
	at = own ? (size_t)(own - spec) : n;
	for (; *mods && n + 2 < sizeof(spec); mods++) {
		if (!strchr("tukh", *mods) || strchr(spec + at, *mods))
			continue;
		if (at == n && !own) {
			spec[n++] = ':';
			own = spec + at;
		}
		spec[n++] = *mods;
		spec[n] = '\0';
	}
	return add_event(l, spec, err, errlen);
}

/*
 * Events @first to the list's last are a group of perf's: with two or
 * more, each knows its first and whether the group is weak. A tool
 * event (duration_time) has no PMU to be scheduled with the others on:
 * perf 6.1 makes the group's other events <not counted>; refused.
 */
static int mark_group(struct cxs_event_list *l, int first, const char *mods,
		      const char *specs, char *err, size_t errlen)
{
	int i;

	for (i = first; l->nr - first > 1 && i < l->nr; i++) {
		if (cxs_event_is_tool(&l->ev[i]))
			return syntax(specs, "a tool event in a group: name it outside the braces",
				      err, errlen);
		l->ev[i].group = first;
		l->ev[i].weak_group = strchr(mods, 'W') != NULL;
	}
	return 0;
}

/* "{a,b}" and after it "" or ":mods", @len characters at @g. */
static int add_group(struct cxs_event_list *l, const char *g, size_t len,
		     const char *specs, char *err, size_t errlen)
{
	const char *stop = g + len, *close = stop - 1, *mods = "", *m, *end;
	const char *member, *member_end;
	int first = l->nr;
	char modbuf[32];

	while (close > g && *close != '}')
		close--;
	if (close + 1 < stop && close[1] != ':')
		return syntax(specs, "text after a group's '}'", err, errlen);
	if (close + 1 < stop) {
		snprintf(modbuf, sizeof(modbuf), "%.*s", (int)(stop - close - 2),
			 close + 2);
		mods = modbuf;
		if (cxs_modifiers_check(specs, mods, err, errlen))
			return -1;
	}
	for (m = g + 1;; m = end + 1) {
		end = element_end(m, true);
		if (!end || end > close)
			end = close;
		member = m;
		member_end = end;
		trim_blanks(&member, &member_end);
		if (member == member_end)
			return syntax(specs, m == g + 1 ? "an empty group" :
				      "an empty event in a group", err, errlen);
		if (add_member(l, member, member_end - member, mods, err, errlen))
			return -1;
		if (end == close)
			return mark_group(l, first, mods, specs, err, errlen);
	}
}

static int add_list(struct cxs_event_list *l, const char *specs,
		    char *err, size_t errlen)
{
	char one[CXS_EVENT_NAME_MAX];
	const char *s = specs, *end, *ev, *ev_end;

	if (!*specs)
		return cxs_err(err, errlen, "empty event list");
	for (;; s = end + 1) {
		end = element_end(s, false);
		if (!end)
			return syntax(specs, "an unbalanced '{' or '/'", err, errlen);
		ev = s;
		ev_end = end;
		trim_blanks(&ev, &ev_end);
		if (ev == ev_end)
			return syntax(specs, "an empty event", err, errlen);
		if (*ev == '{') {
			if (add_group(l, ev, ev_end - ev, specs, err, errlen))
				return -1;
		} else if ((size_t)(ev_end - ev) >= sizeof(one)) {
			return cxs_err(err, errlen, "event name too long: '%.*s'",
				       (int)(ev_end - ev), ev);
		} else {
			snprintf(one, sizeof(one), "%.*s", (int)(ev_end - ev), ev);
			if (add_event(l, one, err, errlen))
				return -1;
		}
		if (!*end)
			return 0;
	}
}

/* All of the list or none of it, as perf's parser takes it. */
int cxs_events_add(struct cxs_event_list *l, const char *specs,
		   char *err, size_t errlen)
{
	int nr = l->nr, nr_counters = l->nr_counters;

	if (!add_list(l, specs, err, errlen))
		return 0;
	l->nr = nr;
	l->nr_counters = nr_counters;
	return -1;
}
