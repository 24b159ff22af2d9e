// SPDX-License-Identifier: GPL-2.0
/*
 * proof tests, no kernel needed: perf_event_open(2) is replaced by a
 * script of answers, and what ctxstat asks for, falls back to and calls
 * the events is checked against perf stat's rules (evsel__fallback(),
 * stat_handle_error()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/ctxcount.h>

#include "kselftest_harness.h"
#include "events/proof.h"

#define KERNEL_HV (CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV)

/* The scripted perf_event_open(): answers[i] for call i (0: an fd). */
static int answers[4];
static int calls;
static struct perf_event_attr seen[4];
static pid_t seen_pid[4];
static int seen_cpu[4];

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	int i = calls++;

	if (i >= 4)
		return errno = EIO, -1;
	seen[i] = *attr;
	seen_pid[i] = pid;
	seen_cpu[i] = cpu;
	if (answers[i])
		return errno = answers[i], -1;
	return 100 + i;
}

static void script(int a0, int a1)
{
	memset(seen, 0, sizeof(seen));
	calls = 0;
	answers[0] = a0;
	answers[1] = a1;
}

static const struct cxs_proof_target task = { .pid = 42, .cpu = -1,
					      .inherit = true };
static const struct cxs_proof_target cpu0 = { .pid = -1, .cpu = 0 };

TEST(opens_the_event_disabled_on_the_target)
{
	struct cxs_counter c = { .type = 1, .config = 2, .flags = 0 };
	struct cxs_proof p;

	script(0, 0);
	ASSERT_EQ(CXS_PROOF_OPEN, cxs_proof_open(&p, &c, &task, 2, fake_open));
	EXPECT_EQ(1, calls);
	EXPECT_EQ(100, p.fd);
	EXPECT_FALSE(p.fell_back);
	EXPECT_EQ(1, seen[0].type);
	EXPECT_EQ(2, seen[0].config);
	EXPECT_EQ(1, (int)seen[0].disabled);
	EXPECT_EQ(1, (int)seen[0].inherit);
	EXPECT_EQ(0, (int)seen[0].exclude_kernel);
	EXPECT_EQ(sizeof(struct perf_event_attr), seen[0].size);
	EXPECT_EQ(42, seen_pid[0]);
	EXPECT_EQ(-1, seen_cpu[0]);
}

TEST(system_wide_is_a_cpu_event_without_inherit)
{
	struct cxs_counter c = { .type = 1, .config = 0,
				 .flags = CTXCOUNT_EVENT_F_EXCLUDE_USER };
	struct cxs_proof p;

	script(0, 0);
	ASSERT_EQ(CXS_PROOF_OPEN, cxs_proof_open(&p, &c, &cpu0, 0, fake_open));
	EXPECT_EQ(-1, seen_pid[0]);
	EXPECT_EQ(0, seen_cpu[0]);
	EXPECT_EQ(0, (int)seen[0].inherit);
	EXPECT_EQ(1, (int)seen[0].exclude_user);
}

/* perf stat at paranoid 2: task-clock is retried as task-clock:u. */
TEST(eacces_falls_back_to_user_space_above_paranoid_1)
{
	struct cxs_counter c = { .type = 1, .config = 1, .flags = 0 };
	struct cxs_proof p;

	script(EACCES, 0);
	ASSERT_EQ(CXS_PROOF_OPEN, cxs_proof_open(&p, &c, &task, 2, fake_open));
	EXPECT_EQ(2, calls);
	EXPECT_TRUE(p.fell_back);
	EXPECT_EQ(KERNEL_HV, c.flags);
	EXPECT_EQ(1, (int)seen[1].exclude_kernel);
	EXPECT_EQ(1, (int)seen[1].exclude_hv);
	EXPECT_EQ(0, (int)seen[1].exclude_user);
	EXPECT_STREQ("kernel.perf_event_paranoid=2, trying to fall back to excluding kernel and hypervisor  samples",
		     p.msg);
}

/* At paranoid 1 or less perf does not fall back: the refusal stands. */
TEST(no_fallback_at_paranoid_1)
{
	struct cxs_counter c = { .type = 1, .config = 1, .flags = 0 };
	struct cxs_proof p;

	script(EACCES, 0);
	EXPECT_EQ(CXS_PROOF_REFUSED, cxs_proof_open(&p, &c, &task, 1, fake_open));
	EXPECT_EQ(1, calls);
	EXPECT_EQ(EACCES, p.err);
	EXPECT_EQ(0, c.flags);
}

/* Already user-only, or kernel-only (exclude_user): nothing to fall to. */
TEST(no_fallback_for_excluded_kernel_or_user)
{
	struct cxs_counter u = { .type = 1, .config = 1, .flags = KERNEL_HV };
	struct cxs_counter k = { .type = 1, .config = 1,
				 .flags = CTXCOUNT_EVENT_F_EXCLUDE_USER };
	struct cxs_proof p;

	script(EACCES, 0);
	EXPECT_EQ(CXS_PROOF_REFUSED, cxs_proof_open(&p, &u, &task, 3, fake_open));
	EXPECT_EQ(1, calls);
	script(EACCES, 0);
	EXPECT_EQ(CXS_PROOF_REFUSED, cxs_proof_open(&p, &k, &task, 2, fake_open));
	EXPECT_EQ(1, calls);
	EXPECT_EQ(CTXCOUNT_EVENT_F_EXCLUDE_USER, k.flags);
}

/* The fallback that is refused too (paranoid 3): refused. */
TEST(fallback_refused_too)
{
	struct cxs_counter c = { .type = 1, .config = 1, .flags = 0 };
	struct cxs_proof p;

	script(EACCES, EACCES);
	EXPECT_EQ(CXS_PROOF_REFUSED, cxs_proof_open(&p, &c, &task, 3, fake_open));
	EXPECT_EQ(2, calls);
	EXPECT_EQ(EACCES, p.err);
}

/* EPERM (seccomp, LSM) is not perf's paranoid case: no fallback. */
TEST(eperm_is_refused_without_fallback)
{
	struct cxs_counter c = { .type = 1, .config = 1, .flags = 0 };
	struct cxs_proof p;

	script(EPERM, 0);
	EXPECT_EQ(CXS_PROOF_REFUSED, cxs_proof_open(&p, &c, &task, 2, fake_open));
	EXPECT_EQ(1, calls);
	EXPECT_EQ(EPERM, p.err);
}

TEST(not_supported_errors)
{
	static const int not_supported[] = {
		EINVAL, ENOSYS, ENOENT, EOPNOTSUPP, ENXIO, ENODEV,
	};
	struct cxs_counter c = { .type = 0, .config = 0, .flags = 0 };
	struct cxs_proof p;
	unsigned int i;

	for (i = 0; i < sizeof(not_supported) / sizeof(not_supported[0]); i++) {
		script(not_supported[i], 0);
		EXPECT_EQ(CXS_PROOF_NOT_SUPPORTED,
			  cxs_proof_open(&p, &c, &task, 2, fake_open));
		EXPECT_EQ(1, calls);
	}
	script(EBUSY, 0);
	EXPECT_EQ(CXS_PROOF_FAILED, cxs_proof_open(&p, &c, &task, 2, fake_open));
}

/* perf's rename: ":u" added, or "u" after an existing ':' or a '/'. */
TEST(fallback_names)
{
	char a[64] = "task-clock", b[64] = "instructions:t";
	char c[64] = "cpu/event=0x8/", d[12] = "cycles:tk12";

	EXPECT_EQ(0, cxs_proof_fallback_name(a, sizeof(a)));
	EXPECT_STREQ("task-clock:u", a);
	EXPECT_EQ(0, cxs_proof_fallback_name(b, sizeof(b)));
	EXPECT_STREQ("instructions:tu", b);
	EXPECT_EQ(0, cxs_proof_fallback_name(c, sizeof(c)));
	EXPECT_STREQ("cpu/event=0x8/u", c);
	/* no room: unchanged */
	EXPECT_EQ(-1, cxs_proof_fallback_name(d, sizeof(d)));
	EXPECT_STREQ("cycles:tk12", d);
}

/* Every displayed event of the counter that fell back is renamed. */
TEST(rename_events_of_the_counter)
{
	struct cxs_event_list l = { 0 };
	char err[128];

	ASSERT_EQ(0, cxs_events_add(&l, "task-clock,task-clock:t,page-faults",
				    err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, l.nr_counters);
	l.counters[0].flags |= KERNEL_HV;
	cxs_proof_rename(&l, 0);
	EXPECT_STREQ("task-clock:u", l.ev[0].name);
	EXPECT_STREQ("task-clock:tu", l.ev[1].name);
	EXPECT_STREQ("page-faults", l.ev[2].name);
	EXPECT_EQ(KERNEL_HV, l.ev[0].flags);
	EXPECT_EQ(KERNEL_HV, l.ev[1].flags);
}

/* cxs_proof_print_refusal()'s text, in @buf. */
static int refusal(char *buf, size_t len, const char *event, int err,
		   int paranoid, const struct cxs_proof_target *t)
{
	FILE *f = fmemopen(buf, len - 1, "w");

	if (!f)
		return -1;
	cxs_proof_print_refusal(f, event, err, paranoid, t);
	return fclose(f);
}

/* What perf says on a refusal, and what would allow it. */
TEST(refusal_message_names_sysctl_and_capability)
{
	char buf[4096] = "";

	ASSERT_EQ(0, refusal(buf, sizeof(buf), "task-clock:u", EACCES, 3, &task));
	EXPECT_NE(NULL, strstr(buf, "refuses task-clock:u"));
	EXPECT_NE(NULL, strstr(buf, "perf_event_paranoid setting is 3"));
	EXPECT_NE(NULL, strstr(buf, "CAP_PERFMON"));
	EXPECT_NE(NULL, strstr(buf, "Access to performance monitoring and observability operations is limited."));
	EXPECT_EQ(NULL, strstr(buf, "seccomp"));
}

TEST(eperm_message_mentions_seccomp)
{
	char buf[4096] = "";

	ASSERT_EQ(0, refusal(buf, sizeof(buf), "task-clock", EPERM, 2, &cpu0));
	EXPECT_NE(NULL, strstr(buf, "No permission to enable task-clock event."));
	EXPECT_NE(NULL, strstr(buf, "seccomp"));
	EXPECT_NE(NULL, strstr(buf, "system wide"));
}

TEST_HARNESS_MAIN
