// SPDX-License-Identifier: GPL-2.0
/*
 * libctxcount (userspace/lib, ctxstat's client of the module) against the
 * module: a session made, run and read through the library reads the same
 * through the selftests' own client, which records the raw attributes
 * (cst_nl.c), on the same socket (a session is its socket's); the family's
 * id and version and STATS' features are what the raw client resolves; a
 * refusal reaches the caller with its errno and extended ack. What the
 * library sends, byte by byte: the host tests (userspace/tests).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netlink/socket.h>
#include <ctxcount/ctxcount.h>

#include "kselftest_harness.h"
#include "cst.h"

FIXTURE(lib) {
	int kmsg;
	struct ctxc_sock nl;
	struct ctxc_reply *rp;		/* large: not on the stack */
	struct cst_res *res;
};

FIXTURE_SETUP(lib)
{
	struct timeval tv = { .tv_sec = 20 };
	int err;

	self->kmsg = cst_kmsg_open();
	ASSERT_LE(0, self->kmsg);
	self->rp = calloc(1, sizeof(*self->rp));
	self->res = calloc(1, sizeof(*self->res));
	ASSERT_NE(NULL, self->rp);
	ASSERT_NE(NULL, self->res);
	err = ctxc_open(&self->nl);
	ASSERT_EQ(0, err) TH_LOG("ctxc_open: %s", strerror(-err));
	/* The raw client's reads wait no longer than that either. */
	setsockopt(nl_socket_get_fd(self->nl.sk), SOL_SOCKET, SO_RCVTIMEO,
		   &tv, sizeof(tv));
}

FIXTURE_TEARDOWN(lib)
{
	ctxc_close(&self->nl);
	free(self->rp);
	free(self->res);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* Something to count: 20 ms on the CPU and fresh pages faulted in. */
static void work(void)
{
	struct timespec t0, t;
	size_t len = 64 * 4096;
	char *p = malloc(len);
	size_t i;

	for (i = 0; p && i < len; i += 4096)
		p[i] = 1;
	free(p);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000LL +
		 t.tv_nsec - t0.tv_nsec < 20000000LL);
}

TEST_F(lib, session_reads_as_the_raw_client_reads_it)
{
	struct cst_ev ev[] = {
		CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
		CST_EV_SW(TASK_CLOCK, CST_F_USER_ONLY, "task-clock:u"),
		CST_EV_SW(PAGE_FAULTS, 0, "page-faults"),
		CST_EV_SW(CONTEXT_SWITCHES, 0, "context-switches"),
	};
	int n = ARRAY_SIZE(ev), fds[ARRAY_SIZE(ev)], i, b, err;
	struct ctxc_event_req req[ARRAY_SIZE(ev)];
	struct ctxc_target t = { .pid = getpid() };
	struct ctxc_reply *rp = self->rp;
	struct cst_res *res = self->res;
	struct cst_sock raw;
	struct cst_ack ack;
	uint32_t id;

	ASSERT_EQ(0, cst_proofs_open(getpid(), 0, ev, n, fds, &ack))
		TH_LOG("%s", ack.msg);
	for (i = 0; i < n; i++)
		req[i] = (struct ctxc_event_req){
			.type = ev[i].type, .config = ev[i].config,
			.flags = ev[i].flags, .has_perf_fd = true,
			.perf_fd = fds[i],
		};
	err = ctxc_session_new(&self->nl, &t, req, n, rp);
	cst_proofs_close(fds, n);
	ASSERT_EQ(0, err) TH_LOG("SESSION_NEW: %s: %s", strerror(-err),
				 self->nl.extack);
	id = rp->session_id;
	err = ctxc_session_cmd(&self->nl, CTXCOUNT_CMD_SESSION_START, id);
	ASSERT_EQ(0, err) TH_LOG("START: %s: %s", strerror(-err),
				 self->nl.extack);
	work();
	err = ctxc_session_cmd(&self->nl, CTXCOUNT_CMD_SESSION_STOP, id);
	ASSERT_EQ(0, err) TH_LOG("STOP: %s: %s", strerror(-err),
				 self->nl.extack);
	/* Stopped: every READ from now on has the same values. */
	err = ctxc_session_read(&self->nl, id, rp);
	ASSERT_EQ(0, err) TH_LOG("READ: %s: %s", strerror(-err),
				 self->nl.extack);
	ASSERT_EQ(n, rp->nr_events);
	EXPECT_LT(0, rp->ev[0].full) TH_LOG("task-clock counted nothing");

	/*
	 * The raw client last: it reads the socket with libnl's nl_recv(),
	 * which leaves the sequence number libnl's callbacks expect behind,
	 * so the library's next request there would be refused as out of
	 * order.
	 */
	raw = (struct cst_sock){
		.sk = self->nl.sk, .family = self->nl.family,
		.version = self->nl.version,
	};
	ASSERT_EQ(0, cst_read(&raw, id, 0, res, &ack)) TH_LOG("%s", ack.msg);
	ASSERT_EQ(n, res->nev);
	EXPECT_EQ(res->tasks_seen, rp->tasks_seen);
	EXPECT_EQ(res->tasks_lost, rp->tasks_lost);
	for (i = 0; i < n; i++) {
		const struct ctxc_event_val *v = &rp->ev[i];
		const struct cst_ev_res *e = &res->ev[i];

		ASSERT_EQ(i, e->index);
		EXPECT_TRUE(v->present) TH_LOG("%s", ev[i].name);
		EXPECT_EQ(e->error, v->error) TH_LOG("%s", ev[i].name);
		EXPECT_EQ(e->full, v->full) TH_LOG("%s", ev[i].name);
		EXPECT_EQ(e->enabled, v->time_enabled) TH_LOG("%s", ev[i].name);
		EXPECT_EQ(e->running, v->time_running) TH_LOG("%s", ev[i].name);
		for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
			EXPECT_EQ(e->has_b[b] ? e->b[b] : 0, v->bucket[b])
				TH_LOG("%s: bucket %d", ev[i].name, b);
		EXPECT_EQ(e->has_est_state ? e->est_state : 0, v->est_state)
			TH_LOG("%s", ev[i].name);
		EXPECT_EQ(e->has_est_error ? e->est_error : 0, v->est_error)
			TH_LOG("%s", ev[i].name);
	}
	EXPECT_EQ(0, cst_cmd(&raw, CTXCOUNT_CMD_SESSION_DEL, id, NULL, &ack))
		TH_LOG("%s", ack.msg);
}

TEST_F(lib, family_and_stats_as_the_raw_client_sees_them)
{
	struct cst_sock s;
	int version, err;

	ASSERT_EQ(0, cst_open(&s));
	EXPECT_EQ(s.family, self->nl.family);
	EXPECT_EQ((int)s.version, self->nl.version);
	version = ctxc_family_version(&self->nl);
	EXPECT_EQ((int)s.version, version);
	cst_close(&s);
	err = ctxc_stats(&self->nl, self->rp);
	ASSERT_EQ(0, err) TH_LOG("STATS: %s: %s", strerror(-err),
				 self->nl.extack);
	EXPECT_EQ(cst_features(), self->rp->stats_features);
}

/* The module's word for a refusal reaches the caller; the socket stays. */
TEST_F(lib, refusal_has_its_errno_and_extack)
{
	int err = ctxc_session_cmd(&self->nl, CTXCOUNT_CMD_SESSION_START,
				   0xfffffff0);

	EXPECT_EQ(-ENOENT, err) TH_LOG("%d (%s): %s", err, strerror(-err),
				       self->nl.extack);
	EXPECT_NE(NULL, strstr(self->nl.extack, "no such session"))
		TH_LOG("extack: \"%s\"", self->nl.extack);
	EXPECT_FALSE(self->nl.broken);
	EXPECT_EQ(0, ctxc_stats(&self->nl, self->rp)) TH_LOG("%s",
							    self->nl.extack);
}

CST_TEST_MAIN
