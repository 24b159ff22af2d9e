// SPDX-License-Identifier: GPL-2.0
/*
 * A system-wide session's per-CPU counters and CPU hotplug (task sessions'
 * events are perf's to move between CPUs). Each such session is an
 * instance of a multi-instance CPU hotplug state. Counters are created by the session's
 * fill work, for every online CPU that has none for its current online
 * period: at SESSION_NEW (which waits for it), and whenever a CPU comes
 * online (the startup callback queues it). The teardown callback, which
 * runs before the perf core's (that one detaches a CPU's counters for
 * good), attributes what is pending and takes the counters out of use; the
 * next fill or the session's end releases them. So a task that runs on a
 * CPU that went offline and came back is still counted. Once the CPU is
 * dead, another callback forgets what its last switches left open
 * (ctx_account_cpu_dead()).
 *
 * The callbacks neither create nor release counters: perf may flip a
 * static key there (software events), which takes the CPU hotplug lock
 * that a hotplug operation holds for write. The fill work holds no lock
 * while it calls into perf; a CPU going down meanwhile is caught by its
 * generation count (ctx_account_swap_events()). Works are never reentrant,
 * so one session's fills are serialized.
 *
 * The fill work is a kernel worker: per-CPU kernel counters are never
 * created from the requesting task, because the perf core checks the
 * current task even for kernel counters (find_get_context() calls
 * perf_allow_cpu() for CPU events in 6.12), and a user allowed to count
 * their own task is not allowed CPU events. What the user may count was
 * decided by the perf core itself, on the proof events (perm.c).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/ctxcount.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "account.h"
#include "account_cpu.h"
#include "account_ctl.h"
#include "compat.h"
#include "counters.h"
#include "cpuhp.h"
#include "session.h"

static enum cpuhp_state ctx_cpuhp_state;
static enum cpuhp_state ctx_cpuhp_dead_state;

static void ctx_cpuhp_release_array(struct perf_event **event, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ctx_counter_release(event[i]);
}

/* Give @cpu counters for its current online period, if it has none. */
static void ctx_cpuhp_fill_cpu(struct ctx_session *s, unsigned int cpu,
			       bool creating)
{
	struct perf_event *old[2 * CTXCOUNT_MAX_EVENTS] = { };
	struct perf_event *event[CTXCOUNT_MAX_EVENTS] = { };
	unsigned int i, gen;
	bool lost = false;
	int err;

	if (ctx_account_cpu_filled(&s->acct, cpu, &gen))
		return;
	for (i = 0; i < s->nr_events; i++) {
		if (s->error[i])
			continue;
		event[i] = ctx_counter_create(&s->spec[i], cpu, NULL, 0, NULL);
		if (!IS_ERR(event[i]))
			continue;
		err = PTR_ERR(event[i]);
		event[i] = NULL;
		/* The CPU went down meanwhile: its next startup fills it. */
		if (err == -ENODEV)
			goto out_release;
		/*
		 * At SESSION_NEW the event fails as a whole: READ reports the
		 * error, and no CPU after this one tries it. Counters it got
		 * on CPUs before this one stay until the session ends: taking
		 * them out would race with those CPUs going down.
		 */
		if (creating)
			s->error[i] = err;
		else
			lost = true;
	}
	if (ctx_account_swap_events(&s->acct, cpu, event, old, gen))
		goto out_release;
	atomic_inc(&s->made);
	/* What the old counters counted is kept before they go. */
	ctx_pv_cpu_install(&s->pv, cpu, event);
	ctx_cpuhp_release_array(old, ARRAY_SIZE(old));
	if (lost) {
		atomic_inc(&s->cpus_lost);
		pr_warn_ratelimited("session %u: no counter on cpu%u, which came online: its counts are missing\n",
				    s->id, cpu);
	}
	return;

out_release:
	ctx_cpuhp_release_array(event, s->nr_events);
}

static void ctx_cpuhp_fill_work(struct work_struct *work)
{
	struct ctx_session *s = container_of(work, struct ctx_session,
					     fill_work);
	bool creating = READ_ONCE(s->creating);
	int cpu;

	/* Unlocked: a CPU that comes up later queues this again. */
	for_each_online_cpu(cpu)
		if (ctx_account_cpu_listed(&s->acct, cpu))
			ctx_cpuhp_fill_cpu(s, cpu, creating);
}

static int ctx_cpuhp_online(unsigned int cpu, struct hlist_node *node)
{
	struct ctx_session *s = hlist_entry(node, struct ctx_session,
					    cpuhp_node);

	queue_work(ctx_system_dfl_wq, &s->fill_work);
	/* Never fail: a CPU must not stay offline because of a session. */
	return 0;
}

static int ctx_cpuhp_offline(unsigned int cpu, struct hlist_node *node)
{
	struct ctx_session *s = hlist_entry(node, struct ctx_session,
					    cpuhp_node);

	ctx_account_cpu_down(&s->acct, cpu);
	return 0;
}

/* Runs on another CPU once @cpu is dead; see ctx_account_cpu_dead(). */
static int ctx_cpuhp_dead(unsigned int cpu)
{
	ctx_account_cpu_dead(cpu);
	return 0;
}

/**
 * ctx_cpuhp_session_init() - prepare @s's hotplug instance and fill work
 * @s: a new session, not yet an instance of the hotplug state
 */
void ctx_cpuhp_session_init(struct ctx_session *s)
{
	INIT_HLIST_NODE(&s->cpuhp_node);
	INIT_WORK(&s->fill_work, ctx_cpuhp_fill_work);
}

/**
 * ctx_cpuhp_add() - give @s counters on every online CPU, and on every CPU
 * that comes online from now on
 * @s: a session prepared by ctx_cpuhp_session_init()
 *
 * An event the PMU cannot give is reported in its error slot, it does not
 * fail the session.
 *
 * Context: process context, may sleep; waits for the counters.
 * Return: 0 or a negative errno (then ctx_cpuhp_remove() still applies).
 */
int ctx_cpuhp_add(struct ctx_session *s)
{
	int err;

	WRITE_ONCE(s->creating, true);
	err = cpuhp_state_add_instance_nocalls(ctx_cpuhp_state,
					       &s->cpuhp_node);
	if (!err) {
		queue_work(ctx_system_dfl_wq, &s->fill_work);
		flush_work(&s->fill_work);
	}
	WRITE_ONCE(s->creating, false);
	return err;
}

/**
 * ctx_cpuhp_remove() - take @s out of CPU hotplug and release its counters
 * @s: a session that no hook can reach any more
 *
 * Context: process context, may sleep.
 */
void ctx_cpuhp_remove(struct ctx_session *s)
{
	if (!s->acct.system_wide)
		return;
	/* No hotplug callback runs for @s once this returns... */
	if (s->cpuhp_node.pprev)
		cpuhp_state_remove_instance_nocalls(ctx_cpuhp_state,
						    &s->cpuhp_node);
	/* ...so no fill is queued again after this. */
	cancel_work_sync(&s->fill_work);
	ctx_account_release_counters(&s->acct);
}

/**
 * ctx_cpuhp_init() - set up the CPU hotplug state of sessions
 *
 * Context: module init, before any session exists.
 * Return: 0 or a negative errno.
 */
int ctx_cpuhp_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "ctxcount:dead",
					NULL, ctx_cpuhp_dead);
	if (ret < 0)
		return ret;
	ctx_cpuhp_dead_state = ret;
	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "ctxcount:online",
				      ctx_cpuhp_online, ctx_cpuhp_offline);
	if (ret < 0) {
		cpuhp_remove_state_nocalls(ctx_cpuhp_dead_state);
		return ret;
	}
	ctx_cpuhp_state = ret;
	return 0;
}

/**
 * ctx_cpuhp_exit() - remove the CPU hotplug state
 *
 * Context: module exit, after every session was destroyed.
 */
void ctx_cpuhp_exit(void)
{
	cpuhp_remove_multi_state(ctx_cpuhp_state);
	cpuhp_remove_state_nocalls(ctx_cpuhp_dead_state);
}
