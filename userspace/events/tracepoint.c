// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint: what perf does with tracefs for a tracepoint event
 * (tools/perf/util/parse-events.c: add_tracepoint_multi_sys(),
 * add_tracepoint_multi_event(), add_tracepoint(), tracepoint_error();
 * print-events.c: print_tracepoint_events()), on the parts ctxstat
 * counts. The id is events/<sys>/<event>/id (perf 6.1 reads the "ID:"
 * line of the format file beside it: the same number, readable by the
 * same users). Tracefs is looked for where the kernel mounts it,
 * /sys/kernel/tracing, then debugfs's tracing/, as perf falls back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

#include "events/tracepoint.h"
#include "util/util.h"

/*
 * perf's name token (parse-events.l), and the '-' its grammar takes in
 * a system's name ("PE_NAME '-' PE_NAME ':' PE_NAME").
 */
#define TP_EVENT_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"0123456789_*?[]!."
#define TP_SYS_CHARS	TP_EVENT_CHARS "-"
/* perf's modifier_event letters and ctxstat's t: "cycles:u" is no tracepoint. */
#define TP_MODIFIERS	"tukhpPGHSDIWeb"

struct tp_spec {
	char sys[CXS_EVENT_NAME_MAX];
	char event[CXS_EVENT_NAME_MAX];
	const char *mods;	/* after a second ':', else NULL */
};

static int tp_split(const char *spec, struct tp_spec *tp)
{
	const char *c1 = strchr(spec, ':'), *c2;
	size_t n1, n2;

	if (!c1 || strchr(spec, '/'))
		return -1;
	c2 = strchr(c1 + 1, ':');
	n1 = c1 - spec;
	n2 = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
	if (!n1 || !n2 || n1 >= sizeof(tp->sys) || n2 >= sizeof(tp->event))
		return -1;
	snprintf(tp->sys, sizeof(tp->sys), "%.*s", (int)n1, spec);
	snprintf(tp->event, sizeof(tp->event), "%.*s", (int)n2, c1 + 1);
	tp->mods = c2 ? c2 + 1 : NULL;
	if (strspn(tp->sys, TP_SYS_CHARS) != n1 ||
	    strspn(tp->event, TP_EVENT_CHARS) != n2)
		return -1;
	return 0;
}

bool cxs_tracepoint_syntax(const char *spec)
{
	struct tp_spec tp;

	return !tp_split(spec, &tp) && !cxs_event_known(tp.sys) &&
	       strspn(tp.event, TP_MODIFIERS) != strlen(tp.event);
}

static char events_path[512];

/*
 * tracefs's events directory: the first candidate that has one, or that
 * this user may not look into (perf finds tracefs in the mount table
 * whatever its mode, then cannot read it). NULL when neither has.
 */
static const char *tp_events_dir(void)
{
	static const char *const where[] = {
		"kernel/tracing", "kernel/debug/tracing",
	};
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		snprintf(events_path, sizeof(events_path), "%s/%s/events",
			 cxs_sysfs_root(), where[i]);
		if (!stat(events_path, &st) || errno == EACCES)
			return events_path;
	}
	return NULL;
}

/* tracepoint_error() and tracing_path__strerror_open_tp(), on one line. */
static int tp_error(int e, const char *dir, const char *sys, const char *event,
		    char *err, size_t errlen)
{
	if (!dir)
		return cxs_err(err, errlen,
			       "tracepoint '%s:%s': no tracefs (%s/kernel/tracing, or tracing/ in debugfs): mount -t tracefs nodev /sys/kernel/tracing",
			       sys, event, cxs_sysfs_root());
	switch (e) {
	case EACCES:
	case EPERM:
		return cxs_err(err, errlen,
			       "can't access trace events: no permission to read %s/%s/%s, which perf needs too (tracefs is root's unless mounted with mode= or gid=)",
			       dir, sys, event);
	case ENOENT:
		return cxs_err(err, errlen,
			       "unknown tracepoint '%s:%s': no %s/%s/%s/id (ctxstat --list; perhaps this kernel misses some CONFIG_ setting)",
			       sys, event, dir, sys, event);
	default:
		return cxs_err(err, errlen, "failed to add tracepoint '%s:%s': %s",
			       sys, event, strerror(e));
	}
}

/* events/@sys/@event/id: 0, or an errno (EINVAL: not a number). */
static int tp_read_id(const char *dir, const char *sys, const char *event,
		      uint64_t *id)
{
	char path[1024];
	unsigned long long v;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, event);
	f = fopen(path, "r");
	if (!f)
		return errno;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	if (n != 1)
		return EINVAL;
	*id = v;
	return 0;
}

/*
 * One tracepoint, named as perf names it: "sys:event", whatever
 * modifiers followed; ctxstat's :t stays, it tells two rows apart.
 */
static int tp_add_one(struct cxs_event_list *l, const char *dir,
		      const char *sys, const char *event,
		      const struct tp_spec *tp, char *err, size_t errlen)
{
	struct cxs_event ev = { .type = PERF_TYPE_TRACEPOINT, .counter = -1 };
	int e = tp_read_id(dir, sys, event, &ev.config);

	if (e)
		return tp_error(e, dir, sys, event, err, errlen);
	if ((size_t)snprintf(ev.name, sizeof(ev.name), "%s:%s", sys, event) >=
	    sizeof(ev.name) - 2)
		return cxs_err(err, errlen, "event name too long: '%s:%s'",
			       sys, event);
	if (tp->mods && cxs_event_modifiers(tp->mods, &ev, err, errlen))
		return -1;
	if (ev.task_only)
		strcat(ev.name, ":t");
	return cxs_events_append(l, &ev, err, errlen);
}

/* add_tracepoint_event(): @sys's event, or every event its glob matches. */
static int tp_add_event(struct cxs_event_list *l, const char *dir,
			const char *sys, const struct tp_spec *tp,
			char *err, size_t errlen)
{
	char path[1024];
	struct dirent *de;
	int ret = 0, found = 0;
	DIR *d;

	if (!strpbrk(tp->event, "*?"))
		return tp_add_one(l, dir, sys, tp->event, tp, err, errlen);
	snprintf(path, sizeof(path), "%s/%s", dir, sys);
	d = opendir(path);
	if (!d)
		return tp_error(errno, dir, sys, tp->event, err, errlen);
	/* readdir's order, as perf adds them */
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "enable") || !strcmp(de->d_name, "filter") ||
		    fnmatch(tp->event, de->d_name, 0))
			continue;
		found++;
		ret = tp_add_one(l, dir, sys, de->d_name, tp, err, errlen);
	}
	closedir(d);
	if (!ret && !found)
		ret = tp_error(ENOENT, dir, sys, tp->event, err, errlen);
	return ret;
}

/*
 * add_tracepoint_multi_sys(): each system the glob matches, stopping at
 * the first that has no such event, as perf does. One that matches no
 * system at all is unknown (perf would go on with no event).
 */
static int tp_add_systems(struct cxs_event_list *l, const char *dir,
			  const struct tp_spec *tp, char *err, size_t errlen)
{
	int nr = l->nr, ret = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return tp_error(errno, dir, tp->sys, tp->event, err, errlen);
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "enable") ||
		    !strcmp(de->d_name, "header_event") ||
		    !strcmp(de->d_name, "header_page") ||
		    fnmatch(tp->sys, de->d_name, 0))
			continue;
		ret = tp_add_event(l, dir, de->d_name, tp, err, errlen);
	}
	closedir(d);
	if (!ret && l->nr == nr)
		ret = tp_error(ENOENT, dir, tp->sys, tp->event, err, errlen);
	return ret;
}

int cxs_tracepoint_add(struct cxs_event_list *l, const char *spec,
		       char *err, size_t errlen)
{
	const char *dir = tp_events_dir();
	struct tp_spec tp;

	if (tp_split(spec, &tp))
		return cxs_err(err, errlen, "event syntax error: '%s'", spec);
	if (!dir)
		return tp_error(ENOENT, NULL, tp.sys, tp.event, err, errlen);
	if (strpbrk(tp.sys, "*?"))
		return tp_add_systems(l, dir, &tp, err, errlen);
	return tp_add_event(l, dir, tp.sys, &tp, err, errlen);
}

/* A directory entry of @dirfd that is a directory (d_type, else stat). */
static bool tp_is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
		return false;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return !fstatat(dirfd, de->d_name, &st, 0) && S_ISDIR(st.st_mode);
}

/* @sys's events with an id this user can open, sorted, as perf lists them. */
static void tp_print_system(FILE *f, int events_fd, const char *sys)
{
	struct dirent **ev = NULL;
	char path[600];
	int i, n, fd, sys_fd;

	sys_fd = openat(events_fd, sys, O_RDONLY | O_DIRECTORY);
	if (sys_fd < 0)
		return;
	n = scandirat(events_fd, sys, &ev, NULL, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/id", ev[i]->d_name);
		if (tp_is_dir(sys_fd, ev[i]) &&
		    (fd = openat(sys_fd, path, O_RDONLY)) >= 0) {
			close(fd);
			snprintf(path, sizeof(path), "%s:%s", sys, ev[i]->d_name);
			fprintf(f, "  %-50s [Tracepoint event]\n", path);
		}
		free(ev[i]);
	}
	free(ev);
	close(sys_fd);
}

void cxs_tracepoints_print(FILE *f)
{
	const char *dir = tp_events_dir();
	struct dirent **sys = NULL;
	int i, n = -1, fd = -1;

	fprintf(f, "\nTracepoint events:\n");
	errno = ENOENT;
	if (dir)
		fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0)
		n = scandirat(fd, ".", &sys, NULL, alphasort);
	if (n < 0) {
		/* perf 6.1 lists nothing; older perf said why, as here */
		fprintf(f, "  [ Tracepoints not available: %s ]\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < n; i++) {
		if (tp_is_dir(fd, sys[i]))
			tp_print_system(f, fd, sys[i]->d_name);
		free(sys[i]);
	}
	free(sys);
	close(fd);
}
