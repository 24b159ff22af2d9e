// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU kernel counters: creation, release, and the check that decides
 * whether a counter is read from the PMU's registers. The read is inline
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
 * ctx_counter_create() - create one pinned counting event on a CPU
 * @spec: what to count
 * @cpu: an online CPU
 *
 * The counter is pinned so that it is never multiplexed: it either holds a
 * hardware counter for its whole life or goes to ERROR state, and then
 * time_running stops growing instead of a silently scaled count. It has no
 * sample period and no overflow handler: counting only.
 *
 * Context: process context, may sleep.
 * Return: the event, or an ERR_PTR() with the perf core's error (e.g.
 * -ENOENT when this PMU does not have the event).
 */
struct perf_event *ctx_counter_create(const struct ctx_event_spec *spec,
				      int cpu)
{
	struct perf_event_attr attr = {
		.type		= spec->type,
		.size		= sizeof(attr),
		.config		= spec->config,
		.pinned		= 1,
		.exclude_user	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER),
		.exclude_kernel	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL),
		.exclude_hv	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV),
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
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
