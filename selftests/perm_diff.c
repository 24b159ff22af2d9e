// SPDX-License-Identifier: GPL-2.0
/*
 * ctxstat against perf stat, in the same guest, on who may count what:
 * for kernel.perf_event_paranoid 3, 2, 1, 0 and -1, as an unprivileged
 * user (uid 65534) and as a user with CAP_PERFMON only (util-linux
 * setpriv, ambient), on the user's own command, another user's process
 * (-p), the whole system (-a) and CPU 0 (-C 0), with a user-mode and a
 * kernel-mode event: ctxstat counts exactly when perf stat does, under
 * the same name (perf's fallback to user mode renames task-clock to
 * task-clock:u), says the fallback as perf -v says it, and when refused
 * says which sysctl and capability would allow it. "Allowed" comes from
 * perf's own behaviour here, not from a table. Also: raw events (arm64's PMU), and a seccomp
 * filter that fails perf_event_open() stops ctxstat as it stops perf.
 *
 * Raw r8, r8:u, r8:k as 65534 at paranoid 2 (skipped on x86: no PMU);
 * CAP_PERFMON only is skipped without setpriv; the seccomp refusal is named
 * in ctxstat's message.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY 65534
#define OTHER_USER 65533

enum who { UNPRIVILEGED, PERFMON_ONLY };
enum target { OWN, OTHER_USERS, SYSTEM_WIDE, CPU_LIST };

static const char *const who_names[] = { "uid 65534", "uid 65534 with CAP_PERFMON" };
static const char *const target_names[] = { "own command", "-p (another user's)", "-a",
					     "-C 0" };

/* One tool's answer. */
struct answer {
	bool counted;		/* exit 0 and a number */
	char name[64];		/* the event's name in the output */
	char fallback[256];	/* with -v: perf's fallback warning line */
};

FIXTURE(diff) {
	long paranoid;
	pid_t other;
	const char *wl;
	struct cst_run *run;
	int kmsg;
};

FIXTURE_VARIANT(diff) {
	int paranoid;
	enum who who;
	enum target target;
	bool kernel;		/* task-clock, else task-clock:u */
};

#define DIFF_CASE(p, pn, w, wn, t, tn)					\
FIXTURE_VARIANT_ADD(diff, pn##_##wn##_##tn##_user) {			\
	.paranoid = p, .who = w, .target = t };				\
FIXTURE_VARIANT_ADD(diff, pn##_##wn##_##tn##_kernel) {			\
	.paranoid = p, .who = w, .target = t, .kernel = true }

#define DIFF_TARGETS(p, pn, w, wn)					\
	DIFF_CASE(p, pn, w, wn, OWN, own);				\
	DIFF_CASE(p, pn, w, wn, OTHER_USERS, other);			\
	DIFF_CASE(p, pn, w, wn, SYSTEM_WIDE, all);			\
	DIFF_CASE(p, pn, w, wn, CPU_LIST, cpus)

#define DIFF_WHO(p, pn)							\
	DIFF_TARGETS(p, pn, UNPRIVILEGED, user);			\
	DIFF_TARGETS(p, pn, PERFMON_ONLY, perfmon)

DIFF_WHO(3, p3);
DIFF_WHO(2, p2);
DIFF_WHO(1, p1);
DIFF_WHO(0, p0);
DIFF_WHO(-1, pm1);

FIXTURE_SETUP(diff)
{
	self->kmsg = cst_kmsg_open();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
	self->wl = cst_workload_path();
	/*
	 * Another user's long-running process. It must run while the tools
	 * watch it (else both print <not counted>), but not spin: a spinner
	 * takes a vCPU, and under -icount every instruction of it slows the
	 * whole guest (arm64-6.1 then ran past CI's 30-minute guest limit).
	 */
	fflush(stdout);
	self->other = fork();
	ASSERT_LE(0, self->other);
	if (self->other == 0) {
		char *argv[] = { (char *)self->wl, "idle", NULL };

		if (setgroups(0, NULL) || setresgid(OTHER_USER, OTHER_USER, OTHER_USER) ||
		    setresuid(OTHER_USER, OTHER_USER, OTHER_USER))
			_exit(1);
		execv(argv[0], argv);
		_exit(127);
	}
}

FIXTURE_TEARDOWN(diff)
{
	kill(self->other, SIGKILL);
	waitpid(self->other, NULL, 0);
	EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	free(self->run);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}


/* argv[] for @tool (perf stat or ctxstat) as @who, on @target. */
static int build_argv(char **argv, bool perf, enum who who, enum target target,
		      const char *event, bool verbose, pid_t other,
		      const char *wl, char *pidbuf)
{
	int n = 0;

	if (who == PERFMON_ONLY) {
		argv[n++] = "/usr/bin/setpriv";
		argv[n++] = "--inh-caps=+perfmon";
		argv[n++] = "--ambient-caps=+perfmon";
		argv[n++] = "--reuid=65534";
		argv[n++] = "--regid=65534";
		argv[n++] = "--clear-groups";
		argv[n++] = "--";
	}
	argv[n++] = (char *)(perf ? cst_perf_path() : cst_ctxstat_path());
	if (perf)
		argv[n++] = "stat";
	argv[n++] = "-x,";
	if (verbose)
		argv[n++] = "-v";
	argv[n++] = "-e";
	argv[n++] = (char *)event;
	if (target == OTHER_USERS) {
		snprintf(pidbuf, 16, "%d", other);
		argv[n++] = "-p";
		argv[n++] = pidbuf;
	} else if (target == SYSTEM_WIDE) {
		argv[n++] = "-a";
	} else if (target == CPU_LIST) {
		argv[n++] = "-C";
		argv[n++] = "0";
	}
	argv[n++] = "--";
	if (target == OWN) {
		argv[n++] = (char *)wl;
		argv[n++] = "spin";
		argv[n++] = "50";
	} else {
		argv[n++] = "/bin/sleep";
		argv[n++] = "0.2";
	}
	argv[n] = NULL;
	return n;
}

/* Run one tool; what it answered for @event (or perf's :u rename). */
static void ask(struct cst_run *run, bool perf, enum who who,
		enum target target, const char *event, bool verbose,
		pid_t other, const char *wl, struct answer *a)
{
	char *argv[32], pidbuf[16], renamed[72], *line;
	struct cst_csv_row row;

	memset(a, 0, sizeof(*a));
	build_argv(argv, perf, who, target, event, verbose, other, wl, pidbuf);
	if (who == PERFMON_ONLY)
		cst_run(run, argv, 120);
	else
		cst_run_as(run, argv, 120, NOBODY, NOBODY);
	snprintf(renamed, sizeof(renamed), "%s%su", event,
		 strchr(event, ':') ? "" : ":");
	if (!cst_csv_find(run->err, ',', event, &row) ||
	    !cst_csv_find(run->err, ',', renamed, &row))
		snprintf(a->name, sizeof(a->name), "%.63s", row.f[2]);
	a->counted = WIFEXITED(run->status) && !WEXITSTATUS(run->status) &&
		     a->name[0] && row.numeric;
	line = strstr(run->err, "trying to fall back");
	if (line) {
		char *start = line, *end = strchr(line, '\n');

		while (start > run->err && start[-1] != '\n')
			start--;
		snprintf(a->fallback, sizeof(a->fallback), "%.*s",
			 (int)(end ? end - start : (long)strlen(start)), start);
	}
}

/* util-linux setpriv that knows CAP_PERFMON, and a kernel that has it. */
static const char *perfmon_unavailable(struct cst_run *run)
{
	char *argv[] = { "/usr/bin/setpriv", "--inh-caps=+perfmon",
			 "--ambient-caps=+perfmon", "--reuid=65534",
			 "--regid=65534", "--clear-groups", "--", "/bin/true",
			 NULL };

	if (access(argv[0], X_OK))
		return "no /usr/bin/setpriv (util-linux)";
	cst_run(run, argv, 60);
	if (!WIFEXITED(run->status) || WEXITSTATUS(run->status))
		return "setpriv cannot give CAP_PERFMON here";
	return NULL;
}

TEST_F_TIMEOUT(diff, ctxstat_allowed_exactly_when_perf_is, 300)
{
	const char *event = variant->kernel ? "task-clock" : "task-clock:u";
	struct answer p, c;
	char want[64];
	const char *why;

	if (!cst_perf_path())
		SKIP(return, "no perf binary in the guest");
	if (variant->who == PERFMON_ONLY && (why = perfmon_unavailable(self->run)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, cst_paranoid_set(variant->paranoid));
	ask(self->run, true, variant->who, variant->target, event, false,
	    self->other, self->wl, &p);
	ask(self->run, false, variant->who, variant->target, event, false,
	    self->other, self->wl, &c);
	TH_LOG("paranoid %d, %s, %s, %s: perf %s%s%s, ctxstat %s%s%s",
	       variant->paranoid, who_names[variant->who],
	       target_names[variant->target], event,
	       p.counted ? "counts " : "refuses", p.counted ? p.name : "", "",
	       c.counted ? "counts " : "refuses", c.counted ? c.name : "", "");
	EXPECT_EQ(p.counted, c.counted)
		TH_LOG("ctxstat's stderr:\n%s", self->run->err);
	if (p.counted && c.counted) {
		EXPECT_STREQ(p.name, c.name);
		if (strcmp(p.name, event)) {
			/* perf fell back: both say so with -v, in the same words */
			ask(self->run, true, variant->who, variant->target,
			    event, true, self->other, self->wl, &p);
			ask(self->run, false, variant->who, variant->target,
			    event, true, self->other, self->wl, &c);
			EXPECT_NE(0, p.fallback[0]);
			EXPECT_STREQ(p.fallback, c.fallback);
			TH_LOG("-v: \"%s\"", c.fallback);
		}
		return;
	}
	if (c.counted)
		return;
	/* refused: the sysctl's value and the capability that would allow it */
	snprintf(want, sizeof(want), "perf_event_paranoid setting is %d",
		 variant->paranoid);
	EXPECT_NE(NULL, strstr(self->run->err, want))
		TH_LOG("ctxstat's stderr:\n%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "CAP_PERFMON"));
}

/* Cases that do not depend on a variant. */
FIXTURE(misc) {
	long paranoid;
	const char *wl;
	struct cst_run *run;
	int kmsg;
};

FIXTURE_SETUP(misc)
{
	self->kmsg = cst_kmsg_open();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
	self->wl = cst_workload_path();
}

FIXTURE_TEARDOWN(misc)
{
	EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	free(self->run);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/*
 * A raw event (arm64's PMU: r8 is INST_RETIRED) as uid 65534 at paranoid
 * 2: counting the kernel falls back to r8:u in both; r8:k (kernel only:
 * nothing to fall back to) is refused by both.
 */
TEST_F(misc, raw_events)
{
	static const char *const events[] = { "r8", "r8:u", "r8:k" };
	struct answer p, c;
	char why[256];
	unsigned int i;

	if (!cst_perf_path())
		SKIP(return, "no perf binary in the guest");
#ifndef __aarch64__
	SKIP(return, "raw r8 is arm64's INST_RETIRED (x86 under TCG has no PMU)");
#endif
	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, cst_paranoid_set(2));
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		ask(self->run, true, UNPRIVILEGED, OWN, events[i], false, 0,
		    self->wl, &p);
		ask(self->run, false, UNPRIVILEGED, OWN, events[i], false, 0,
		    self->wl, &c);
		TH_LOG("%s: perf %s %s, ctxstat %s %s", events[i],
		       p.counted ? "counts" : "refuses", p.name,
		       c.counted ? "counts" : "refuses", c.name);
		EXPECT_EQ(p.counted, c.counted);
		if (p.counted && c.counted)
			EXPECT_STREQ(p.name, c.name);
	}
}

/* A seccomp filter that fails perf_event_open() stops both tools. */
TEST_F(misc, seccomp_filter_stops_ctxstat)
{
	char *pargv[] = { (char *)self->wl, "no-perf", (char *)cst_perf_path(),
			  "stat", "-x,", "-e", "task-clock", "--", "/bin/true",
			  NULL };
	char *cargv[] = { (char *)self->wl, "no-perf",
			  (char *)cst_ctxstat_path(), "-x,", "-e", "task-clock",
			  "--", "/bin/true", NULL };
	bool perf_ok = false;

	/* as root: the filter alone, no paranoid or capability in the way */
	if (pargv[2]) {
		cst_run(self->run, pargv, 60);
		perf_ok = WIFEXITED(self->run->status) &&
			  !WEXITSTATUS(self->run->status);
		TH_LOG("perf under the filter: 0x%x", self->run->status);
		EXPECT_FALSE(perf_ok);
	}
	cst_run(self->run, cargv, 60);
	EXPECT_FALSE(WIFEXITED(self->run->status) &&
		     !WEXITSTATUS(self->run->status))
		TH_LOG("ctxstat counted under the filter:\n%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "No permission to enable task-clock event"))
		TH_LOG("stderr:\n%s", self->run->err);
	EXPECT_NE(NULL, strstr(self->run->err, "seccomp"));
	/* and without the filter, root counts: the filter made the difference */
	cst_run(self->run, cargv + 2, 60);
	EXPECT_TRUE(WIFEXITED(self->run->status) && !WEXITSTATUS(self->run->status))
		TH_LOG("%s", self->run->err);
}

CST_TEST_MAIN
