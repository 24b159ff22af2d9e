// SPDX-License-Identifier: GPL-2.0
/* fake_nl: see fake_nl.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "fake_nl.h"
#include "../proof.h"

struct fake_nl fake_nl;

/* Calls per command, to find the fail_at-th; runs per socket. */
static int calls[CTXCOUNT_CMD_MAX + 1];
static int runs[2];

void fake_nl_reset(void)
{
	memset(&fake_nl, 0, sizeof(fake_nl));
	fake_nl.base[0] = fake_nl.base[1] = 1000000;
	fake_nl.version = CTXCOUNT_GENL_VERSION;
	memset(calls, 0, sizeof(calls));
	memset(runs, 0, sizeof(runs));
}

static int fails(struct ctx_nl *nl, uint8_t cmd)
{
	nl->extack[0] = '\0';
	if (++calls[cmd] != fake_nl.fail_at || cmd != fake_nl.fail_cmd)
		return 0;
	if (fake_nl.fail_msg)
		snprintf(nl->extack, sizeof(nl->extack), "%s", fake_nl.fail_msg);
	return fake_nl.fail_err;
}

int ctx_nl_open(struct ctx_nl *nl)
{
	memset(nl, 0, sizeof(*nl));
	if (fake_nl.open_err)
		return fake_nl.open_err;
	nl->family = fake_nl.opened++ ? 1 : 0;
	return 0;
}

void ctx_nl_close(struct ctx_nl *nl)
{
	(void)nl;
}

int ctx_nl_stats(struct ctx_nl *nl, struct ctx_nl_reply *reply)
{
	(void)nl;
	memset(reply, 0, sizeof(*reply));
	reply->stats_features = CTXCOUNT_FEATURE_NMI;
	return 0;
}

int ctx_nl_session_new(struct ctx_nl *nl, const struct ctx_nl_target *target,
		       const struct ctx_nl_event_req *ev, int nr_events,
		       struct ctx_nl_reply *reply)
{
	int err = fails(nl, CTXCOUNT_CMD_SESSION_NEW);

	(void)target;
	(void)ev;
	if (err)
		return err;
	memset(reply, 0, sizeof(*reply));
	reply->session_id = ++fake_nl.sessions;
	reply->nr_events = nr_events;
	fake_nl.live++;
	return 0;
}

int ctx_nl_session_cmd(struct ctx_nl *nl, uint8_t cmd, uint32_t session_id)
{
	int err = fails(nl, cmd);

	(void)session_id;
	if (!err && cmd == CTXCOUNT_CMD_SESSION_DEL)
		fake_nl.live--;
	return err;
}

/* Like a module that calibrated these events already: no run needed. */
int ctx_nl_session_calibrate(struct ctx_nl *nl, uint32_t session_id,
			     uint32_t step)
{
	(void)session_id;
	(void)step;
	return fails(nl, CTXCOUNT_CMD_SESSION_CALIBRATE) ?: -EEXIST;
}

int ctx_nl_session_read(struct ctx_nl *nl, uint32_t session_id,
			struct ctx_nl_reply *reply)
{
	int err = fails(nl, CTXCOUNT_CMD_SESSION_READ), i;
	double full;

	if (err)
		return err;
	memset(reply, 0, sizeof(*reply));
	reply->session_id = session_id;
	reply->nr_events = CTXCOUNT_MAX_EVENTS;
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++) {
		struct ctx_nl_event_val *v = &reply->ev[i];

		full = fake_nl.base[nl->family] + 100 * i + runs[nl->family];
		v->present = true;
		v->full = full;
		v->bucket[CTXCOUNT_BUCKET_HARDIRQ] = 10;
		v->bucket[CTXCOUNT_BUCKET_TASK] = full - 10;
		v->time_enabled = v->time_running = 1000000 + runs[nl->family];
	}
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
static void split_event(const struct ctx_nl_event_val *v,
			struct ctx_nl_event_val *c0, struct ctx_nl_event_val *c1)
{
	int b;

	*c0 = *v;
	*c1 = *v;
	c1->full = v->full / 4;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		c1->bucket[b] = 0;
	c1->bucket[CTXCOUNT_BUCKET_HARDIRQ] = 2;
	c1->bucket[CTXCOUNT_BUCKET_TASK] = c1->full - 2;
	c0->full -= c1->full;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		c0->bucket[b] -= c1->bucket[b];
}

int ctx_nl_session_read_cpus(struct ctx_nl *nl, uint32_t session_id,
			     struct ctx_nl_reply *reply,
			     struct ctx_nl_cpus *cpus)
{
	int err = ctx_nl_session_read(nl, session_id, reply), i;

	if (err)
		return err;
	if (cpus->cap < 2)
		return -E2BIG;
	cpus->nr = 2;
	cpus->v[0].cpu = 0;
	cpus->v[1].cpu = 1;
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		split_event(&reply->ev[i], &cpus->v[0].ev[i], &cpus->v[1].ev[i]);
	return 0;
}

int ctx_nl_family_version(struct ctx_nl *nl)
{
	(void)nl;
	return fake_nl.version;
}

/* The fake kernel's perf_event_open(): any event, any target. */
int ctx_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	(void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int ctx_perf_event_paranoid(void)
{
	return 2;
}
