// SPDX-License-Identifier: GPL-2.0
/* fake_nl: see fake_nl.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_nl.h"
#include "events/proof.h"
#include "util/util.h"

struct fake_nl fake_nl;

/* Calls per command, to find the fail_at-th; runs per socket. */
static int calls[CTXCOUNT_CMD_MAX + 1];
static int runs[2];
static int session_reads;	/* READs of the last session made */

void fake_nl_reset(void)
{
	memset(&fake_nl, 0, sizeof(fake_nl));
	fake_nl.base[0] = fake_nl.base[1] = 1000000;
	fake_nl.version = CTXCOUNT_GENL_VERSION;
	fake_nl.features = CTXCOUNT_FEATURE_NMI;
	memset(calls, 0, sizeof(calls));
	memset(runs, 0, sizeof(runs));
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int fails(struct ctxc_sock *nl, uint8_t cmd)
{
	nl->extack[0] = '\0';
	int n = ++calls[cmd];

	if (cmd != fake_nl.fail_cmd || n < fake_nl.fail_at)
		return 0;
	if (n == fake_nl.fail_at + (fake_nl.fail_times ?: 1))
		return fake_nl.then_err;
	if (n > fake_nl.fail_at + (fake_nl.fail_times ?: 1))
		return 0;
	if (fake_nl.fail_msg)
		snprintf(nl->extack, sizeof(nl->extack), "%s", fake_nl.fail_msg);
	return fake_nl.fail_err;
}

int ctxc_open(struct ctxc_sock *nl)
{
	memset(nl, 0, sizeof(*nl));
	if (fake_nl.open_err)
		return fake_nl.open_err;
	nl->family = fake_nl.opened++ ? 1 : 0;
	nl->version = fake_nl.version;
	return 0;
}

void ctxc_close(struct ctxc_sock *nl)
{
	(void)nl;
}

int ctxc_stats(struct ctxc_sock *nl, struct ctxc_reply *reply)
{
	(void)nl;
	memset(reply, 0, sizeof(*reply));
	reply->stats_features = fake_nl.features;
	return 0;
}

int ctxc_session_new(struct ctxc_sock *nl, const struct ctxc_target *target,
		     const struct ctxc_event_req *ev, int nr_events,
		     struct ctxc_reply *reply)
{
	int err = fails(nl, CTXCOUNT_CMD_SESSION_NEW);

	(void)ev;
	if (err)
		return err;
	fake_nl.new_ns = now_ns();
	fake_nl.target = *target;
	fake_nl.target.cpus = NULL;
	fake_nl.nr_events = nr_events;
	session_reads = 0;
	memset(reply, 0, sizeof(*reply));
	reply->session_id = ++fake_nl.sessions;
	reply->nr_events = nr_events;
	fake_nl.live++;
	return 0;
}

int ctxc_session_cmd(struct ctxc_sock *nl, uint8_t cmd, uint32_t session_id)
{
	int err = fails(nl, cmd);

	(void)session_id;
	if (!err && cmd == CTXCOUNT_CMD_SESSION_DEL)
		fake_nl.live--;
	if (!err && cmd == CTXCOUNT_CMD_SESSION_START)
		fake_nl.start_ns = now_ns();
	return err;
}

/* Like a module that calibrated user mode already: no run needed. */
int ctxc_calibrate(struct ctxc_sock *nl, uint32_t step)
{
	(void)step;
	return fails(nl, CTXCOUNT_CMD_SESSION_CALIBRATE) ?: -EEXIST;
}

static void describe(struct ctxc_reply *reply, int id, uint32_t kind,
		     uint32_t irq, const char *name, uint64_t count)
{
	struct ctxc_source *s = &reply->src[id];

	s->present = true;
	s->kind = kind;
	s->irq = irq;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->count = count;
}

/* The sources of fake_nl.h, @m times, into every event of @reply. */
static void split_sources(struct ctxc_reply *reply, uint32_t session_id,
			  uint64_t m)
{
	bool odd = session_id % 2;
	int virtio = odd ? 3 : 4, timer = odd ? 4 : 3, i;

	reply->has_sources = true;
	describe(reply, CTXCOUNT_SOURCE_ID_OUTSIDE,
		 CTXCOUNT_SOURCE_KIND_OUTSIDE, 0, "", 0);
	describe(reply, virtio, CTXCOUNT_SOURCE_KIND_IRQ, 24,
		 "virtio0-input.0", 7 * m);
	describe(reply, timer, CTXCOUNT_SOURCE_KIND_VECTOR, 0xec,
		 "local_timer", 4 * m);
	if (!odd)
		describe(reply, 5, CTXCOUNT_SOURCE_KIND_IRQ, 40, "ctxoracle", m);
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++) {
		struct ctxc_event_val *v = &reply->ev[i];

		v->bucket[CTXCOUNT_BUCKET_HARDIRQ] = 10 * m;
		v->bucket[CTXCOUNT_BUCKET_TASK] = v->full - 10 * m;
		v->src[CTXCOUNT_SOURCE_ID_OUTSIDE] = 3 * m + fake_nl.src_skew;
		v->src[virtio] = 5 * m;
		v->src[timer] = (odd ? 2 : 1) * m;
		v->src[5] = odd ? 0 : m;
	}
}

int ctxc_session_read(struct ctxc_sock *nl, uint32_t session_id,
		      struct ctxc_reply *reply)
{
	int err = fails(nl, CTXCOUNT_CMD_SESSION_READ), i;
	double full;

	if (err)
		return err;
	memset(reply, 0, sizeof(*reply));
	reply->session_id = session_id;
	reply->nr_events = CTXCOUNT_MAX_EVENTS;
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++) {
		struct ctxc_event_val *v = &reply->ev[i];

		full = fake_nl.base[nl->family] + 100 * i + runs[nl->family];
		v->present = true;
		v->full = full;
		v->bucket[CTXCOUNT_BUCKET_HARDIRQ] = 10;
		v->bucket[CTXCOUNT_BUCKET_TASK] = full - 10;
		v->time_enabled = v->time_running = 1000000 + runs[nl->family];
	}
	if (fake_nl.sources)
		split_sources(reply, session_id, ++session_reads);
	runs[nl->family]++;
	fake_nl.reads++;
	return 0;
}

/*
 * Two CPUs, 0 and 1: CPU 1 has a quarter (rounded down) of each count
 * and 2 of hardirq's 10, CPU 0 the rest, so the rows' counts sum to the
 * aggregate exactly; each CPU ran for the whole time (which grows at
 * every READ, so no interval of a CPU is <not counted>).
 */
static void split_event(const struct ctxc_event_val *v,
			struct ctxc_event_val *c0, struct ctxc_event_val *c1,
			int virtio)
{
	uint64_t hardirq = fake_nl.sources ? v->bucket[CTXCOUNT_BUCKET_HARDIRQ] / 5 : 2;
	int b, id;

	*c0 = *v;
	*c1 = *v;
	c1->full = v->full / 4;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		c1->bucket[b] = 0;
	c1->bucket[CTXCOUNT_BUCKET_HARDIRQ] = hardirq;
	c1->bucket[CTXCOUNT_BUCKET_TASK] = c1->full - hardirq;
	c0->full -= c1->full;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		c0->bucket[b] -= c1->bucket[b];
	memset(c1->src, 0, sizeof(c1->src));
	if (!fake_nl.sources)
		return;
	/* CPU 1's hardirq is all virtio's. */
	c1->src[virtio] = hardirq;
	for (id = 0; id < CTXC_SOURCE_IDS; id++)
		c0->src[id] -= c1->src[id];
}

int ctxc_session_read_cpus(struct ctxc_sock *nl, uint32_t session_id,
			   struct ctxc_reply *reply,
			   struct ctxc_cpus *cpus)
{
	int err = ctxc_session_read(nl, session_id, reply), i;

	if (err)
		return err;
	if (cpus->cap < 2)
		return -E2BIG;
	cpus->nr = 2;
	cpus->v[0].cpu = 0;
	cpus->v[1].cpu = 1;
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		split_event(&reply->ev[i], &cpus->v[0].ev[i], &cpus->v[1].ev[i],
			    session_id % 2 ? 3 : 4);
	return 0;
}

/*
 * Three threads of process 1000 * session: "main" (tid + 1) with a
 * quarter of each count (rounded down) and 2 of hardirq's 10, "worker"
 * (tid + 2) with the rest, "sleeper" (tid + 3) with nothing, though
 * enabled and running as long; fake_nl.threads - 3 "extra" rows as
 * main. Each handed to @fn from one row, as the library does.
 */
int ctxc_session_read_threads(struct ctxc_sock *nl, uint32_t session_id,
			      struct ctxc_reply *reply,
			      ctxc_thread_fn fn, void *arg)
{
	enum { MAIN, WORKER, SLEEPER };
	static const char *const comm[] = { "main", "worker", "sleeper", "extra" };
	int err = ctxc_session_read(nl, session_id, reply), i, k;
	int nr = fake_nl.threads > 3 ? fake_nl.threads : 3;
	struct ctxc_thread_val *row = calloc(3, sizeof(*row));

	if (err || !row) {
		free(row);
		return err ?: -ENOMEM;
	}
	/* the CPUs' split: worker has CPU 0's share, main CPU 1's */
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++) {
		split_event(&reply->ev[i], &row[WORKER].ev[i], &row[MAIN].ev[i], 0);
		row[SLEEPER].ev[i] = (struct ctxc_event_val){
			.present = true,
			.time_enabled = reply->ev[i].time_enabled,
			.time_running = reply->ev[i].time_running,
		};
	}
	for (k = 0; !err && k < nr; k++) {
		struct ctxc_thread_val *v = &row[k < 3 ? k : MAIN];

		v->pid = 1000 * session_id;
		v->tid = v->pid + k + 1;
		snprintf(v->comm, sizeof(v->comm), "%s", comm[k < 3 ? k : 3]);
		err = fn(v, arg);
	}
	free(row);
	if (!err && fake_nl.rows_then_err) {
		err = fake_nl.rows_then_err;
		fake_nl.rows_then_err = 0;
	}
	return err;
}

int ctxc_family_version(struct ctxc_sock *nl)
{
	(void)nl;
	return fake_nl.version;
}

/* Hardware events in the group led by each fd (fake_nl.pmu_counters). */
static int group_hw[1024];

static int *group_of(int fd)
{
	return fd >= 0 && fd < (int)ARRAY_SIZE(group_hw) ? &group_hw[fd] : NULL;
}

/*
 * The fake kernel's perf_event_open(): any event, any target, but for
 * fake_nl.hw_err and fake_nl.pmu_counters.
 */
int cxs_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	bool hw = attr->type == PERF_TYPE_HARDWARE;
	int *group = group_of(group_fd), fd;

	(void)pid, (void)cpu, (void)flags;
	if (attr->type == PERF_TYPE_HW_CACHE && fake_nl.cache_err) {
		errno = fake_nl.cache_err;
		return -1;
	}
	if (hw && fake_nl.hw_err) {
		errno = fake_nl.hw_err;
		return -1;
	}
	if (hw && group && fake_nl.pmu_counters &&
	    *group >= fake_nl.pmu_counters) {
		errno = EINVAL;
		return -1;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (group)
		*group += hw;
	else if (group_of(fd))
		*group_of(fd) = hw;
	return fd;
}

int cxs_perf_event_paranoid(void)
{
	return 2;
}
