// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic workloads that the selftests hand to ctxstat and perf:
 *
 *   ctx_workload loop N           N iterations of a 2-instruction loop
 *   ctx_workload fork C N         C children, each running loop N
 *   ctx_workload threads T N      T threads, each running loop N
 *   ctx_workload pinned N         a thread per CPU it may run on, each
 *                                 bound to its CPU and running loop N
 *   ctx_workload spin MS          busy for MS milliseconds of wall time
 *   ctx_workload udp COUNT        COUNT UDP datagrams to itself over lo
 *   ctx_workload getppid N        N getppid() system calls, nothing else
 *                                 (syscalls:sys_enter_getppid fires N times)
 *   ctx_workload sleeps N [MS]    N sleeps of MS (default 1) ms (N context
 *                                 switches out)
 *   ctx_workload pingpong N       N round trips with a child over pipes
 *   ctx_workload exit CODE        exit with CODE at once
 *   ctx_workload idle             wake every 20 ms until killed (a process
 *                                 that runs a little and costs nothing)
 *   ctx_workload thread-exec PROG ARG...
 *                                 a second thread execs PROG ARG... (the
 *                                 kernel's de_thread() makes it the leader)
 *   ctx_workload spin-exec MS PROG ARG...
 *                                 spin MS milliseconds, then exec PROG
 *   ctx_workload no-perf PROG ARG...
 *                                 exec PROG under a seccomp filter that
 *                                 fails perf_event_open() with EPERM
 *   ctx_workload delayed N PAGES MS
 *                                 first loop 5N and fault in 5 PAGES new
 *                                 pages, fork a child and print "before:
 *                                 T ms" (how long that took); from MS ms
 *                                 after its start on, it and the child
 *                                 each loop N and fault in PAGES new
 *                                 pages (ctxstat -D's selftest: the work
 *                                 of a delay, and after it)
 *
 * The loop (cst_loop() in cst_work.c) is "subs; b.ne" on arm64 and
 * "dec; jnz" on x86_64: exactly 2 instructions per iteration.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "cst_work.h"

static uint64_t iters;

static void *thread_fn(void *arg)
{
	cst_loop(iters);
	return NULL;
}

static void *pinned_fn(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
	cst_loop(iters);
	return NULL;
}

/* A thread per CPU of the process's affinity, each bound to it. */
static int pinned(void)
{
	static pthread_t t[CPU_SETSIZE];
	cpu_set_t set;
	int cpu, n = 0, i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) &&
		    pthread_create(&t[n++], NULL, pinned_fn, (void *)(long)cpu))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void *exec_fn(void *arg)
{
	char **argv = arg;

	execv(argv[0], argv);
	perror("execv");
	exit(127);
}

/* perf_event_open() fails with EPERM from now on, as container runtimes do. */
static int no_perf(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * Fault in @n new pages: one minor fault each, write-touched in private
 * anonymous memory kept out of transparent huge pages (one fault would
 * map 512 of them).
 */
static int touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;
	char *p;

	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	return munmap(p, n * page);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* See "delayed" above: a parent's work, a fork, a mark, both processes' work. */
static int delayed(long n, long pages, long ms)
{
	struct timespec t0, mark;
	pid_t child;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	mark = t0;
	mark.tv_sec += ms / 1000;
	mark.tv_nsec += ms % 1000 * 1000000;
	if (mark.tv_nsec >= 1000000000) {
		mark.tv_sec++;
		mark.tv_nsec -= 1000000000;
	}
	cst_loop(5 * n);
	if (touch_pages(5 * pages))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child) {
		printf("before: %.0f ms\n", ms_since(&t0));
		fflush(stdout);
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &mark, NULL) == EINTR)
		;
	cst_loop(n);
	if (touch_pages(pages))
		return 1;
	if (!child)
		_exit(0);
	return waitpid(child, NULL, 0) == child ? 0 : 1;
}

int main(int argc, char **argv)
{
	long a = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	long b = argc > 3 ? strtol(argv[3], NULL, 0) : 0;
	long i;

	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "loop") && argc == 3) {
		if (a > 0)
			cst_loop(a);
		return 0;
	}
	if (!strcmp(argv[1], "fork") && argc == 4) {
		for (i = 0; i < a; i++) {
			pid_t p = fork();

			if (p < 0)
				return 1;
			if (p == 0) {
				if (b > 0)
					cst_loop(b);
				_exit(0);
			}
		}
		while (wait(NULL) > 0)
			;
		return 0;
	}
	if (!strcmp(argv[1], "threads") && argc == 4) {
		pthread_t t[64];

		if (a < 1 || a > 64)
			goto usage;
		iters = b;
		for (i = 0; i < a; i++)
			if (pthread_create(&t[i], NULL, thread_fn, NULL))
				return 1;
		for (i = 0; i < a; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(argv[1], "pinned") && argc == 3) {
		iters = a;
		return pinned();
	}
	if (!strcmp(argv[1], "spin") && argc == 3) {
		cst_spin_ms(a);
		return 0;
	}
	if (!strcmp(argv[1], "udp") && argc == 3) {
		int err = cst_udp_loopback(a);

		if (err)
			fprintf(stderr, "udp: %s\n", strerror(-err));
		return !!err;
	}
	if (!strcmp(argv[1], "getppid") && argc == 3) {
		for (i = 0; i < a; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (!strcmp(argv[1], "sleeps") && (argc == 3 || argc == 4)) {
		long ms = argc == 4 ? strtol(argv[3], NULL, 0) : 1;

		for (i = 0; i < a; i++)
			usleep(ms * 1000);
		return 0;
	}
	if (!strcmp(argv[1], "pingpong") && argc == 3) {
		int up[2], down[2];
		char c = 0;
		pid_t p;

		if (pipe(up) || pipe(down))
			return 1;
		p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			close(down[1]);
			close(up[0]);
			while (read(down[0], &c, 1) == 1 && write(up[1], &c, 1) == 1)
				;
			_exit(0);
		}
		close(down[0]);
		close(up[1]);
		for (i = 0; i < a; i++)
			if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1)
				return 1;
		close(down[1]);
		wait(NULL);
		return 0;
	}
	if (!strcmp(argv[1], "exit") && argc == 3)
		return a;
	if (!strcmp(argv[1], "idle") && argc == 2) {
		for (;;)
			usleep(20000);
	}
	if (!strcmp(argv[1], "thread-exec") && argc >= 3) {
		pthread_t t;

		if (pthread_create(&t, NULL, exec_fn, argv + 2))
			return 1;
		/* the exec ends this thread (de_thread()) */
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "spin-exec") && argc >= 4) {
		cst_spin_ms(a);
		execv(argv[3], argv + 3);
		perror("execv");
		return 127;
	}
	if (!strcmp(argv[1], "delayed") && argc == 5)
		return delayed(a, b, strtol(argv[4], NULL, 0));
	if (!strcmp(argv[1], "no-perf") && argc >= 3) {
		if (no_perf()) {
			perror("seccomp");
			return 126;
		}
		execv(argv[2], argv + 2);
		perror("execv");
		return 127;
	}
usage:
	fprintf(stderr, "usage: ctx_workload loop N | fork C N | threads T N | pinned N | spin MS | udp COUNT | getppid N | sleeps N [MS] | pingpong N | exit CODE | idle | thread-exec PROG ARG... | spin-exec MS PROG ARG... | no-perf PROG ARG... | delayed N PAGES MS\n");
	return 2;
}
