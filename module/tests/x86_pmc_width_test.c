// SPDX-License-Identifier: GPL-2.0
/*
 * ctx_x86_pmc_width_of() (module/x86_pmc_width.h) on the host: the width
 * perf's x86 drivers compute counter deltas in, from CPUID leaf 0xA's EAX
 * (version in bits 7:0, counters in 15:8, width in 23:16) on Intel,
 * Zhaoxin and Centaur, fixed at 48 bits on AMD and Hygon. The EAX values
 * are real CPUs' where named.
 */
#include "kselftest_harness.h"
#include "../x86_pmc_width.h"

static unsigned int width(enum ctx_x86_vendor vendor, bool arch_perfmon,
			  unsigned int max_leaf, unsigned int eax)
{
	struct ctx_x86_cpu cpu = {
		.vendor = vendor,
		.arch_perfmon = arch_perfmon,
		.max_leaf = max_leaf,
		.leaf_0a_eax = eax,
	};

	return ctx_x86_pmc_width_of(&cpu);
}

TEST(intel_arch_perfmon)
{
	/* Skylake: version 4, 4 counters, 48 bits */
	EXPECT_EQ(48, width(CTX_X86_VENDOR_INTEL, true, 0x16, 0x07300404));
	/* Sapphire Rapids: version 5, 8 counters, 48 bits */
	EXPECT_EQ(48, width(CTX_X86_VENDOR_INTEL, true, 0x20, 0x08300805));
	/* Core 2: version 2, 2 counters, 40 bits */
	EXPECT_EQ(40, width(CTX_X86_VENDOR_INTEL, true, 0x0a, 0x07280202));
	/* the bounds the module accepts */
	EXPECT_EQ(32, width(CTX_X86_VENDOR_INTEL, true, 0x0a, 0x07200401));
	EXPECT_EQ(64, width(CTX_X86_VENDOR_INTEL, true, 0x0a, 0x07400401));
}

TEST(intel_unknown)
{
	/* no architectural perfmon (P6, P4, Knights Corner: own drivers) */
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, false, 0x0d, 0x07300404));
	/* leaf 0xA beyond the CPU's highest leaf: EAX means nothing */
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, true, 0x09, 0x07300404));
	/* version 0: no architectural PMU (a VM without one, QEMU's TCG) */
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, true, 0x0d, 0x00300000));
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, true, 0x0d, 0));
	/* widths no counter has: too narrow for 32-bit deltas, or past 64 */
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, true, 0x0d, 0x07180404));
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, true, 0x0d, 0x07410404));
	EXPECT_EQ(0, width(CTX_X86_VENDOR_INTEL, true, 0x0d, 0x07ff0404));
}

TEST(amd_hygon_fixed)
{
	/* AMD's APM: 48 bits; leaf 0xA is reserved there and not read */
	EXPECT_EQ(48, width(CTX_X86_VENDOR_AMD, false, 0x10, 0));
	EXPECT_EQ(48, width(CTX_X86_VENDOR_AMD, false, 0x10, 0x07200401));
	EXPECT_EQ(48, width(CTX_X86_VENDOR_HYGON, false, 0x0d, 0));
}

TEST(zhaoxin_centaur_leaf_0a)
{
	/* perf's zhaoxin_pmu_init() reads leaf 0xA without the feature bit */
	EXPECT_EQ(48, width(CTX_X86_VENDOR_ZHAOXIN, false, 0x0d, 0x07300402));
	EXPECT_EQ(40, width(CTX_X86_VENDOR_CENTAUR, false, 0x0d, 0x07280402));
	EXPECT_EQ(0, width(CTX_X86_VENDOR_ZHAOXIN, false, 0x06, 0x07300402));
}

TEST(other_vendors)
{
	EXPECT_EQ(0, width(CTX_X86_VENDOR_OTHER, true, 0x0d, 0x07300404));
}

TEST_HARNESS_MAIN
