// SPDX-License-Identifier: GPL-2.0
/*
 * The proofs SESSION_NEW needs: missing, not perf's, mismatched, on
 * another target, detached. perf's permission checks are not exported to
 * modules in a usable form, so the module takes the caller's perf fd for
 * the same event on the same target as proof that perf allowed it
 * (docs/design/permissions.md): every fd that proves something other
 * than what is requested must be refused, or an unprivileged user counts
 * what perf would not let it count.
 *
 * Each refusal is -EACCES (-EBADF for an fd that is not open) with an
 * extack naming the attribute: no proof, /dev/null, an eventfd, another
 * config, other exclude bits, other inherit, another process, another
 * thread, a task proof for SYSTEM_WIDE and a CPU proof for a task, a
 * zombie's detached proof, and the same config on another PMU (caught when
 * the counters are compared with their proofs). Accepted: a CPU proof for
 * SYSTEM_WIDE and (6.12) the cpu_clock PMU's type.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");

/*
 * Proofs (include/uapi/linux/ctxcount.h): each refusal comes from the
 * kernel with -EACCES (-EBADF for a descriptor that is not open) and an
 * extended ack naming the event's attribute.
 */
FIXTURE(proof) {
	struct cst_sock s;
	struct cst_res *res;
	struct cst_ack ack;
	int kmsg;
};

FIXTURE_SETUP(proof)
{
	self->kmsg = cst_kmsg_open();
	self->res = calloc(1, sizeof(*self->res));
	ASSERT_NE(NULL, self->res);
	ASSERT_EQ(0, cst_open(&self->s));
}

FIXTURE_TEARDOWN(proof)
{
	cst_close(&self->s);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->res);
}

#define EXPECT_PROOF_REFUSED(ret, ack, errno_) do {			\
	EXPECT_EQ(-(errno_), (ret));					\
	CST_EXPECT_REFUSED((ret), (ack));					\
	EXPECT_TRUE((ack).has_off) TH_LOG("the extack names no attribute"); \
} while (0)

/* @fd as the proof of cpu-clock on this process; closes @fd. */
static int try_proof(struct cst_sock *s, uint32_t tflags, int fd,
		     struct cst_ack *ack)
{
	int pid = tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE ? -1 : getpid();
	int ret = cst_new_proof(s, pid, tflags, &ev_cpu_clock, fd, NULL, ack);

	if (fd >= 0)
		close(fd);
	return ret;
}

TEST_F(proof, missing)
{
	int ret = try_proof(&self->s, 0, -1, &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
	EXPECT_NE(NULL, strstr(self->ack.msg, "proof"));
}

TEST_F(proof, not_open)
{
	int ret = cst_new_proof(&self->s, getpid(), 0, &ev_cpu_clock, 1000,
				 NULL, &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EBADF);
}

TEST_F(proof, not_a_perf_event)
{
	int ret = try_proof(&self->s, 0, open("/dev/null", O_RDONLY),
			    &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

/* Another anonymous-inode file: the name test alone must not pass it. */
TEST_F(proof, other_anon_inode)
{
	int ret = try_proof(&self->s, 0, eventfd(0, EFD_CLOEXEC), &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

TEST_F(proof, other_config)
{
	const struct cst_ev task_clock = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
	int ret = try_proof(&self->s, 0,
			    cst_proof_open(getpid(), 0, &task_clock),
			    &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

/* A user-mode proof does not prove kernel-mode counting. */
TEST_F(proof, other_exclude_bits)
{
	const struct cst_ev user = CST_EV_SW(CPU_CLOCK, CST_F_USER_ONLY,
					     "cpu-clock:u");
	int ret = try_proof(&self->s, 0, cst_proof_open(getpid(), 0, &user),
			    &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

TEST_F(proof, other_inherit)
{
	int ret = try_proof(&self->s, CTXCOUNT_TARGET_F_INHERIT, cst_proof_open(getpid(), 0, &ev_cpu_clock),
			    &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

static void noop(void *arg)
{
}

/* A proof on the parent does not prove its child. */
TEST_F(proof, other_process)
{
	struct cst_child c;
	int ret;

	ASSERT_EQ(0, cst_child_fork(&c, noop, NULL));
	ret = cst_new_proof(&self->s, c.pid, 0, &ev_cpu_clock, cst_proof_open(getpid(), 0, &ev_cpu_clock),
			     NULL, &self->ack);
	cst_child_go(&c);
	cst_child_wait(&c);
	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

static void *park(void *arg)
{
	pause();
	return arg;
}

/* Proofs are per thread: another thread's does not prove the named one. */
TEST_F(proof, other_thread)
{
	pthread_t t;
	pid_t tid = 0;
	char path[64];
	DIR *d;
	struct dirent *de;
	int ret;

	ASSERT_EQ(0, pthread_create(&t, NULL, park, NULL));
	snprintf(path, sizeof(path), "/proc/%d/task", getpid());
	d = opendir(path);
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		if (atoi(de->d_name) > 0 && atoi(de->d_name) != getpid())
			tid = atoi(de->d_name);
	closedir(d);
	ASSERT_LT(0, tid);
	ret = cst_new_proof(&self->s, getpid(), 0, &ev_cpu_clock,
			     cst_proof_open(tid, 0, &ev_cpu_clock), NULL,
			     &self->ack);
	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
	/* the named thread's own proof does */
	ret = cst_new_proof(&self->s, getpid(), 0, &ev_cpu_clock, cst_proof_open(getpid(), 0, &ev_cpu_clock),
			     self->res, &self->ack);
	EXPECT_EQ(0, ret) TH_LOG("%s", self->ack.msg);
	pthread_cancel(t);
	pthread_join(t, NULL);
}

TEST_F(proof, task_proof_for_system_wide)
{
	int ret = try_proof(&self->s, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			    cst_proof_open(getpid(), 0, &ev_cpu_clock), &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

TEST_F(proof, cpu_proof_for_a_task)
{
	int ret = try_proof(&self->s, 0,
			    cst_proof_open(-1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
					   &ev_cpu_clock),
			    &self->ack);

	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

TEST_F(proof, system_wide_accepted)
{
	int ret = try_proof(&self->s, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			    cst_proof_open(-1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
					   &ev_cpu_clock),
			    &self->ack);

	EXPECT_EQ(0, ret) TH_LOG("%s", self->ack.msg);
}

/* A task that exited: perf_event_exit_task() detached its events. */
TEST_F(proof, detached_by_exit)
{
	int fd, ret, pfd[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pfd[1]);
		read(pfd[0], &c, 1);
		_exit(0);
	}
	close(pfd[0]);
	fd = cst_proof_open(pid, 0, &ev_cpu_clock);
	ASSERT_LE(0, fd);
	close(pfd[1]);
	/* a zombie: its pid still names it, its events are detached */
	ASSERT_EQ(0, waitid(P_PID, pid, NULL, WEXITED | WNOWAIT));
	ret = cst_new_proof(&self->s, pid, 0, &ev_cpu_clock, fd, NULL,
			     &self->ack);
	close(fd);
	waitpid(pid, NULL, 0);
	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
	EXPECT_NE(NULL, strstr(self->ack.msg, "detached"));
}

/*
 * The same config on another PMU: the type check lets a dynamic PMU's
 * event through when its type is its PMU's (the perf core gives 6.12's
 * cpu-clock such a type), so the check of the counters against the proof
 * must refuse it.
 */
TEST_F(proof, other_pmu_same_config)
{
	char path[320], buf[32];
	const char *name = NULL;
	struct dirent *de;
	struct cst_ev other;
	int fd = -1, ret;
	DIR *d;

	d = opendir("/sys/bus/event_source/devices");
	ASSERT_NE(NULL, d);
	while (fd < 0 && (de = readdir(d))) {
		FILE *f;
		long type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/%s/type", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		type = fgets(buf, sizeof(buf), f) ? atol(buf) : -1;
		fclose(f);
		/* cpu-clock itself may have a PMU of its own (6.12) */
		if (type < PERF_TYPE_MAX || strstr(de->d_name, "clock"))
			continue;
		other = (struct cst_ev){ type, PERF_COUNT_SW_CPU_CLOCK, 0,
					 de->d_name };
		fd = cst_proof_open(getpid(), 0, &other);
		name = de->d_name;
	}
	closedir(d);
	if (fd < 0)
		SKIP(return, "no dynamic PMU here takes config %d on a task",
		     PERF_COUNT_SW_CPU_CLOCK);
	TH_LOG("proof from PMU %s", name ? name : "?");
	ret = try_proof(&self->s, 0, fd, &self->ack);
	EXPECT_PROOF_REFUSED(ret, self->ack, EACCES);
}

/* 6.12 gives cpu-clock a PMU of its own: its proof is cpu-clock's. */
TEST_F(proof, cpu_clock_pmu_type)
{
	char buf[32];
	struct cst_ev ev = ev_cpu_clock;
	FILE *f = fopen("/sys/bus/event_source/devices/cpu_clock/type", "r");
	int ret;

	if (!f)
		SKIP(return, "no cpu_clock PMU in this kernel");
	ev.type = fgets(buf, sizeof(buf), f) ? atol(buf) : 0;
	fclose(f);
	ASSERT_LT(PERF_TYPE_MAX - 1, ev.type);
	ret = try_proof(&self->s, 0, cst_proof_open(getpid(), 0, &ev),
			&self->ack);
	EXPECT_EQ(0, ret) TH_LOG("%s", self->ack.msg);
}

CST_TEST_MAIN
