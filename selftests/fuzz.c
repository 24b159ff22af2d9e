// SPDX-License-Identifier: GPL-2.0
/*
 * A netlink fuzzer for the ctxcount family, run inside a guest as root.
 *
 * Several threads, each with several raw generic netlink sockets, send a
 * mix of requests built from the real policies (include/uapi/linux/
 * ctxcount.h, module/netlink.c): valid SESSION_NEW on this process, a
 * forking child or the whole system (some with a CPU list, some of them
 * bad), then START/READ (some per CPU)/STOP/DEL on the ids
 * they got back, in random order, on the right and on the wrong socket;
 * and the same messages mutated (bytes flipped, truncated messages and
 * attributes, wrong lengths and types, oversized attributes, garbage and
 * deep nesting inside TARGET and EVENTS, unknown commands, versions and
 * flags, several messages in one datagram; proofs that match, proofs of
 * another event, target, inherit or exclude bits, descriptors that are no
 * perf events or not open, none at all; sessions with irq sources, so
 * that their hooks attach and detach), genl control requests (family
 * lookup by name and id, family and policy dumps), and sockets closed in
 * the middle of a sequence with sessions live.
 *
 * Bounded by CTX_FUZZ_MESSAGES (default 20000) and CTX_FUZZ_SECONDS
 * (0: no limit; default 150, or 0 when CTX_FUZZ_MESSAGES is set);
 * CTX_FUZZ_SEED makes a run's per-thread sequences repeatable (the
 * threads still interleave as the scheduler likes);
 * CTX_FUZZ_THREADS (default 4). Meanwhile the last CPU goes offline and
 * online about twice a second (CTX_FUZZ_HOTPLUG=0: not). Prints the seed,
 * the messages sent, the rate, and every reply by command and errno.
 * Asserts: no kernel report, the live session count back to where it was
 * once every socket is closed, and the module still counting afterwards.
 * The messages are made in fuzz_msg.c; this file sends them and reports.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "cst.h"
#include "fuzz.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

/*
 * The forking child forks once per FZ_MSGS_PER_FORK messages, so that a
 * run's mix of forks and messages is the same on a fast and a slow (debug)
 * kernel. A fork and exit with inherited counters costs the CPU time of
 * 12 to 23 messages.
 */
#define FZ_MSGS_PER_FORK	8

/* In memory shared with the forking child. */
struct fz_shared {
	atomic_ullong budget;		/* messages handed out so far */
	atomic_ullong forks;		/* by the forking child */
};

struct fz_run fz;

/* ---- sockets, sending, replies ----------------------------------------- */

static int fz_sock_open(struct fz_sock *s)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	int one = 1, rcv = 4 << 20;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv));
	if (bind(s->fd, (struct sockaddr *)&a, sizeof(a))) {
		close(s->fd);
		s->fd = -1;
		return -errno;
	}
	return 0;
}

static void fz_sock_close(struct fz_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->nids = 0;
}

static int fz_row_of(struct fz_thread *t, uint32_t seq)
{
	int i;

	for (i = 0; i < t->npend; i++)
		if (t->pend_seq[i] == seq)
			return t->pend_row[i];
	return FZ_ROW_OTHER;
}

static void fz_remember_id(struct fz_thread *t, struct fz_sock *s,
			   struct nlmsghdr *nlh)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *a = (struct nlattr *)((char *)g + GENL_HDRLEN);
	int rem = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	if (g->cmd != CTXCOUNT_CMD_SESSION_NEW)
		return;
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTXCOUNT_A_SESSION_ID &&
		    a->nla_len == NLA_HDRLEN + 4) {
			uint32_t id;

			memcpy(&id, (char *)a + NLA_HDRLEN, 4);
			if (s->nids < FZ_IDS)
				s->ids[s->nids++] = id;
			else
				s->ids[fz_rn(t, FZ_IDS)] = id;
			t->st.sessions++;
			return;
		}
		rem -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* Everything the kernel answered is queued when sendmsg returns: drain it. */
static void fz_drain(struct fz_thread *t, struct fz_sock *s)
{
	for (;;) {
		ssize_t len = recv(s->fd, t->rbuf, sizeof(t->rbuf), MSG_DONTWAIT);
		struct nlmsghdr *nlh;
		int rest;

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno < FZ_ERRNO_MAX)
				t->st.recv_err[errno]++;
			if (errno == ENOBUFS)
				continue;
			return;
		}
		rest = len;
		for (nlh = (struct nlmsghdr *)t->rbuf; NLMSG_OK(nlh, rest);
		     nlh = NLMSG_NEXT(nlh, rest)) {
			int row = fz_row_of(t, nlh->nlmsg_seq);

			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);
				int err = -e->error;

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					continue;
				if (err < 0 || err >= FZ_ERRNO_MAX)
					err = FZ_ERRNO_MAX - 1;
				t->st.acks[row][err]++;
			} else if (nlh->nlmsg_type == fz.family) {
				t->st.replies[row]++;
				fz_remember_id(t, s, nlh);
			} else if (nlh->nlmsg_type != NLMSG_DONE) {
				t->st.replies[row]++;
			}
		}
	}
}

static void fz_send(struct fz_thread *t, struct fz_sock *s, const void *b,
		    size_t len, int nmsg)
{
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };

	t->st.sent += nmsg;
	t->st.datagrams++;
	if (sendto(s->fd, b, len, 0, (struct sockaddr *)&k, sizeof(k)) < 0 &&
	    errno < FZ_ERRNO_MAX)
		t->st.send_err[errno]++;
	fz_drain(t, s);
	t->npend = 0;
}

/*
 * A short-lived client in its own process: creates and starts a session,
 * then exits without closing anything (process exit releases the socket).
 */
static void fz_fork_client(struct fz_thread *t)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct fz_sock s;
		struct fz_msg m = { t->buf, 0, sizeof(t->buf) };
		size_t h;

		if (fz_sock_open(&s))
			_exit(1);
		h = fz_hdr(t, &m, &s, fz.family, CTXCOUNT_CMD_SESSION_NEW,
			   CTXCOUNT_GENL_VERSION, 1);
		fz_put_new_body(t, &m);
		fz_end(&m, h);
		send(s.fd, m.b, m.len, 0);
		fz_drain(t, &s);
		if (s.nids) {
			m.len = 0;
			h = fz_hdr(t, &m, &s, fz.family,
				   CTXCOUNT_CMD_SESSION_START,
				   CTXCOUNT_GENL_VERSION, 2);
			fz_u32(&m, CTXCOUNT_A_SESSION_ID, s.ids[0]);
			fz_end(&m, h);
			send(s.fd, m.b, m.len, 0);
		}
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, NULL, 0) == pid)
		t->st.forks++;
}

/* Take n messages from the budget; false when the run is over. */
static bool fz_take(int n)
{
	if (cst_now() > fz.deadline) {
		atomic_store(&fz.timed_out, true);
		return false;
	}
	return atomic_fetch_add(&fz.shared->budget, n) < fz.messages;
}

static void *fz_thread_fn(void *arg)
{
	struct fz_thread *t = arg;
	int i;

	for (i = 0; i < FZ_SOCKS; i++)
		t->s[i].fd = -1;
	for (i = 0; i < FZ_SOCKS; i++)
		if (fz_sock_open(&t->s[i]))
			goto out;
	for (;;) {
		struct fz_sock *s = &t->s[fz_rn(t, FZ_SOCKS)];
		struct fz_msg m = { t->buf, 0, sizeof(t->buf) };
		uint32_t r = fz_rn(t, 1000);
		int nmsg = 1;
		size_t len;

		if (r < 4) {
			/* closed mid-sequence, sessions and all */
			fz_sock_close(s);
			t->st.closes++;
			if (fz_sock_open(s))
				break;
			continue;
		}
		if (r < 5) {
			if (!fz_take(2))
				break;
			fz_fork_client(t);
			t->st.sent += 2;
			continue;
		}
		/*
		 * Valid NEW, STOP and DEL wait for counters and RCU grace
		 * periods (tens of ms under TCG): few enough of them to keep
		 * the rate up, enough to keep sessions coming and going.
		 */
		if (r < 70) {
			fz_put_request(t, &m, s, CTXCOUNT_CMD_SESSION_NEW);
		} else if (r < 230) {
			fz_put_request(t, &m, s, CTXCOUNT_CMD_SESSION_START +
				       fz_rn(t, CTXCOUNT_CMD_SESSION_DEL -
					  CTXCOUNT_CMD_SESSION_START + 1));
		} else if (r < 260) {
			fz_put_request(t, &m, s, CTXCOUNT_CMD_STATS);
		} else if (r < 300) {
			fz_put_ctrl(t, &m, s);
		} else if (r < 330) {
			/* a batch: several requests in one datagram */
			nmsg = 2 + fz_rn(t, 3);
			for (i = 0; i < nmsg; i++) {
				if (fz_chance(t, 30))
					fz_put_mutated(t, &m, s);
				else
					fz_put_request(t, &m, s, 1 + fz_rn(t, CTXCOUNT_CMD_MAX + 1));
			}
		} else {
			if (!fz_take(1))
				break;
			len = fz_put_mutated(t, &m, s);
			fz_send(t, s, m.b, len, 1);
			continue;
		}
		if (!fz_take(nmsg))
			break;
		fz_send(t, s, m.b, m.len, nmsg);
	}
out:
	for (i = 0; i < FZ_SOCKS; i++)
		fz_sock_close(&t->s[i]);
	atomic_fetch_sub(&fz.running, 1);
	return NULL;
}

/* ---- CPU hotplug meanwhile ---------------------------------------------- */

/*
 * Takes the last CPU offline and online again, about twice a second,
 * while the fuzzing threads run: counters are created and released by the
 * hotplug callbacks while sessions come and go.
 */
static void *fz_hotplug_fn(void *arg)
{
	int on = 0;

	while (atomic_load(&fz.running) > 0) {
		if (cst_cpu_set_online(fz.hp_cpu, on))
			break;
		fz.hp_toggles++;
		on = !on;
		usleep(300000 + rand() % 400000);
	}
	cst_cpu_set_online(fz.hp_cpu, 1);
	return NULL;
}

/* ---- setup and report ---------------------------------------------------- */

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static void fz_find_pmus(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) && fz.npmu < 16) {
		char path[512];
		FILE *f;
		int type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &type) == 1 && type > PERF_TYPE_BREAKPOINT)
			fz.pmu_types[fz.npmu++] = type;
		fclose(f);
	}
	closedir(d);
}

/*
 * Forks and reaps short-lived children, for INHERIT sessions on it: one per
 * FZ_MSGS_PER_FORK messages, caught up every 20 ms.
 */
static pid_t fz_start_churn(void)
{
	struct fz_shared *sh = fz.shared;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	for (;;) {
		while (atomic_load(&sh->forks) * FZ_MSGS_PER_FORK <=
		       atomic_load(&sh->budget)) {
			pid_t c = fork();

			if (c == 0) {
				cst_loop(20000);
				_exit(0);
			}
			if (c < 0 || waitpid(c, NULL, 0) != c)
				break;
			atomic_fetch_add(&sh->forks, 1);
		}
		usleep(20000);
	}
}

static void fz_report(struct fz_stats *sum, double secs)
{
	static const char *const rows[FZ_ROWS] = {
		[CTXCOUNT_CMD_UNSPEC] = "cmd 0",
		[CTXCOUNT_CMD_SESSION_NEW] = "SESSION_NEW",
		[CTXCOUNT_CMD_SESSION_START] = "SESSION_START",
		[CTXCOUNT_CMD_SESSION_STOP] = "SESSION_STOP",
		[CTXCOUNT_CMD_SESSION_READ] = "SESSION_READ",
		[CTXCOUNT_CMD_SESSION_DEL] = "SESSION_DEL",
		[CTXCOUNT_CMD_STATS] = "STATS",
		[FZ_ROW_UNKNOWN] = "unknown cmd",
		[FZ_ROW_CTRL] = "genl ctrl",
		[FZ_ROW_OTHER] = "unmatched",
	};
	char line[2048];
	int r, e;

	ksft_print_msg("fuzz: seed %llu, %d threads x %d sockets: %llu messages in %llu datagrams, %.1f s, %.0f messages/s%s\n",
		       (unsigned long long)fz.seed, fz.threads, FZ_SOCKS,
		       (unsigned long long)sum->sent,
		       (unsigned long long)sum->datagrams, secs,
		       secs > 0 ? sum->sent / secs : 0.0,
		       atomic_load(&fz.timed_out) ? " (stopped by CTX_FUZZ_SECONDS)" : "");
	ksft_print_msg("fuzz: sessions created %llu, sockets closed mid-sequence %llu, short-lived clients %llu, ",
		       (unsigned long long)sum->sessions,
		       (unsigned long long)sum->closes,
		       (unsigned long long)sum->forks);
	if (fz.hp_cpu > 0)
		printf("cpu%d offline/online %ld times\n", fz.hp_cpu, fz.hp_toggles);
	else
		printf("no CPU hotplug\n");
	for (r = 0; r < FZ_ROWS; r++) {
		size_t n = snprintf(line, sizeof(line), "%-13s replies %llu, acks:",
				    rows[r], (unsigned long long)sum->replies[r]);
		bool any = sum->replies[r];

		for (e = 0; e < FZ_ERRNO_MAX && n < sizeof(line); e++) {
			if (!sum->acks[r][e])
				continue;
			any = true;
			n += snprintf(line + n, sizeof(line) - n, " %s %llu",
				      e ? strerrorname_np(e) ?: "?" : "ok",
				      (unsigned long long)sum->acks[r][e]);
		}
		if (any)
			ksft_print_msg("fuzz: %s\n", line);
	}
	for (e = 0; e < FZ_ERRNO_MAX; e++) {
		if (sum->send_err[e])
			ksft_print_msg("fuzz: sendto failed %s %llu\n",
				       strerrorname_np(e) ?: "?",
				       (unsigned long long)sum->send_err[e]);
		if (sum->recv_err[e])
			ksft_print_msg("fuzz: recv failed %s %llu\n",
				       strerrorname_np(e) ?: "?",
				       (unsigned long long)sum->recv_err[e]);
	}
}

static double fz_tv_secs(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/*
 * Where the guest's CPU went: on a slow kernel the forking child can take
 * more of it than the fuzzing threads, and the message rate shows only the
 * latter.
 */
static void fz_report_cpu(const struct rusage *churn)
{
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	ksft_print_msg("fuzz: CPU time: fuzzing threads %.1f s user, %.1f s system; forking child and its children %.1f s user, %.1f s system\n",
		       fz_tv_secs(self.ru_utime), fz_tv_secs(self.ru_stime),
		       fz_tv_secs(churn->ru_utime), fz_tv_secs(churn->ru_stime));
}

static void fz_sum(struct fz_stats *sum, const struct fz_stats *st)
{
	const uint64_t *a = (const uint64_t *)st;
	uint64_t *s = (uint64_t *)sum;
	size_t i;

	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		s[i] += a[i];
}

FIXTURE(fuzz) {
	int kmsg;
	long base;
};

FIXTURE_SETUP(fuzz)
{
	self->kmsg = cst_kmsg_open();
	self->base = cst_live_sessions();
	ASSERT_LE(0, self->base);
}

FIXTURE_TEARDOWN(fuzz)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The harness timeout is raised in main() to fit CTX_FUZZ_SECONDS. */
TEST_F_TIMEOUT(fuzz, messages, 300)
{
	static const struct cst_ev ev = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
	struct fz_thread *th[FZ_MAX_THREADS];
	pthread_t hp;
	struct fz_stats *sum = calloc(1, sizeof(*sum));
	struct cst_res *res = calloc(1, sizeof(*res));
	struct cst_sock cs;
	struct rusage churn_usage = { 0 };
	double t0, secs, last;
	long live;
	int i;

	ASSERT_NE(NULL, sum);
	ASSERT_NE(NULL, res);
	ASSERT_EQ(0, cst_open(&cs));
	fz.family = cs.family;
	cst_close(&cs);
	fz_find_pmus();
	fz.ftrace_fn_id = cst_tracepoint_id("ftrace/function");
	fz.shared = mmap(NULL, sizeof(*fz.shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fz.shared);
	fz.churn = fz_start_churn();
	ASSERT_LT(0, fz.churn);
	fz_open_proofs();
	ksft_print_msg("fuzz: CTX_FUZZ_SEED=%llu CTX_FUZZ_MESSAGES=%llu CTX_FUZZ_SECONDS=%.0f CTX_FUZZ_THREADS=%d, family %d, live sessions before %ld\n",
		       (unsigned long long)fz.seed, (unsigned long long)fz.messages,
		       fz.seconds, fz.threads, fz.family, self->base);

	t0 = last = cst_now();
	fz.deadline = fz.seconds > 0 ? t0 + fz.seconds : 1e300;
	atomic_store(&fz.running, fz.threads);
	for (i = 0; i < fz.threads; i++) {
		th[i] = calloc(1, sizeof(*th[i]));
		ASSERT_NE(NULL, th[i]);
		th[i]->idx = i;
		th[i]->rng = fz.seed * 0x9E3779B97F4A7C15ULL + i + 1;
		ASSERT_EQ(0, pthread_create(&th[i]->th, NULL, fz_thread_fn, th[i]));
	}
	if (fz.hp_cpu > 0)
		ASSERT_EQ(0, pthread_create(&hp, NULL, fz_hotplug_fn, NULL));
	/* progress, so that a run that hangs shows how far it got */
	while (atomic_load(&fz.running) > 0) {
		usleep(100000);
		if (cst_now() - last >= 30) {
			last = cst_now();
			ksft_print_msg("fuzz: %.0f s: %llu messages handed out\n",
				       last - t0,
				       (unsigned long long)atomic_load(&fz.shared->budget));
		}
	}
	for (i = 0; i < fz.threads; i++) {
		pthread_join(th[i]->th, NULL);
		fz_sum(sum, &th[i]->st);
		free(th[i]);
	}
	secs = cst_now() - t0;
	if (fz.hp_cpu > 0)
		pthread_join(hp, NULL);
	kill(fz.churn, SIGKILL);
	wait4(fz.churn, NULL, 0, &churn_usage);
	fz_close_proofs();
	fz_report(sum, secs);
	ksft_print_msg("fuzz: the forking child forked %llu times\n",
		       (unsigned long long)atomic_load(&fz.shared->forks));
	fz_report_cpu(&churn_usage);

	/* every socket is closed: nothing may be left */
	live = cst_wait_live_sessions(self->base, 5000);
	EXPECT_EQ(self->base, live) TH_LOG("%ld sessions left after every fuzzing socket closed",
					   live - self->base);
	EXPECT_LT(0, sum->sent);

	/* the module still works: a valid session counts */
	ASSERT_EQ(0, cst_open(&cs));
	ASSERT_EQ(0, cst_new(&cs, getpid(), 0, &ev, 1, res, NULL));
	ASSERT_EQ(0, cst_cmd(&cs, CTXCOUNT_CMD_SESSION_START, res->id, NULL, NULL));
	cst_spin_ms(50);
	ASSERT_EQ(0, cst_cmd(&cs, CTXCOUNT_CMD_SESSION_READ, res->id, res, NULL));
	ASSERT_EQ(1, res->nev);
	EXPECT_LT(10000000ULL, res->ev[0].full) TH_LOG("50 ms of spinning counted %llu ns",
		(unsigned long long)res->ev[0].full);
	EXPECT_EQ(res->ev[0].full, cst_bucket_sum(&res->ev[0]));
	cst_close(&cs);
	EXPECT_EQ(self->base, cst_wait_live_sessions(self->base, 2000));
	free(res);
	free(sum);
	munmap(fz.shared, sizeof(*fz.shared));
}

int main(int argc, char **argv)
{
	const char *why = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* see CST_TEST_MAIN */
	fz.messages = env_u64("CTX_FUZZ_MESSAGES", 20000);
	/* The time bound is make check's: an explicit count runs in full. */
	fz.seconds = env_u64("CTX_FUZZ_SECONDS",
			     getenv("CTX_FUZZ_MESSAGES") ? 0 : 150);
	fz.seed = env_u64("CTX_FUZZ_SEED", 0);
	if (!fz.seed)
		fz.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	fz.threads = env_u64("CTX_FUZZ_THREADS", 4);
	if (fz.threads < 1)
		fz.threads = 1;
	if (fz.threads > FZ_MAX_THREADS)
		fz.threads = FZ_MAX_THREADS;
	fz.hp_cpu = -1;
	if (env_u64("CTX_FUZZ_HOTPLUG", 1) && sysconf(_SC_NPROCESSORS_CONF) > 1) {
		char path[128];

		fz.hp_cpu = sysconf(_SC_NPROCESSORS_CONF) - 1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
			 fz.hp_cpu);
		if (access(path, W_OK))
			fz.hp_cpu = -1;
	}
	/* room for the report and the checks after the time limit */
	_fuzz_messages_object->timeout = fz.seconds > 0 ? fz.seconds + 120 : 7 * 86400;

	if (!(argc > 1 && (!strcmp(argv[1], "-l") || !strcmp(argv[1], "-h"))))
		why = cst_cannot_run();
	if (why)
		ksft_exit_skip("%s", why);
	return test_harness_run(argc, argv);
}
