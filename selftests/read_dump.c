// SPDX-License-Identifier: GPL-2.0
/*
 * READ at more CPUs than any guest here has: the test bed's
 * nlreply_test_mod.ko (module/tests/nlreply_test.c) runs ctxcount's reply
 * builder (module/nlreply.c, linked into it) on a made-up report of 512
 * CPUs (CTX_READ_DUMP_CPUS) with 16 events and 64 sources, which as a
 * single reply would take several MiB, cut into a READ dump's messages in skbs of a page and of 32 KiB, and
 * parses every message back: each at most NLMSG_GOODSIZE, every value
 * found exactly once, a CPU's parts in order. Its load fails otherwise;
 * here it must load, and its log must say what it checked. (The dump
 * through netlink itself: percpu, netlink_api.)
 *
 * The single reply of 4 CPUs fits its computed size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "cst.h"

FIXTURE(rd) {
	int kmsg;
};

FIXTURE_SETUP(rd)
{
	self->kmsg = cst_kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(rd)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/*
 * The module's lines since @fd was opened: logged, "FAIL" ones counted,
 * and the size a single reply would have had.
 */
static int module_lines(struct __test_metadata *_metadata, int fd,
			int *oks, long long *single)
{
	char rec[1024], *msg;
	int fails = 0;
	ssize_t n;

	*oks = 0;
	*single = -1;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg || !(msg = strstr(msg, "nlreply_test: ")))
			continue;
		msg[strcspn(msg, "\n")] = 0;
		TH_LOG("%s", msg);
		if (strstr(msg, ": FAIL"))
			fails++;
		else if (strstr(msg, ": ok:"))
			(*oks)++;
		if (strstr(msg, "a single reply would be "))
			*single = atoll(strstr(msg, "would be ") + 9);
	}
	return fails;
}

TEST_F(rd, builder_at_many_cpus)
{
	char path[512], params[64];
	int fd, ret, oks, log = cst_kmsg_open();
	long long single;

	snprintf(path, sizeof(path), "%s/../testbed/nlreply_test_mod.ko",
		 cst_self_dir());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s (built with the test bed)", path,
				strerror(errno));
	/* Its own reader: the fixture's looks for kernel reports. */
	ASSERT_LE(0, log);
	snprintf(params, sizeof(params), "cpus=%s",
		 getenv("CTX_READ_DUMP_CPUS") ?: "512");
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	EXPECT_EQ(0, module_lines(_metadata, log, &oks, &single));
	close(log);
	ASSERT_EQ(0, ret) TH_LOG("loading it: %s", strerror(-ret));
	syscall(SYS_delete_module, "nlreply_test_mod", O_NONBLOCK);
	/* the single reply, the size line, two dumps */
	EXPECT_EQ(4, oks);
	/* What a single reply cannot be: over 4 MiB. */
	EXPECT_LT(4LL << 20, single);
}

TEST_HARNESS_MAIN
