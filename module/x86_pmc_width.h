/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The width of the x86 core PMU's counters, as perf's x86 driver computes
 * its deltas in (x86_pmu.cntval_bits), from what the CPU says.
 * perf_get_x86_pmu_capability() would tell, but 7.2 exports it to KVM's
 * modules only (EXPORT_SYMBOL_FOR_KVM), so the module asks the CPU on every
 * kernel: pmu_direct.h gathers the facts, this decodes them. Plain C with
 * no kernel header, so that the host unit test
 * (module/tests/x86_pmc_width_test.c) compiles the same code.
 *
 * perf's drivers, by vendor: Intel with architectural perfmon and Zhaoxin
 * or Centaur take CPUID leaf 0xA's EAX[23:16] (intel_pmu_init(),
 * zhaoxin_pmu_init()); AMD and Hygon a fixed 48 bits (amd_pmu, as AMD's
 * APM documents the PERF_CTR registers). Intel CPUs without architectural
 * perfmon (P6, P4, Knights Corner) have drivers of their own, with widths
 * of their own; they are not read directly.
 */
#ifndef _CTXCOUNT_X86_PMC_WIDTH_H
#define _CTXCOUNT_X86_PMC_WIDTH_H

#ifndef __KERNEL__
#include <stdbool.h>
#endif

/* The vendors whose PMU drivers matter here. */
enum ctx_x86_vendor {
	CTX_X86_VENDOR_OTHER,
	CTX_X86_VENDOR_INTEL,
	CTX_X86_VENDOR_AMD,
	CTX_X86_VENDOR_HYGON,
	CTX_X86_VENDOR_ZHAOXIN,
	CTX_X86_VENDOR_CENTAUR,
};

/**
 * struct ctx_x86_cpu - what the width depends on
 * @vendor: the boot CPU's vendor
 * @arch_perfmon: X86_FEATURE_ARCH_PERFMON
 * @max_leaf: the highest basic CPUID leaf (cpuid_level)
 * @leaf_0a_eax: CPUID.0xA:EAX when @max_leaf >= 0xA, else ignored
 */
struct ctx_x86_cpu {
	enum ctx_x86_vendor vendor;
	bool arch_perfmon;
	unsigned int max_leaf;
	unsigned int leaf_0a_eax;
};

/* AMD64 APM vol. 2, "Performance Counters": 48 bits; perf's amd_pmu. */
#define CTX_X86_AMD_PMC_WIDTH	48

/**
 * ctx_x86_pmc_width_of() - perf's counter width on @cpu
 * @cpu: the facts
 *
 * Return: the width in bits, 32 to 64; 0 when it is not known (then
 * counters are not read from their registers).
 */
static inline unsigned int ctx_x86_pmc_width_of(const struct ctx_x86_cpu *cpu)
{
	unsigned int version, width;

	switch (cpu->vendor) {
	case CTX_X86_VENDOR_AMD:
	case CTX_X86_VENDOR_HYGON:
		return CTX_X86_AMD_PMC_WIDTH;
	case CTX_X86_VENDOR_INTEL:
		if (!cpu->arch_perfmon)
			return 0;
		break;
	case CTX_X86_VENDOR_ZHAOXIN:
	case CTX_X86_VENDOR_CENTAUR:
		break;
	default:
		return 0;
	}
	if (cpu->max_leaf < 0xa)
		return 0;
	/* EAX[7:0]: the version, 0 without an architectural PMU. */
	version = cpu->leaf_0a_eax & 0xff;
	width = (cpu->leaf_0a_eax >> 16) & 0xff;
	if (!version || width < 32 || width > 64)
		return 0;
	return width;
}

#endif /* _CTXCOUNT_X86_PMC_WIDTH_H */
