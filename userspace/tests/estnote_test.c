// SPDX-License-Identifier: GPL-2.0
/*
 * estnote tests: what ctxstat -v says about the module's estimate: why it
 * is not applied to an event, its uncertainty where it is, one line per
 * kernel counter however many events (:t twins) share it, and the line
 * about user mode only where kernel mode is measured and user mode not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "output/est-notes.h"

static char *notes(const struct cxs_event_list *l,
		   const struct ctxc_reply *rp, uint32_t features)
{
	static char buf[4096];
	FILE *f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	if (!f)
		abort();
	cxs_est_notes(f, l, rp, features);
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

TEST(reasons)
{
	EXPECT_EQ(NULL, cxs_est_reason(CTXCOUNT_EST_APPLIED));
	EXPECT_EQ(NULL, cxs_est_reason(CTXCOUNT_EST_DISABLED));
	EXPECT_EQ(NULL, cxs_est_reason(CTXCOUNT_EST_NONE_NEEDED));
	/* A module before version 5 says nothing: nothing to report. */
	EXPECT_EQ(NULL, cxs_est_reason(0));
	EXPECT_NE(NULL, strstr(cxs_est_reason(CTXCOUNT_EST_DRIVER_READ), "driver"));
	EXPECT_NE(NULL, strstr(cxs_est_reason(CTXCOUNT_EST_UNSTABLE), "disagreed"));
	EXPECT_NE(NULL, strstr(cxs_est_reason(CTXCOUNT_EST_NOT_MEASURED), "instructions"));
}

TEST(a_line_per_counter)
{
	struct cxs_event_list l = { .nr = 3 };
	struct ctxc_reply rp = { .nr_events = 2 };
	char *out;

	strcpy(l.ev[0].name, "instructions");
	strcpy(l.ev[1].name, "instructions:t");
	l.ev[1].task_only = true;
	strcpy(l.ev[2].name, "task-clock");
	l.ev[2].counter = 1;
	rp.ev[0].present = rp.ev[1].present = true;
	rp.ev[0].est_state = CTXCOUNT_EST_APPLIED;
	rp.ev[0].bucket[CTXCOUNT_BUCKET_IRQ_ENTRY_EST] = 12345;
	rp.ev[0].est_error = 67;
	rp.ev[1].est_state = CTXCOUNT_EST_NOT_MEASURED;
	out = notes(&l, &rp, CTXCOUNT_FEATURE_EST_KERNEL | CTXCOUNT_FEATURE_EST_USER);
	EXPECT_EQ(1, count(out, "ctxstat: instructions")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "12345 +- 67")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "task-clock: no irq entry/exit estimate")) TH_LOG("%s", out);
	EXPECT_EQ(0, count(out, "privileged"));
}

TEST(user_mode_line)
{
	struct cxs_event_list l = { 0 };
	struct ctxc_reply rp = { 0 };

	EXPECT_EQ(1, count(notes(&l, &rp, CTXCOUNT_FEATURE_EST_KERNEL), "privileged"));
	/* Nothing measured at all (no PMU): nothing to say about user mode. */
	EXPECT_EQ(0, count(notes(&l, &rp, 0), "privileged"));
	EXPECT_EQ(0, count(notes(&l, &rp, CTXCOUNT_FEATURE_EST_KERNEL |
				 CTXCOUNT_FEATURE_EST_USER), "privileged"));
}

TEST(failed_events_say_nothing)
{
	struct cxs_event_list l = { .nr = 1 };
	struct ctxc_reply rp = { .nr_events = 1 };

	strcpy(l.ev[0].name, "cycles");
	rp.ev[0].present = true;
	rp.ev[0].error = -2;
	rp.ev[0].est_state = CTXCOUNT_EST_NOT_MEASURED;
	EXPECT_STREQ("", notes(&l, &rp, CTXCOUNT_FEATURE_EST_KERNEL |
			       CTXCOUNT_FEATURE_EST_USER));
}

TEST_HARNESS_MAIN
