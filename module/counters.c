// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel counters (a session's task events, per-CPU counters): creation,
 * release, and the check that decides whether a counter is read from the
 * PMU's registers. The read is inline
 * in counters.h because the hooks call it at every context boundary.
 */
#include <linux/ctxcount.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#ifdef CONFIG_ARM64
#include <linux/perf/arm_pmu.h>
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/perf_event.h>
#endif

#include "counters.h"

/*
 * How far the driver's read may be from the direct reads around it, in
 * counts: the driver's read itself, about a hundred instructions or
 * cycles. A register that is not the event's counter gives a value as far
 * off as any 32-bit number.
 */
#define CTX_DIRECT_SLACK	10000

/**
 * ctx_counter_mark() - the overflow handler of a session's task events
 * @event: the event
 * @data: unused
 * @regs: unused
 *
 * Never called (the events count, they do not sample): its address marks
 * the events, and their children, as a session's (ctx_counter_tag_of()).
 */
void ctx_counter_mark(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
}

/**
 * ctx_counter_create() - create one counting event
 * @spec: what to count
 * @cpu: an online CPU for a CPU counter, -1 for a task event
 * @task: the task of a task event, NULL for a CPU counter
 * @flags: CTX_COUNTER_* for a task event
 * @tag: what a task event carries (its children too), NULL for a CPU
 *	counter
 *
 * Flexible, as perf stat's: perf multiplexes it with every other event
 * when the PMU is short of counters, and its time running says so. A task
 * event holds a hardware counter only while its task runs; with
 * CTX_COUNTER_INHERIT perf gives every task forked from it a child of its
 * own, with CTX_COUNTER_ENABLE_ON_EXEC it counts from the task's exec
 * (perf_event_exec()). No sample period: counting only.
 *
 * Context: process context, may sleep.
 * Return: the event, or an ERR_PTR() with the perf core's error (e.g.
 * -ENOENT when this PMU does not have the event), -EOPNOTSUPP for a PMU
 * that counts no CPU's or task's own work (ctx_counter_pmu_ok()).
 */
struct perf_event *ctx_counter_create(const struct ctx_event_spec *spec,
				      int cpu, struct task_struct *task,
				      unsigned int flags,
				      struct ctx_counter_tag *tag)
{
	struct perf_event_attr attr = {
		.type		= spec->type,
		.size		= sizeof(attr),
		.config		= spec->config,
		.exclude_user	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER),
		.exclude_kernel	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL),
		.exclude_hv	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV),
		.read_format	= PERF_FORMAT_TOTAL_TIME_ENABLED |
				  PERF_FORMAT_TOTAL_TIME_RUNNING,
		.inherit	= !!(flags & CTX_COUNTER_INHERIT),
		.disabled	= !!(flags & CTX_COUNTER_ENABLE_ON_EXEC),
		.enable_on_exec	= !!(flags & CTX_COUNTER_ENABLE_ON_EXEC),
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, task,
						 task ? ctx_counter_mark : NULL,
						 tag);
	if (!IS_ERR(event) && !ctx_counter_pmu_ok(event)) {
		perf_event_release_kernel(event);
		return ERR_PTR(-EOPNOTSUPP);
	}
	return event;
}

/**
 * ctx_counter_pmu_ok() - does @event count its own CPU's or task's work
 * @event: an event just created
 *
 * Uncore-style PMUs (no task context) count a package or a device, and
 * move a CPU event to their package's CPU; some of their reads take
 * locks, which no hook may. perf refuses them per task; a session refuses
 * them everywhere.
 *
 * Return: true if a session may read @event in its hooks.
 */
bool ctx_counter_pmu_ok(const struct perf_event *event)
{
	return event->pmu->task_ctx_nr != perf_invalid_context;
}

/**
 * ctx_counter_release() - release a counter from ctx_counter_create()
 * @event: the counter, or NULL
 *
 * Context: process context, may sleep; no hook may still read @event (the
 * caller waits for an RCU grace period after unpublishing it).
 */
void ctx_counter_release(struct perf_event *event)
{
	if (event)
		perf_event_release_kernel(event);
}

#if defined(CONFIG_ARM64)
/*
 * PMUv3 (neither absent nor IMPLEMENTATION DEFINED, as on Apple's cores)
 * driven by the arm_pmuv3 driver (its PMUs are named armv8_* or armv9_*),
 * and a counter the driver does not chain (no long counter asked for).
 */
static bool ctx_pmu_direct_capable(struct perf_event *event)
{
	u64 dfr0 = read_sysreg(id_aa64dfr0_el1);
	unsigned int ver = cpuid_feature_extract_unsigned_field(dfr0,
					ID_AA64DFR0_EL1_PMUVer_SHIFT);
	const char *name = event->pmu->name;

	if (!ver || ver == ID_AA64DFR0_EL1_PMUVer_IMP_DEF)
		return false;
	if (!name || (strncmp(name, "armv8_", 6) && strncmp(name, "armv9_", 6)))
		return false;
	return !(event->hw.flags & ARMPMU_EVT_64BIT);
}
#elif defined(CONFIG_X86)
int ctx_x86_pmc_shift __read_mostly;

/*
 * The core PMU's generic events (not the topdown metrics or auto-reload
 * PEBS events, which the driver reads differently), on a machine whose
 * cores share one counter width (ctx_x86_pmc_width() does not describe
 * hybrid PMUs). Not exercised in the test bed: TCG has no PMU.
 */
static bool ctx_pmu_direct_capable(struct perf_event *event)
{
	unsigned int width;

	if (boot_cpu_has(X86_FEATURE_HYBRID_CPU))
		return false;
	if (event->attr.type != PERF_TYPE_HARDWARE &&
	    event->attr.type != PERF_TYPE_HW_CACHE)
		return false;
	if (!event->hw.event_base)
		return false;
	width = ctx_x86_pmc_width();
	if (!width)
		return false;
	WRITE_ONCE(ctx_x86_pmc_shift, 64 - width);
	return true;
}
#else
static bool ctx_pmu_direct_capable(struct perf_event *event)
{
	return false;
}
#endif

/**
 * ctx_counter_direct_check() - may this CPU read @event from its register
 * @event: a counter of the current CPU
 *
 * Only hardware counters of a PMU pmu_direct.h knows, and only if a direct
 * read agrees with the driver's read between two direct reads. A counter
 * that fails is read through the driver, and the kernel log says so once.
 *
 * Context: interrupts disabled, on @event's CPU, CPU claimed.
 * Return: true if ctx_counter_read() may read @event directly.
 */
bool ctx_counter_direct_check(struct perf_event *event)
{
	u64 before, driver, after;

	if (event->pmu->task_ctx_nr != perf_hw_context ||
	    !ctx_counter_live(event) || !ctx_pmu_direct_capable(event))
		return false;
	before = ctx_pmu_read_direct(event);
	event->pmu->read(event);
	driver = local64_read(&event->count);
	after = ctx_pmu_read_direct(event);
	if (before <= driver && driver <= after &&
	    after - before < CTX_DIRECT_SLACK)
		return true;
	pr_info_once("%s: reading the counter register disagrees with the driver (%llu, %llu, %llu): reading through the driver\n",
		     event->pmu->name, before, driver, after);
	return false;
}
