// SPDX-License-Identifier: GPL-2.0
/*
 * cst_oracle: the oracle module and the child that runs its commands (see
 * cst_oracle.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "cst_kern.h"
#include "cst_oracle.h"
#include "cst_sys.h"
#include "cst_work.h"

#define CST_WORKER_TRIES	20
/* Samples taken while the worker was still running (cst_worker_sample()). */
#define CST_WORKER_SAMPLE_TRIES	50

int cst_oracle_stats(struct cst_oracle_stats *st)
{
	FILE *f = fopen(CST_ORACLE_STATS, "r");
	int n;

	if (!f)
		return -errno;
	st->devirqs = 0;
	st->virq = -1;
	st->nmi_ns = -1;
	n = fscanf(f, "hardirqs %ld tasklets %ld nmis %ld storm %ld devirqs %ld virq %d nmi_ns %lld",
		   &st->hardirqs, &st->tasklets, &st->nmis, &st->storm,
		   &st->devirqs, &st->virq, &st->nmi_ns);
	fclose(f);
	return n >= 4 ? 0 : -EPROTO;
}

const char *cst_oracle_ko_path(void)
{
	static char path[512];
	const char *env = getenv("CTX_ORACLE_KO");

	if (env)
		return env;
	snprintf(path, sizeof(path), "%s/../testbed/oracle_mod.ko", cst_self_dir());
	return path;
}

int cst_oracle_load(void)
{
	int fd, ret = 0;

	if (!access(CST_ORACLE_RUN, W_OK))
		return 0;
	fd = open(cst_oracle_ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
		ret = -errno;
	close(fd);
	return ret;
}

int cst_oracle_cmd(const char *cmd)
{
	int fd = open(CST_ORACLE_RUN, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		ret = -errno;
	close(fd);
	return ret;
}

const struct cst_ev cst_oracle_events[4] = {
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(CPU_CYCLES, 0, "cycles"),
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(CPU_CYCLES, 0, "cycles"),
};

const char *cst_oracle_exact_cannot_run(void)
{
	static char why[128];

	if (cst_no_insn_reason(why, sizeof(why)))
		return why;
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		return "more than one CPU: under -icount each vCPU counts the others (run with scripts/vm --smp 1)";
	return NULL;
}

/* The NMI row of /proc/interrupts, all CPUs (0 where there is none). */
static long long cst_proc_nmis(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	long long total = 0;
	char line[4096], *p, *end;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "NMI:", 4))
			continue;
		for (p += 4;; p = end) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			total += v;
		}
	}
	fclose(f);
	return total;
}

/*
 * "storm-HZ T loop N" / "storm-HZ T kloop N": the oracle's storm at HZ
 * (T: with a tasklet) around the loop, started and stopped by the child
 * itself, so that the storm lands on it; HZ 1 starts the same timer for a
 * run without interrupts (a second is far beyond the loop).
 */
static int cst_worker_storm(const char *arg)
{
	unsigned long hz, t;
	char storm[48], loop[48];
	unsigned long long n;
	int err;

	if (sscanf(arg, "%lu %lu loop %llu", &hz, &t, &n) == 3)
		snprintf(loop, sizeof(loop), "loop");
	else if (sscanf(arg, "%lu %lu kloop %llu", &hz, &t, &n) == 3)
		snprintf(loop, sizeof(loop), "kloop %llu", n);
	else
		return -EINVAL;
	snprintf(storm, sizeof(storm), "storm %lu %lu", hz, t);
	err = cst_oracle_cmd(storm);
	if (err)
		return err;
	if (!strcmp(loop, "loop"))
		cst_loop(n);
	else
		err = cst_oracle_cmd(loop);
	return cst_oracle_cmd("storm 0") ?: err;
}

static void *cst_worker_loop_fn(void *iters)
{
	cst_loop(*(unsigned long long *)iters);
	return NULL;
}

/* "thread N": a thread made after NEW counts where it was inherited. */
static int cst_worker_thread(unsigned long long iters)
{
	pthread_t t;
	int err;

	err = pthread_create(&t, NULL, cst_worker_loop_fn, &iters);
	return err ? -err : -pthread_join(t, NULL);
}

static void cst_worker_loop(int cmd_fd, int ack_fd)
{
	unsigned long long iters;
	char buf[64];
	ssize_t n;
	int err;

	while ((n = read(cmd_fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		err = 0;
		if (sscanf(buf, "loop %llu", &iters) == 1)
			cst_loop(iters);
		else if (sscanf(buf, "thread %llu", &iters) == 1)
			err = cst_worker_thread(iters);
		else if (!strncmp(buf, "storm-", 6))
			err = cst_worker_storm(buf + 6);
		else
			err = cst_oracle_cmd(buf);
		if (write(ack_fd, err ? "e" : "k", 1) != 1)
			_exit(2);
	}
	_exit(n ? 1 : 0);
}

/* Thread S: says its tid on its ack pipe, then serves its commands. */
static void *cst_worker_second(void *fds)
{
	pid_t tid = syscall(SYS_gettid);
	int *p = fds;

	prctl(PR_SET_NAME, "cst_worker_s");
	if (write(p[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	cst_worker_loop(p[0], p[1]);
	return NULL;
}

/* The child: M serves pipes 0, S (if asked for) pipes 1. */
static void cst_worker_child(int nthr, int (*cmd)[2], int (*ack)[2])
{
	static int s_fds[2];
	pthread_t s;
	int t;

	for (t = 0; t < nthr; t++) {
		close(cmd[t][1]);
		close(ack[t][0]);
	}
	if (nthr > 1) {
		prctl(PR_SET_NAME, "cst_worker_m");
		s_fds[0] = cmd[1][0];
		s_fds[1] = ack[1][1];
		if (pthread_create(&s, NULL, cst_worker_second, s_fds))
			_exit(2);
	}
	cst_worker_loop(cmd[0][0], ack[0][1]);
}

static int cst_perf_open_task(pid_t pid, const struct cst_ev *ev)
{
	struct perf_event_attr pa = {
		.size = sizeof(pa),
		.type = ev->type,
		.config = ev->config,
		.exclude_user = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER),
		.exclude_kernel = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL),
		.exclude_hv = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV),
	};

	return syscall(SYS_perf_event_open, &pa, pid, -1, -1, 0);
}

/* perf[i] on the child (on thread i with two), as perf stat opens them. */
static int cst_worker_perf(struct cst_worker *w, const struct cst_ev *perf,
			   int nperf)
{
	int i;

	for (i = 0; i < nperf; i++) {
		w->pfd[i] = cst_perf_open_task(w->nthr > 1 ? w->tid[i] : w->c.pid,
					       &perf[i]);
		if (w->pfd[i] < 0)
			return -errno;
	}
	return 0;
}

static int cst_worker_measure(struct cst_worker *w, const struct cst_ev *ev,
			      int nev, const struct cst_ev *perf, int nperf,
			      struct cst_res *r)
{
	uint32_t tflags = w->cfg.tflags;
	int ret = 0;

	/* Two threads: counters that see all of the session, NEW included. */
	if (w->nthr > 1)
		ret = cst_worker_perf(w, perf, nperf);
	if (nev && !ret) {
		ret = cst_open(&w->s);
		if (ret)
			return ret;
		if (tflags & CTXCOUNT_TARGET_F_ALL_THREADS)
			ret = cst_new_all_threads(&w->s, -1, tflags, NULL, -1,
						  ev, nev, r, NULL);
		else
			ret = cst_new(&w->s, w->c.pid, tflags, ev, nev, r, NULL);
		/* As ctxstat does: the estimate's user-mode half. */
		if (!ret)
			cst_calibrate(&w->s, r->id);
		ret = ret ?: cst_cmd(&w->s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL);
		w->id = r->id;
	}
	if (w->nthr == 1 && !ret)
		ret = cst_worker_perf(w, perf, nperf);
	return ret;
}

/* Close the pipes of threads 0..n-1 (both ends, those >= 0). */
static void cst_worker_close_pipes(int n, int (*cmd)[2], int (*ack)[2])
{
	int t, k;

	for (t = 0; t < n; t++)
		for (k = 0; k < 2; k++) {
			if (cmd[t][k] >= 0)
				close(cmd[t][k]);
			if (ack[t][k] >= 0)
				close(ack[t][k]);
		}
}

/* Fork the child; its threads' tids into w->tid. */
static int cst_worker_fork(struct cst_worker *w)
{
	int cmd[CST_WORKER_THREADS][2], ack[CST_WORKER_THREADS][2], t;

	memset(cmd, -1, sizeof(cmd));
	memset(ack, -1, sizeof(ack));
	for (t = 0; t < w->nthr; t++)
		if (pipe2(cmd[t], O_CLOEXEC) || pipe2(ack[t], O_CLOEXEC))
			goto fail;
	fflush(stdout);
	fflush(stderr);
	w->c.pid = fork();
	if (w->c.pid < 0)
		goto fail;
	if (!w->c.pid)
		cst_worker_child(w->nthr, cmd, ack);
	for (t = 0; t < w->nthr; t++) {
		close(cmd[t][0]);
		close(ack[t][1]);
		w->cmd_fd[t] = cmd[t][1];
		w->ack_fd[t] = ack[t][0];
	}
	w->tid[0] = w->c.pid;
	/* S is running (and so has its task events at NEW) once it said so. */
	if (w->nthr > 1 &&
	    read(w->ack_fd[1], &w->tid[1], sizeof(w->tid[1])) != sizeof(w->tid[1]))
		return -EPIPE;
	return 0;

fail:
	t = -errno;
	cst_worker_close_pipes(w->nthr, cmd, ack);
	return t;
}

int cst_worker_start_cfg(struct cst_worker *w, const struct cst_worker_cfg *cfg,
			 const struct cst_ev *ev, int nev,
			 const struct cst_ev *perf, int nperf, struct cst_res *r)
{
	int i, ret;

	memset(w, 0, sizeof(*w));
	if (cfg)
		w->cfg = *cfg;
	w->nthr = w->cfg.second_thread ? 2 : 1;
	w->nev = nev;
	for (i = 0; i < CST_WORKER_THREADS; i++)
		w->cmd_fd[i] = w->ack_fd[i] = -1;
	for (i = 0; i < CST_WORKER_PERF; i++)
		w->pfd[i] = -1;
	if (nperf > CST_WORKER_PERF)
		return -E2BIG;
	ret = cst_worker_fork(w);
	if (w->c.pid <= 0)
		return ret;
	ret = ret ?: cst_worker_measure(w, ev, nev, perf, nperf, r);
	if (ret)
		cst_worker_stop(w);
	return ret;
}

int cst_worker_start(struct cst_worker *w, const struct cst_ev *ev, int nev,
		     const struct cst_ev *perf, int nperf, struct cst_res *r)
{
	return cst_worker_start_cfg(w, NULL, ev, nev, perf, nperf, r);
}

void cst_worker_stop(struct cst_worker *w)
{
	int i;

	for (i = 0; i < CST_WORKER_PERF; i++)
		if (w->pfd[i] >= 0)
			close(w->pfd[i]);
	if (w->nev)
		cst_close(&w->s);
	/* M's end of file ends the child, S and all. */
	for (i = 0; i < w->nthr; i++) {
		close(w->cmd_fd[i]);
		close(w->ack_fd[i]);
	}
	cst_child_wait(&w->c);
}

int cst_worker_tell(struct cst_worker *w, int t, const char *cmd)
{
	char ack;

	if (t < 0 || t >= w->nthr)
		return -EINVAL;
	if (write(w->cmd_fd[t], cmd, strlen(cmd)) != (ssize_t)strlen(cmd) ||
	    read(w->ack_fd[t], &ack, 1) != 1)
		return -EPIPE;
	return ack == 'k' ? 0 : -EIO;
}

static int cst_worker_read_perf(const struct cst_worker *w, long long *perf)
{
	int i;

	for (i = 0; i < CST_WORKER_PERF; i++)
		if (w->pfd[i] >= 0 &&
		    read(w->pfd[i], &perf[i], sizeof(perf[i])) != sizeof(perf[i]))
			return -EIO;
	return 0;
}

/*
 * The session (if any), the perf counters and the oracle's counts now.
 *
 * The worker acks before it is back asleep in read(): the few thousand
 * instructions from its write() to its switch-out may run while we
 * sample (we were woken by the ack and the scheduler may run either
 * first). A sample whose READ and perf reads fall on both sides of that
 * tail makes the session and perf disagree by the tail, so the perf
 * counters are read on both sides of the READ and the sample taken
 * again while they moved.
 */
static int cst_worker_sample(struct cst_worker *w, struct cst_res *r,
			     long long *perf, struct cst_oracle_stats *st)
{
	long long again[CST_WORKER_PERF] = { 0 };
	int try, i, ret;

	for (try = 0; try < CST_WORKER_SAMPLE_TRIES; try++) {
		ret = cst_worker_read_perf(w, perf);
		if (!ret && w->nev && w->cfg.read_dump)
			ret = cst_read_dump(&w->s, w->id, w->cfg.read_flags, r, NULL);
		else if (!ret && w->nev)
			ret = cst_read(&w->s, w->id, w->cfg.read_flags, r, NULL);
		ret = ret ?: cst_worker_read_perf(w, again);
		if (ret)
			return ret;
		for (i = 0; i < CST_WORKER_PERF && perf[i] == again[i]; i++)
			;
		if (i == CST_WORKER_PERF)
			return cst_oracle_stats(st);
		fprintf(stderr, "# the worker ran while we sampled it (perf counter %d: %lld, then %lld): sampled again\n",
			i, perf[i], again[i]);
		usleep(2000);
	}
	return -EAGAIN;
}

/* Thread @tid of @pid's nonvoluntary_ctxt_switches, or -1. */
static long long cst_task_preemptions(pid_t pid, pid_t tid)
{
	char path[96], line[256];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nonvoluntary_ctxt_switches: %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

bool cst_worker_preempted(const struct cst_worker_delta *d, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (d[i].preempted > 0)
			return true;
	return false;
}

int cst_worker_no_wakeup_preemption(void)
{
	const struct sched_param batch = { 0 };

	return sched_setscheduler(0, SCHED_BATCH, &batch) ? -errno : 0;
}

int cst_worker_run(struct cst_worker *w, const char *cmd,
		   struct cst_worker_delta *d, bool strict)
{
	return cst_worker_run_on(w, 0, cmd, d, strict);
}

int cst_worker_run_on(struct cst_worker *w, int t, const char *cmd,
		      struct cst_worker_delta *d, bool strict)
{
	long long p0[CST_WORKER_PERF] = { 0 }, p1[CST_WORKER_PERF] = { 0 };
	struct cst_oracle_stats s0, s1;
	long long i0, i1, n0, n1, v0, v1;
	int try, i, ret;

	for (try = 0; try < CST_WORKER_TRIES; try++) {
		ret = cst_worker_sample(w, &d->before, p0, &s0);
		if (ret)
			return ret;
		v0 = cst_task_preemptions(w->c.pid, w->tid[t]);
		n0 = cst_proc_nmis();
		i0 = cst_total_interrupts();
		ret = cst_worker_tell(w, t, cmd);
		i1 = cst_total_interrupts();
		n1 = cst_proc_nmis();
		ret = ret ?: cst_worker_sample(w, &d->after, p1, &s1);
		if (ret)
			return ret;
		v1 = cst_task_preemptions(w->c.pid, w->tid[t]);
		d->preempted = v0 < 0 || v1 < 0 ? -1 : v1 - v0;
		for (i = 0; i < CST_WORKER_PERF; i++)
			d->perf[i] = p1[i] - p0[i];
		d->oracle.hardirqs = s1.hardirqs - s0.hardirqs;
		d->oracle.tasklets = s1.tasklets - s0.tasklets;
		d->oracle.nmis = s1.nmis - s0.nmis;
		d->oracle.nmi_ns = s1.nmi_ns - s0.nmi_ns;
		d->oracle.storm = s1.storm - s0.storm;
		d->oracle.devirqs = s1.devirqs - s0.devirqs;
		d->oracle.virq = s1.virq;
		d->interrupts = i1 - i0;
		d->proc_nmis = n1 - n0;
		/* The oracle's own hardirqs show in /proc/interrupts too. */
		if (!strict || d->interrupts == d->oracle.hardirqs +
		    d->oracle.nmis + 2 * d->oracle.devirqs)
			return 0;
	}
	return -EAGAIN;
}

long long cst_worker_bucket(const struct cst_worker_delta *d, int e, int b)
{
	return (long long)(d->after.ev[e].b[b] - d->before.ev[e].b[b]);
}

long long cst_worker_full(const struct cst_worker_delta *d, int e)
{
	return (long long)(d->after.ev[e].full - d->before.ev[e].full);
}
