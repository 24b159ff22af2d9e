// SPDX-License-Identifier: GPL-2.0
/*
 * Where counting starts and stops at exec (docs/design/tasks.md),
 * side by side with perf stat in the same guest:
 *
 * - a user's command that spins, then execs a setuid-root program that
 *   spins longer: ctxstat counts no more of it than perf stat, which stops
 *   at the exec (a non-setuid copy of the same program, counted in full by
 *   both, shows that the test can tell); the user's proof of the task is
 *   refused once the exec has detached it;
 * - a process whose second thread execs: the new image is counted as perf
 *   counts it, and the session's task set holds exactly the one task left
 *   (CTXCOUNT_A_TASKS_NOW), then none once it exited;
 * - arm64, one vCPU: ctxstat's full count of a 70 M-instruction program
 *   agrees with perf stat's within 0.1 % (both count from the exec; where
 *   the exec's count includes the teardown of the launcher's image, the
 *   program's own count, and ctxstat's count of the exec is no larger).
 *
 * Bounds: ctxstat's task-clock:u at most perf's + 10 % + 20 ms; a second
 * thread's exec: task-clock within 10 % of perf's; the 70 M-instruction
 * program: means of 5 after a warm-up, each tool's one-iteration run taken
 * off for the program's own count.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY 65534
#define SPIN_BEFORE "200"	/* ms the user's own command spins */
#define SPIN_AFTER "600"	/* ms the exec'd program spins */

FIXTURE(ex) {
	long paranoid;
	const char *wl;		/* the workload, 0755, in a 0755 directory */
	char burner[160];	/* a copy: setuid root, or not */
	struct cst_run *run;
	int kmsg;
};

FIXTURE_SETUP(ex)
{
	char dir[128];

	self->kmsg = cst_kmsg_open();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
	self->wl = cst_workload_copy();
	ASSERT_NE(NULL, self->wl) TH_LOG("copy to /tmp: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "%s", self->wl);
	/* the unprivileged user runs programs from there */
	ASSERT_EQ(0, chmod(dirname(dir), 0755));
	snprintf(self->burner, sizeof(self->burner), "%s/burner", dir);
}

FIXTURE_TEARDOWN(ex)
{
	EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	unlink(self->burner);
	cst_workload_copy_remove(self->wl);
	free(self->run);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The burner: a copy of the workload, setuid root or not. */
static int make_burner(const char *from, const char *to, bool setuid)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		return -errno;
	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0700);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	close(in);
	if (close(out) || n < 0)
		return -EIO;
	/* chown first: it clears the setuid bit */
	if (chown(to, 0, 0) || chmod(to, setuid ? 04755 : 0755))
		return -errno;
	return 0;
}

/*
 * Run ctxstat or perf stat (-x,) as @uid on argv's command and return the
 * value of @event (msec for task-clock), or -1.
 */
static double count_as(struct __test_metadata *_metadata, struct cst_run *run,
		       bool perf, int uid, const char *event, char **cmd)
{
	char *argv[24];
	struct cst_csv_row row;
	int n, i;

	n = cst_stat_argv(argv, perf, event);
	argv[n++] = "--";
	for (i = 0; cmd[i] && n < 23; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	cst_run_as(run, argv, 120, uid, uid);
	if (!WIFEXITED(run->status) || WEXITSTATUS(run->status)) {
		TH_LOG("%s as %d: status 0x%x\n%s", argv[0], uid, run->status,
		       run->err);
		return -1;
	}
	if (cst_csv_find(run->err, ',', event, &row) || !row.numeric) {
		TH_LOG("%s: no value for %s\n%s", argv[0], event, run->err);
		return -1;
	}
	return row.value;
}

static bool tmp_allows_setuid(void)
{
	struct statvfs v;

	return !statvfs("/tmp", &v) && !(v.f_flag & ST_NOSUID);
}

/*
 * perf stops counting a task at an exec of a setuid program: ctxstat must
 * not count more. task-clock:u, as uid 65534 at paranoid 2.
 */
TEST_F_TIMEOUT(ex, setuid_exec_counted_as_perf, 600)
{
	char *cmd[] = { (char *)self->wl, "spin-exec", SPIN_BEFORE,
			self->burner, "spin", SPIN_AFTER, NULL };
	double c_suid, p_suid, c_plain, p_plain;

	if (!cst_perf_path())
		SKIP(return, "no perf binary in the guest");
	if (!tmp_allows_setuid())
		SKIP(return, "/tmp is mounted nosuid");
	ASSERT_EQ(0, cst_paranoid_set(2));

	/* the control: the same program without setuid is counted in full */
	ASSERT_EQ(0, make_burner(self->wl, self->burner, false));
	c_plain = count_as(_metadata, self->run, false, NOBODY, "task-clock:u", cmd);
	p_plain = count_as(_metadata, self->run, true, NOBODY, "task-clock:u", cmd);
	ASSERT_EQ(0, make_burner(self->wl, self->burner, true));
	c_suid = count_as(_metadata, self->run, false, NOBODY, "task-clock:u", cmd);
	p_suid = count_as(_metadata, self->run, true, NOBODY, "task-clock:u", cmd);
	TH_LOG("task-clock:u ms of spin %s, then exec of spin %s: not setuid: ctxstat %.1f, perf %.1f; setuid root: ctxstat %.1f, perf %.1f",
	       SPIN_BEFORE, SPIN_AFTER, c_plain, p_plain, c_suid, p_suid);
	ASSERT_LT(0, c_plain);
	ASSERT_LT(0, p_plain);
	ASSERT_LT(0, c_suid);
	ASSERT_LT(0, p_suid);
	/* perf itself: the whole run without setuid, not the burn with it */
	EXPECT_LT(p_suid + 300, p_plain);
	/* never more than perf (10 % and 20 ms for TCG's clock) */
	EXPECT_GE(p_suid * 1.1 + 20, c_suid);
	EXPECT_LT(c_suid + 300, c_plain);
}

struct detached {
	int ret;
	bool msg_detached;
	int proof_err;
};

static int prove_then_exec(void *arg)
{
	struct { struct detached d; char burner[160]; } *sh = arg;
	const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, CST_F_USER_ONLY,
					   "task-clock:u");
	char *argv[] = { sh->burner, "spin", "100", NULL };
	struct cst_ack ack;
	struct cst_sock s;
	int go[2], fd, status;
	pid_t pid;
	char c;

	if (pipe(go) || cst_open(&s))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		read(go[0], &c, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	fd = cst_proof_open(pid, 0, &ev);
	sh->d.proof_err = fd < 0 ? fd : 0;
	close(go[1]);
	/* the exec is done once its burn ends; the zombie keeps its pid */
	waitid(P_PID, pid, NULL, WEXITED | WNOWAIT);
	sh->d.ret = cst_new_fds(&s, pid, 0, &ev, 1, &fd, NULL, &ack);
	sh->d.msg_detached = strstr(ack.msg, "detached") != NULL;
	waitpid(pid, &status, 0);
	if (fd >= 0)
		close(fd);
	cst_close(&s);
	return 0;
}

/* A proof opened before the setuid exec proves nothing after it. */
TEST_F(ex, setuid_exec_detaches_the_proof)
{
	struct { struct detached d; char burner[160]; } *sh;

	if (!tmp_allows_setuid())
		SKIP(return, "/tmp is mounted nosuid");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_EQ(0, cst_paranoid_set(2));
	ASSERT_EQ(0, make_burner(self->wl, self->burner, true));
	snprintf(sh->burner, sizeof(sh->burner), "%s", self->burner);
	ASSERT_EQ(0, cst_call_as(NOBODY, NOBODY, prove_then_exec, sh));
	ASSERT_EQ(0, sh->d.proof_err) TH_LOG("perf refused the proof before the exec");
	EXPECT_EQ(-EACCES, sh->d.ret);
	EXPECT_TRUE(sh->d.msg_detached);
	munmap(sh, sizeof(*sh));
}

/*
 * A process whose second thread execs: de_thread() gives that thread the
 * leader's pid. perf counts the new image; so must ctxstat.
 */
TEST_F_TIMEOUT(ex, second_thread_exec_counted_as_perf, 600)
{
	char *cmd[] = { (char *)self->wl, "thread-exec", (char *)self->wl,
			"spin", SPIN_AFTER, NULL };
	double c, p;
	int k;

	if (!cst_perf_path())
		SKIP(return, "no perf binary in the guest");
	/*
	 * Two runs apart: on a busy host a guest's clocks stretch from one
	 * run to the next (737 against 619 ms once), so a pair that does not
	 * agree is run again, three pairs at most. Not counting the new image
	 * would leave ctxstat under a third of perf in every pair.
	 */
	for (k = 0; k < 3; k++) {
		c = count_as(_metadata, self->run, false, 0, "task-clock", cmd);
		p = count_as(_metadata, self->run, true, 0, "task-clock", cmd);
		TH_LOG("task-clock ms of a second thread's exec of spin %s: ctxstat %.1f, perf %.1f",
		       SPIN_AFTER, c, p);
		ASSERT_LT(0, p);
		ASSERT_LT(atof(SPIN_AFTER) * 0.8, p)
			TH_LOG("perf did not count the new image");
		if (p * 0.9 < c && c < p * 1.1 + 20)
			break;
	}
	EXPECT_LT(p * 0.9, c);
	EXPECT_GT(p * 1.1 + 20, c);
}

/* Does /proc/@pid/cmdline have @word as an argument. */
static bool cmdline_has(pid_t pid, const char *word)
{
	char path[64], buf[512];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, word))
			return true;
	return false;
}

static const char *exec_wl;

static void thread_exec(void *arg)
{
	char *argv[] = { (char *)exec_wl, "thread-exec", (char *)exec_wl,
			 "spin", "800", NULL };

	execv(argv[0], argv);
}

/*
 * The set after a second thread's exec: the one task left (the exec'ing
 * thread, now the leader), and it is the one counted; none after exit.
 */
TEST_F(ex, second_thread_exec_task_set)
{
	const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_child c;
	struct cst_sock s;
	uint64_t before;
	int i, status;

	ASSERT_NE(NULL, r);
	exec_wl = self->wl;
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_child_fork(&c, thread_exec, NULL));
	ASSERT_EQ(0, cst_new(&s, c.pid, CTXCOUNT_TARGET_F_INHERIT, &ev, 1, r,
			     NULL));
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	ASSERT_EQ(0, cst_child_go(&c));
	/*
	 * The new image runs once the pid has one task and spin's argv: the
	 * first exec's argv has "800" too, and one task until its thread
	 * is made, so "thread-exec" must be gone from it.
	 */
	for (i = 0; i < 2000; i++) {
		if (cst_proc_tasks(c.pid) == 1 && cmdline_has(c.pid, "800") &&
		    !cmdline_has(c.pid, "thread-exec"))
			break;
		usleep(1000);
	}
	ASSERT_GT(2000, i) TH_LOG("the second thread's exec did not happen");
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	EXPECT_TRUE(r->has_now);
	EXPECT_EQ(1, r->tasks_now) TH_LOG("tasks seen %llu",
					  (unsigned long long)r->tasks_seen);
	before = r->ev[0].full;
	usleep(300 * 1000);
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	/* the exec'd thread, now under the leader's pid, is counted */
	EXPECT_LT(before + 100 * 1000000ULL, r->ev[0].full)
		TH_LOG("%llu ns in 300 ms", (unsigned long long)(r->ev[0].full - before));
	status = cst_child_wait(&c);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	EXPECT_EQ(0, r->tasks_now);
	cst_close(&s);
	free(r);
}

/*
 * Whether an exec releases the old image after perf_event_exec(), so that
 * what counts from the exec also counts that image's teardown: the image
 * of the process that forked the workload, perf's under perf stat,
 * ctxstat's under ctxstat. 7.2 does (exec_mm_put_old() in
 * setup_new_exec()); 6.1 and 6.12 release it in exec_mmap(), before.
 * Kernels in between were not checked and are taken as 7.2.
 */
static bool exec_counts_old_image(void)
{
	unsigned int major, minor;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor > 12);
}

/* Means of 5 runs of the loop, -e instructions: ctxstat's and perf's. */
static int agree_means(struct __test_metadata *_metadata, struct cst_run *run,
		       const char *wl, const char *iters, double *c, double *p)
{
	char *cargv[] = { (char *)cst_ctxstat_path(), "-x,", "-r", "5", "-e",
			  "instructions", "--", (char *)wl, "loop",
			  (char *)iters, NULL };
	char *pargv[] = { (char *)cst_perf_path(), "stat", "-x,", "-r", "5",
			  "-e", "instructions", "--", (char *)wl, "loop",
			  (char *)iters, NULL };
	struct cst_csv_row row;

	cst_run(run, cargv, 300);
	if (cst_csv_find(run->err, ',', "instructions", &row) || !row.numeric) {
		TH_LOG("ctxstat: %s", run->err);
		return -1;
	}
	*c = row.value;
	cst_run(run, pargv, 300);
	if (cst_csv_find(run->err, ',', "instructions", &row) || !row.numeric) {
		TH_LOG("perf stat: %s", run->err);
		return -1;
	}
	*p = row.value;
	return *p > 0 ? 0 : -1;
}

/*
 * Issue 14's count from the exec: ctxstat's full count and perf stat's
 * within 0.1 % on a deterministic program. Needs instructions counted
 * exactly: arm64 under -icount with one vCPU (another vCPU's work would
 * leak into the counter, see README). Means of 5 runs after one warm-up
 * run of each (the first exec of a fresh copy pages it in). What differs
 * between runs of either tool is the exec's and the page faults' kernel
 * work, tens of thousands of instructions (-17,879 between the means of
 * 14 M-instruction runs was seen on arm64-6.12): 70 M instructions keep
 * that well inside the bound.
 *
 * Where the exec's count includes the launcher's teardown
 * (exec_counts_old_image()), the two tools count different launchers:
 * perf stat's is the larger image (arm64-7.2: about 600,000 instructions
 * more for the same program). There the program's own count is compared,
 * each tool's count of a one-iteration run taken off its count of the
 * long one, and ctxstat's count of the short run must be no larger than
 * perf's: counting from before the exec would show as more.
 */
#define AGREE_ITERS "35000000"
TEST_F_TIMEOUT(ex, count_from_exec_matches_perf, 900)
{
	char *cmd[] = { (char *)self->wl, "loop", AGREE_ITERS, NULL };
	double c, p, c1, p1, dev;
	char why[256];

	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP(return, "%ld vCPUs: under -icount every vCPU's work is in the counter (scripts/vm --smp 1)",
		     sysconf(_SC_NPROCESSORS_ONLN));
	if (!cst_perf_path())
		SKIP(return, "no perf binary in the guest");
	/* warm-up */
	ASSERT_LT(0, count_as(_metadata, self->run, false, 0, "instructions", cmd));
	ASSERT_LT(0, count_as(_metadata, self->run, true, 0, "instructions", cmd));
	ASSERT_EQ(0, agree_means(_metadata, self->run, self->wl, AGREE_ITERS,
				 &c, &p));
	if (!exec_counts_old_image()) {
		dev = (c - p) / p;
		TH_LOG("instructions of loop %s (means of 5): ctxstat %.0f, perf %.0f: %+.0f (%+.4f %%)",
		       AGREE_ITERS, c, p, c - p, dev * 100);
		EXPECT_GE(0.001, dev < 0 ? -dev : dev);
		return;
	}
	ASSERT_EQ(0, agree_means(_metadata, self->run, self->wl, "1", &c1,
				 &p1));
	dev = ((c - c1) - (p - p1)) / (p - p1);
	TH_LOG("instructions of loop %s less loop 1 (means of 5): ctxstat %.0f, perf %.0f: %+.0f (%+.4f %%); loop 1: ctxstat %.0f, perf %.0f (%+.0f, the launchers' teardown)",
	       AGREE_ITERS, c - c1, p - p1, (c - c1) - (p - p1), dev * 100,
	       c1, p1, c1 - p1);
	EXPECT_GE(0.001, dev < 0 ? -dev : dev);
	EXPECT_GE(p1, c1);
}

CST_TEST_MAIN
