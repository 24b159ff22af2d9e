/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a counter from the PMU's registers, without the driver: the
 * hardware counter perf assigned the event (hw.idx) combined with perf's
 * count and prev_count, as the driver's own update would combine them, but
 * writing nothing. The driver's read (pmu->read()) costs about a hundred
 * instructions through two indirect calls and a cmpxchg; this a dozen.
 *
 * Only for a counter that ctx_counter_direct_check() (counters.c) accepted
 * on this CPU, and only while it is live (ctx_counter_live()): ACTIVE and
 * not stopped, so hw.idx is the counter that holds the rest of its count.
 *
 * arm64 PMUv3: PMCCNTR_EL0, PMEVCNTR<n>_EL0 or PMICNTR_EL0 (S3_3_C9_C4_0)
 * by index (compat.h orders them: the mapping changed in 6.11), 32-bit deltas (the
 * module never asks for long counters, so none is chained). x86: rdpmc of
 * hw.event_base_rdpmc, deltas of the PMU's counter width. Elsewhere none.
 */
#ifndef _CTXCOUNT_PMU_DIRECT_H
#define _CTXCOUNT_PMU_DIRECT_H

#include <linux/bits.h>
#include <linux/perf_event.h>

#include "compat.h"

#if defined(CONFIG_ARM64)
#include <linux/stringify.h>

/* The PMU's overflow interrupt is an NMI only with pseudo-NMIs. */
#define CTX_PMU_NMI	IS_ENABLED(CONFIG_ARM64_PSEUDO_NMI)

/*
 * The register by perf's index: one branch into a table of equal-sized
 * entries, each reading one register in index order (compat.h), where a
 * switch would load its offset from a table of its own first. With BTI
 * each entry is a landing pad.
 */
#ifdef CONFIG_ARM64_BTI_KERNEL
/* hint #36: BTI j, for assemblers that do not know it */
#define CTX_PMU_ENTRY(reg)	"hint #36\n\tmrs %[v], " reg "\n\tb 2f\n\tnop\n\t"
#define CTX_PMU_ENTRY_SHIFT	"4"
#else
#define CTX_PMU_ENTRY(reg)	"mrs %[v], " reg "\n\tb 2f\n\t"
#define CTX_PMU_ENTRY_SHIFT	"3"
#endif /* CONFIG_ARM64_BTI_KERNEL */
#define CTX_PMU_EV(n)		CTX_PMU_ENTRY("pmevcntr" #n "_el0")

static __always_inline u64 ctx_pmu_read_raw(const struct perf_event *event)
{
	/* A negative index (no counter) is out of range too. */
	u32 idx = READ_ONCE(event->hw.idx);
	u64 v, t;

	asm volatile("cmp	%w[idx], #" __stringify(CTX_ARMV8_NR_IDX) "\n\t"
		     "b.hs	1f\n\t"
		     "adr	%[t], 3f\n\t"
		     "add	%[t], %[t], %w[idx], uxtw #" CTX_PMU_ENTRY_SHIFT "\n\t"
		     "br	%[t]\n"
		     "1:	mov	%[v], xzr\n\t"
		     "b	2f\n"
		     "3:\n\t"
#if CTX_ARMV8_IDX_CYCLE == 0
		     CTX_PMU_ENTRY("pmccntr_el0")
#endif
		     CTX_PMU_EV(0) CTX_PMU_EV(1) CTX_PMU_EV(2) CTX_PMU_EV(3)
		     CTX_PMU_EV(4) CTX_PMU_EV(5) CTX_PMU_EV(6) CTX_PMU_EV(7)
		     CTX_PMU_EV(8) CTX_PMU_EV(9) CTX_PMU_EV(10) CTX_PMU_EV(11)
		     CTX_PMU_EV(12) CTX_PMU_EV(13) CTX_PMU_EV(14)
		     CTX_PMU_EV(15) CTX_PMU_EV(16) CTX_PMU_EV(17)
		     CTX_PMU_EV(18) CTX_PMU_EV(19) CTX_PMU_EV(20)
		     CTX_PMU_EV(21) CTX_PMU_EV(22) CTX_PMU_EV(23)
		     CTX_PMU_EV(24) CTX_PMU_EV(25) CTX_PMU_EV(26)
		     CTX_PMU_EV(27) CTX_PMU_EV(28) CTX_PMU_EV(29)
		     CTX_PMU_EV(30)
#if CTX_ARMV8_IDX_CYCLE == 31
		     CTX_PMU_ENTRY("pmccntr_el0")
		     /* PMICNTR_EL0 */
		     CTX_PMU_ENTRY("s3_3_c9_c4_0")
#endif
		     "2:"
		     : [v] "=&r" (v), [t] "=&r" (t)
		     : [idx] "r" (idx)
		     : "cc");
	return v;
}

/* The counter width perf computes deltas in: 32 bits (never chained). */
static __always_inline u64 ctx_pmu_delta(u64 raw, u64 prev)
{
	return (raw - prev) & GENMASK_ULL(31, 0);
}

#elif defined(CONFIG_X86)
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "x86_pmc_width.h"

#define CTX_PMU_NMI	1

/* 64 - the PMU's counter width; set by ctx_counter_direct_check(). */
extern int ctx_x86_pmc_shift;

/**
 * ctx_x86_pmc_width() - the width perf's driver takes for the core PMU
 *
 * Not for hybrid CPUs, whose PMUs differ (x86_pmc_width.h).
 *
 * Return: the counters' width in bits, or 0 if unknown.
 */
static inline unsigned int ctx_x86_pmc_width(void)
{
	struct ctx_x86_cpu cpu = {
		.arch_perfmon = boot_cpu_has(X86_FEATURE_ARCH_PERFMON),
		.max_leaf = boot_cpu_data.cpuid_level,
	};

	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
		cpu.vendor = CTX_X86_VENDOR_INTEL;
		break;
	case X86_VENDOR_AMD:
		cpu.vendor = CTX_X86_VENDOR_AMD;
		break;
	case X86_VENDOR_HYGON:
		cpu.vendor = CTX_X86_VENDOR_HYGON;
		break;
	case X86_VENDOR_ZHAOXIN:
		cpu.vendor = CTX_X86_VENDOR_ZHAOXIN;
		break;
	case X86_VENDOR_CENTAUR:
		cpu.vendor = CTX_X86_VENDOR_CENTAUR;
		break;
	default:
		cpu.vendor = CTX_X86_VENDOR_OTHER;
		break;
	}
	if (cpu.max_leaf >= 0xa)
		cpu.leaf_0a_eax = cpuid_eax(0xa);
	return ctx_x86_pmc_width_of(&cpu);
}

static __always_inline u64 ctx_pmu_read_raw(const struct perf_event *event)
{
	return ctx_rdpmc(event->hw.event_base_rdpmc);
}

static __always_inline u64 ctx_pmu_delta(u64 raw, u64 prev)
{
	int shift = READ_ONCE(ctx_x86_pmc_shift);

	return ((raw << shift) - (prev << shift)) >> shift;
}

#else
#define CTX_PMU_NMI	1

static __always_inline u64 ctx_pmu_read_raw(const struct perf_event *event)
{
	return 0;
}

static __always_inline u64 ctx_pmu_delta(u64 raw, u64 prev)
{
	return 0;
}
#endif

/**
 * ctx_pmu_read_direct() - a live counter's value, from the PMU's register
 * @event: a counter of this CPU accepted by ctx_counter_direct_check()
 *
 * The driver's overflow handler may run in an NMI (x86; arm64 with
 * pseudo-NMIs) and move prev_count and count between these loads: retried
 * until prev_count did not change around them. Without NMIs it cannot
 * interrupt this (interrupts are disabled), and the check is left out.
 *
 * Context: interrupts disabled, on @event's CPU.
 * Return: the counter value.
 */
static __always_inline u64 ctx_pmu_read_direct(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev, count, raw;

	do {
		prev = local64_read(&hwc->prev_count);
		count = local64_read(&event->count);
		barrier();
		raw = ctx_pmu_read_raw(event);
		barrier();
	} while (CTX_PMU_NMI &&
		 unlikely(local64_read(&hwc->prev_count) != prev));
	return count + ctx_pmu_delta(raw, prev);
}

#endif /* _CTXCOUNT_PMU_DIRECT_H */
