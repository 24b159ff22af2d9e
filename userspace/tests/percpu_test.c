// SPDX-License-Identifier: GPL-2.0
/*
 * percpu tests: -C's CPU lists, -A and -C on the command line, the
 * per-CPU parts of the protocol (CPU list in SESSION_NEW, READ's flag,
 * the reply's CTXCOUNT_A_CPU nests), and -A's rows in perf 6.1's layout
 * (stat-display.c: "CPU%*d%s" with -7 and the separator in std and CSV,
 * "\"cpu\" : \"%d\", " in JSON; print_interval()'s AGGR_NONE header),
 * the expected strings written out by hand from those formats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "lib/internal.h"
#include "options/args.h"
#include "output/display.h"
#include "run/interval.h"
#include "util/cpulist.h"

#define FAMILY 0x1c
#define ARGV(...) ((char *[]){ "ctxstat", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "ctxstat", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(a, ...) cxs_args_parse(a, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), \
				     err, sizeof(err))

static int parse_list(struct cxs_cpulist *l, const char *s, char *err,
		      size_t len)
{
	return cxs_cpulist_parse(l, s, err, len);
}

TEST(cpulist_syntax)
{
	struct cxs_cpulist *l = malloc(sizeof(*l));
	char err[128];

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, parse_list(l, "0,2-3", err, sizeof(err)));
	ASSERT_EQ(3, l->nr);
	EXPECT_EQ(0, l->cpu[0]);
	EXPECT_EQ(2, l->cpu[1]);
	EXPECT_EQ(3, l->cpu[2]);
	/* perf sorts and merges: each CPU once */
	ASSERT_EQ(0, parse_list(l, "5,1-2,2,0-1", err, sizeof(err)));
	ASSERT_EQ(4, l->nr);
	EXPECT_EQ(0, l->cpu[0]);
	EXPECT_EQ(1, l->cpu[1]);
	EXPECT_EQ(2, l->cpu[2]);
	EXPECT_EQ(5, l->cpu[3]);
	ASSERT_EQ(0, parse_list(l, "7", err, sizeof(err)));
	ASSERT_EQ(1, l->nr);
	EXPECT_EQ(7, l->cpu[0]);
	EXPECT_TRUE(cxs_cpulist_has(l, 7));
	EXPECT_FALSE(cxs_cpulist_has(l, 6));
	free(l);
}

TEST(cpulist_errors)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "1,,2", "a", "1-", "-1", "3-1", "1 2",
		"0x1", "1-2-3", "1;2",
	};
	struct cxs_cpulist *l = malloc(sizeof(*l));
	char err[128];
	unsigned int i;

	ASSERT_NE(NULL, l);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		EXPECT_EQ(-1, parse_list(l, bad[i], err, sizeof(err)))
			TH_LOG("'%s' accepted", bad[i]);
		EXPECT_STREQ("failed to parse CPUs map", err) TH_LOG("'%s'", bad[i]);
	}
	EXPECT_EQ(-1, parse_list(l, "4096", err, sizeof(err)));
	EXPECT_STREQ("Requested CPU 4096 too large (ctxstat takes CPUs below 4096)", err);
	EXPECT_EQ(0, parse_list(l, "4095", err, sizeof(err)));
	free(l);
}

TEST(cpulist_read_sysfs_format)
{
	struct cxs_cpulist *l = malloc(sizeof(*l));
	char path[] = "/tmp/ctxstat-cpulist-XXXXXX";
	int fd = mkstemp(path);

	ASSERT_NE(NULL, l);
	ASSERT_LE(0, fd);
	ASSERT_EQ(7, write(fd, "0-2,4\n", 6) + 1);
	close(fd);
	EXPECT_EQ(0, cxs_cpulist_read(l, path));
	EXPECT_EQ(4, l->nr);
	EXPECT_EQ(4, l->cpu[3]);
	unlink(path);
	EXPECT_EQ(-ENOENT, cxs_cpulist_read(l, path));
	free(l);
}

/* -C is system wide on a list; -A needs -a or -C, as in perf. */
TEST(args)
{
	struct cxs_args a;
	char err[128];

	ASSERT_EQ(0, PARSE(&a, "-C", "0,2-3", "true"));
	EXPECT_TRUE(a.system_wide);
	EXPECT_FALSE(a.all_cpus);
	EXPECT_STREQ("0,2-3", a.cpu_list);
	EXPECT_FALSE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "--cpu=1", "-A"));
	EXPECT_TRUE(a.system_wide);
	EXPECT_TRUE(a.no_aggr);
	ASSERT_EQ(0, PARSE(&a, "-a", "--no-aggr", "-I", "100", "--breakdown"));
	EXPECT_TRUE(a.no_aggr);
	EXPECT_TRUE(a.all_cpus);
	EXPECT_EQ(NULL, a.cpu_list);
	EXPECT_EQ(-1, PARSE(&a, "-A", "true"));
	EXPECT_STREQ("both cgroup and no-aggregation modes only available in system-wide mode",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "-A", "-p", "1"));
	EXPECT_EQ(-1, PARSE(&a, "-C", "1-", "true"));
	EXPECT_STREQ("failed to parse CPUs map", err);
	EXPECT_EQ(-1, PARSE(&a, "-C", "0", "-p", "1"));
	EXPECT_STREQ("-p and -C are exclusive", err);
	EXPECT_EQ(-1, PARSE(&a, "-a", "-A", "-r", "2", "true"));
	EXPECT_STREQ("-A prints the CPUs of one run: -r and --repeat-until do not apply",
		     err);
	EXPECT_EQ(-1, PARSE(&a, "-a", "-A", "--save", "x.json", "true"));
	EXPECT_EQ(-1, PARSE(&a, "-C"));
	EXPECT_EQ(0, PARSE(&a, "-a", "-A", "-r", "1", "true"));
}

TEST(compare_refuses_cpus)
{
	struct cxs_args a;
	char err[256];

	EXPECT_EQ(-1, cxs_args_parse_compare(&a, 5,
					     (char *[]){ "compare", "-A", "true", "---",
							 "true", NULL },
					     err, sizeof(err)));
	EXPECT_EQ(-1, cxs_args_parse_compare(&a, 6,
					     (char *[]){ "compare", "-C", "0", "true",
							 "---", "true", NULL },
					     err, sizeof(err)));
}

/* The CPU list goes inside the target, one u32 per CPU; none without. */
TEST(session_new_cpu_list)
{
	const struct ctxc_event_req ev = { .type = 1, .config = 0 };
	const int cpus[] = { 0, 2, 3 };
	struct ctxc_target t = {
		.flags = CTXCOUNT_TARGET_F_SYSTEM_WIDE,
		.cpus = cpus, .nr_cpus = 3,
	};
	struct nlattr *tb[CTXCOUNT_A_MAX + 1], *tt[CTXCOUNT_TARGET_A_MAX + 1];
	struct nlattr *pos;
	struct nl_msg *msg;
	int rem, n = 0;

	msg = ctxc_build_session_new(FAMILY, &t, &ev, 1);
	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_EQ(0, nla_parse_nested(tt, CTXCOUNT_TARGET_A_MAX,
				      tb[CTXCOUNT_A_TARGET], NULL));
	ASSERT_NE(NULL, tt[CTXCOUNT_TARGET_A_CPUS]);
	nla_for_each_nested(pos, tt[CTXCOUNT_TARGET_A_CPUS], rem) {
		ASSERT_LT(n, 3);
		EXPECT_EQ(CTXCOUNT_CPUS_A_CPU, nla_type(pos));
		EXPECT_EQ(4, nla_len(pos));
		EXPECT_EQ(cpus[n], (int)nla_get_u32(pos));
		n++;
	}
	EXPECT_EQ(3, n);
	nlmsg_free(msg);
	t.nr_cpus = 0;
	msg = ctxc_build_session_new(FAMILY, &t, &ev, 1);
	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_EQ(0, nla_parse_nested(tt, CTXCOUNT_TARGET_A_MAX,
				      tb[CTXCOUNT_A_TARGET], NULL));
	EXPECT_EQ(NULL, tt[CTXCOUNT_TARGET_A_CPUS]);
	nlmsg_free(msg);
}

/* READ_FLAGS only when asked for: an older module would refuse it. */
TEST(read_request_flags)
{
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nl_msg *msg;

	msg = ctxc_build_session_read(FAMILY, 9, 0);
	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	EXPECT_EQ(9, nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]));
	EXPECT_EQ(NULL, tb[CTXCOUNT_A_READ_FLAGS]);
	nlmsg_free(msg);
	msg = ctxc_build_session_read(FAMILY, 9, CTXCOUNT_READ_F_PER_CPU);
	ASSERT_NE(NULL, msg);
	EXPECT_EQ(CTXCOUNT_CMD_SESSION_READ,
		  ((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(msg)))->cmd);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_NE(NULL, tb[CTXCOUNT_A_READ_FLAGS]);
	EXPECT_EQ(CTXCOUNT_READ_F_PER_CPU, nla_get_u32(tb[CTXCOUNT_A_READ_FLAGS]));
	nlmsg_free(msg);
}

static void put_event(struct nl_msg *msg, int type, uint64_t full,
		      uint64_t hardirq)
{
	struct nlattr *list = nla_nest_start(msg, type);
	struct nlattr *ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	struct nlattr *b;

	nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, 0);
	nla_put_s32(msg, CTXCOUNT_EVENT_A_ERROR, 0);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, full);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_TIME_ENABLED, 100);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_TIME_RUNNING, 100);
	b = nla_nest_start(msg, CTXCOUNT_EVENT_A_BUCKETS);
	nla_put_u64(msg, CTXCOUNT_BUCKET_TASK, full - hardirq);
	nla_put_u64(msg, CTXCOUNT_BUCKET_HARDIRQ, hardirq);
	nla_nest_end(msg, b);
	nla_nest_end(msg, ev);
	nla_nest_end(msg, list);
}

static void put_cpu(struct nl_msg *msg, uint32_t cpu, uint64_t full,
		    uint64_t hardirq)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_A_CPU);
	struct nlattr *exc;

	nla_put_u32(msg, CTXCOUNT_CPU_A_CPU, cpu);
	exc = nla_nest_start(msg, CTXCOUNT_CPU_A_EXCURSIONS);
	nla_put_u64(msg, CTXCOUNT_EXCURSION_HARDIRQ, 1);
	nla_nest_end(msg, exc);
	put_event(msg, CTXCOUNT_CPU_A_EVENTS, full, hardirq);
	nla_nest_end(msg, nest);
}

/* A READ reply with CPUs 0 and 3, laid out as nlreply.c lays it out. */
static struct nl_msg *cpu_reply(void)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 1, FAMILY, 0, 0, CTXCOUNT_CMD_SESSION_READ,
		    CTXCOUNT_GENL_VERSION);
	nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, 4);
	put_event(msg, CTXCOUNT_A_EVENTS, 4000, 100);
	put_cpu(msg, 0, 3000, 100);
	put_cpu(msg, 3, 1000, 0);
	return msg;
}

TEST(parse_cpu_rows)
{
	struct ctxc_cpu_val v[2];
	struct ctxc_cpus cpus = { .cap = 2, .v = v };
	struct nl_msg *msg = cpu_reply();
	struct ctxc_reply r;

	ASSERT_EQ(0, ctxc_parse_reply_cpus(nlmsg_hdr(msg), &r, &cpus));
	EXPECT_EQ(4000, r.ev[0].full);
	ASSERT_EQ(2, cpus.nr);
	EXPECT_EQ(0, v[0].cpu);
	EXPECT_EQ(3000, v[0].ev[0].full);
	EXPECT_EQ(2900, v[0].ev[0].bucket[CTXCOUNT_BUCKET_TASK]);
	EXPECT_EQ(100, v[0].ev[0].bucket[CTXCOUNT_BUCKET_HARDIRQ]);
	EXPECT_TRUE(v[0].ev[0].present);
	EXPECT_FALSE(v[0].ev[1].present);
	EXPECT_EQ(3, v[1].cpu);
	EXPECT_EQ(1000, v[1].ev[0].full);
	/* Without room for them the parse fails rather than drop a CPU. */
	cpus.cap = 1;
	EXPECT_EQ(-E2BIG, ctxc_parse_reply_cpus(nlmsg_hdr(msg), &r, &cpus));
	/* The plain parse ignores them. */
	ASSERT_EQ(0, ctxc_parse_reply(nlmsg_hdr(msg), &r));
	EXPECT_EQ(4000, r.ev[0].full);
	nlmsg_free(msg);
}

/* Two CPUs of "instructions": 3000 (100 in hardirq) and 1000. */
struct cpu_data {
	struct cxs_event_list events;
	struct cxs_counter_values c[2 * CTXCOUNT_MAX_EVENTS];
	struct cxs_counter_values total[CTXCOUNT_MAX_EVENTS];
	struct cxs_sample elapsed;
	int ids[2];
	struct cxs_series s;
};

static void cpu_counter(struct cxs_counter_values *c, uint64_t full,
			uint64_t hardirq)
{
	struct cxs_counter_reading rd = {
		.full = full, .time_enabled = 1000000, .time_running = 1000000,
	};

	rd.bucket[CTXCOUNT_BUCKET_TASK] = full - hardirq;
	rd.bucket[CTXCOUNT_BUCKET_HARDIRQ] = hardirq;
	if (cxs_counter_add(c, &rd))
		abort();
}

static void cpu_setup(struct cpu_data *d)
{
	char err[128];

	memset(d, 0, sizeof(*d));
	if (cxs_events_add(&d->events, "instructions", err, sizeof(err)))
		abort();
	cpu_counter(&d->c[0], 3000, 100);
	cpu_counter(&d->c[CTXCOUNT_MAX_EVENTS], 1000, 0);
	cpu_counter(&d->total[0], 4000, 100);
	cxs_sample_add(&d->elapsed, 1e9);
	d->ids[0] = 0;
	d->ids[1] = 1;
	d->s = (struct cxs_series){
		.events = &d->events, .counters = d->total, .runs = 1,
		.elapsed_ns = &d->elapsed, .target = CXS_TARGET_SYSTEM_WIDE,
		.nr_cpus = 2, .cpu_ids = d->ids, .cpu_counters = d->c,
	};
}

static void cpu_release(struct cpu_data *d)
{
	int i;

	for (i = 0; i < 2 * CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&d->c[i]);
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&d->total[i]);
	cxs_sample_free(&d->elapsed);
}

static char *render(const struct cxs_series *s, enum cxs_output_format fmt,
		    bool breakdown)
{
	struct cxs_output_opts o = { .format = fmt, .sep = ",",
				     .breakdown = breakdown };
	char *buf = NULL;
	size_t len = 0;

	o.f = open_memstream(&buf, &len);
	cxs_output_series(&o, s);
	fclose(o.f);
	return buf;
}

TEST(std_rows_per_cpu)
{
	struct cpu_data d;
	char *out;

	cpu_setup(&d);
	out = render(&d.s, CXS_OUTPUT_STD, false);
	EXPECT_STREQ("\n"
" Performance counter stats for 'system wide':\n"
"\n"
"CPU0                     3000      instructions                                                       \n"
"CPU1                     1000      instructions                                                       \n"
"\n"
"       1.000000000 seconds time elapsed\n"
"\n", out);
	free(out);
	cpu_release(&d);
}

/* Each CPU's context rows follow its own row; shares are of that CPU. */
TEST(std_breakdown_per_cpu)
{
	struct cpu_data d;
	char *out, *rows;
	const char *want =
"CPU0                     3000      instructions                                                       \n"
"CPU0                     2900      instructions [task]              #   96.67% of all                 \n"
"CPU0                      100      instructions [hardirq]           #    3.33% of all                 \n"
"CPU0                        0      instructions [nmi]               #    0.00% of all                 \n"
"CPU1                     1000      instructions                                                       \n"
"CPU1                     1000      instructions [task]              #  100.00% of all                 \n"
"CPU1                        0      instructions [hardirq]           #    0.00% of all                 \n"
"CPU1                        0      instructions [nmi]               #    0.00% of all                 \n"
"\n";

	cpu_setup(&d);
	out = render(&d.s, CXS_OUTPUT_STD, true);
	rows = strstr(out, "CPU0");
	ASSERT_NE(NULL, rows);
	EXPECT_EQ(0, strncmp(rows, want, strlen(want))) TH_LOG("%s", out);
	free(out);
	cpu_release(&d);
}

/* On a terminal: the same rows without the metric column's padding. */
TEST(std_trimmed_for_a_terminal)
{
	struct cxs_output_opts o = { .format = CXS_OUTPUT_STD, .breakdown = true,
				     .trim = true };
	const char *want =
"CPU0                     3000      instructions\n"
"CPU0                     2900      instructions [task]              #   96.67% of all\n"
"CPU0                      100      instructions [hardirq]           #    3.33% of all\n";
	struct cpu_data d;
	char *buf = NULL, *rows;
	size_t len = 0;

	cpu_setup(&d);
	o.f = open_memstream(&buf, &len);
	cxs_output_series(&o, &d.s);
	fclose(o.f);
	rows = strstr(buf, "CPU0");
	ASSERT_NE(NULL, rows);
	EXPECT_EQ(0, strncmp(rows, want, strlen(want))) TH_LOG("%s", buf);
	EXPECT_EQ(NULL, strstr(buf, " \n")) TH_LOG("%s", buf);
	free(buf);
	cpu_release(&d);
}

/* perf's header: -C without -a names the CPUs as given. */
TEST(header_names_cpu_list)
{
	const char *want = "\n Performance counter stats for 'CPU(s) 1,0':\n\n";
	struct cpu_data d;
	char *out;

	cpu_setup(&d);
	d.s.cpu_list = "1,0";
	out = render(&d.s, CXS_OUTPUT_STD, false);
	EXPECT_EQ(0, strncmp(out, want, strlen(want))) TH_LOG("%s", out);
	free(out);
	cpu_release(&d);
}

TEST(csv_json_rows_per_cpu)
{
	struct cpu_data d;
	char *out;

	cpu_setup(&d);
	out = render(&d.s, CXS_OUTPUT_CSV, false);
	EXPECT_STREQ(
"CPU0,3000,,instructions,1000000,100.00,,\n"
"CPU1,1000,,instructions,1000000,100.00,,\n", out);
	free(out);
	out = render(&d.s, CXS_OUTPUT_JSON, false);
	EXPECT_STREQ(
"{\"cpu\" : \"0\", \"counter-value\" : \"3000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 1000000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
"{\"cpu\" : \"1\", \"counter-value\" : \"1000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 1000000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n",
		out);
	free(out);
	cpu_release(&d);
}

/* A READ's event 0 on CPUs 0 and 1 (cumulative). */
static void cpu_read(struct ctxc_cpus *cpus, uint64_t c0, uint64_t c1,
		     uint64_t run)
{
	int k;

	cpus->nr = 2;
	for (k = 0; k < 2; k++) {
		struct ctxc_event_val *v = &cpus->v[k].ev[0];

		memset(&cpus->v[k], 0, sizeof(cpus->v[k]));
		cpus->v[k].cpu = k;
		v->present = true;
		v->full = k ? c1 : c0;
		v->bucket[CTXCOUNT_BUCKET_TASK] = v->full;
		v->time_enabled = v->time_running = run;
	}
}

/* -I -A of "instructions": an interval printer with room for 2 CPUs. */
struct iv_cpu {
	struct cxs_event_list events;
	struct cxs_interval iv;
	struct ctxc_reply rp;
	struct ctxc_cpu_val v[2];
	struct ctxc_cpus cpus;
	char *buf;
	size_t len;
	FILE *f;
};

static void iv_cpu_setup(struct iv_cpu *d, enum cxs_output_format fmt,
			 double t0_ns)
{
	struct cxs_output_opts o = { .format = fmt, .sep = "," };
	struct cxs_series s = { .events = &d->events,
				.target = CXS_TARGET_SYSTEM_WIDE };
	char err[128];

	memset(d, 0, sizeof(*d));
	if (cxs_events_add(&d->events, "instructions", err, sizeof(err)))
		abort();
	d->cpus = (struct ctxc_cpus){ .cap = 2, .v = d->v };
	d->f = open_memstream(&d->buf, &d->len);
	o.f = d->f;
	if (cxs_interval_init(&d->iv, &o, &s, 100, 2, 0))
		abort();
	d->iv.t0_ns = t0_ns;
	d->rp.nr_events = 1;
	d->rp.ev[0].present = true;
}

/* The output; free() it. */
static char *iv_cpu_finish(struct iv_cpu *d)
{
	fclose(d->f);
	cxs_interval_free(&d->iv);
	return d->buf;
}

/*
 * -I -A: the header with perf's CPU column, then each interval's rows
 * per CPU, each the CPU's own difference from the previous READ.
 */
TEST(interval_rows_per_cpu)
{
	struct iv_cpu d;
	char *out;

	iv_cpu_setup(&d, CXS_OUTPUT_STD, 1e9);
	d.rp.ev[0].full = d.rp.ev[0].bucket[CTXCOUNT_BUCKET_TASK] = 4000;
	d.rp.ev[0].time_enabled = d.rp.ev[0].time_running = 200;
	cpu_read(&d.cpus, 3000, 1000, 100);
	ASSERT_EQ(0, cxs_interval_print(&d.iv, &d.rp, &d.cpus, 1.1e9));
	d.rp.ev[0].full = d.rp.ev[0].bucket[CTXCOUNT_BUCKET_TASK] = 4500;
	cpu_read(&d.cpus, 3100, 1400, 200);
	ASSERT_EQ(0, cxs_interval_print(&d.iv, &d.rp, &d.cpus, 1.2e9));
	out = iv_cpu_finish(&d);
	EXPECT_STREQ(
"#           time CPU                    counts unit events\n"
"     0.100000000 CPU0                     3000      instructions                                                       \n"
"     0.100000000 CPU1                     1000      instructions                                                       \n"
"     0.200000000 CPU0                      100      instructions                                                       \n"
"     0.200000000 CPU1                      400      instructions                                                       \n",
		out);
	free(out);
}

/* One interval of 100 ms: CPU 0 counted 30, CPU 1 10. NULL on failure. */
static char *one_interval(enum cxs_output_format fmt)
{
	struct iv_cpu d;

	iv_cpu_setup(&d, fmt, 0);
	cpu_read(&d.cpus, 30, 10, 100);
	if (cxs_interval_print(&d.iv, &d.rp, &d.cpus, 1e8)) {
		free(iv_cpu_finish(&d));
		return NULL;
	}
	return iv_cpu_finish(&d);
}

/* CSV and JSON: the time, then the CPU, as perf 6.1 prints them. */
TEST(interval_csv_json_per_cpu)
{
	char *out = one_interval(CXS_OUTPUT_CSV);

	EXPECT_STREQ(
"     0.100000000,CPU0,30,,instructions,100,100.00,,\n"
"     0.100000000,CPU1,10,,instructions,100,100.00,,\n", out);
	free(out);
	out = one_interval(CXS_OUTPUT_JSON);
	EXPECT_STREQ(
"{\"interval\" : 0.100000000, \"cpu\" : \"0\", \"counter-value\" : \"30.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 100, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
"{\"interval\" : 0.100000000, \"cpu\" : \"1\", \"counter-value\" : \"10.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 100, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n",
		out);
	free(out);
}

/* A CPU that a READ has for the first time counts from 0 (came online). */
TEST(interval_new_cpu_from_zero)
{
	struct iv_cpu d;
	char *out;

	iv_cpu_setup(&d, CXS_OUTPUT_CSV, 0);
	cpu_read(&d.cpus, 30, 10, 100);
	d.cpus.nr = 1;
	ASSERT_EQ(0, cxs_interval_print(&d.iv, &d.rp, &d.cpus, 1e8));
	cpu_read(&d.cpus, 50, 10, 200);
	ASSERT_EQ(0, cxs_interval_print(&d.iv, &d.rp, &d.cpus, 2e8));
	out = iv_cpu_finish(&d);
	EXPECT_STREQ(
"     0.100000000,CPU0,30,,instructions,100,100.00,,\n"
"     0.200000000,CPU0,20,,instructions,100,100.00,,\n"
"     0.200000000,CPU1,10,,instructions,200,100.00,,\n", out);
	free(out);
}

TEST_HARNESS_MAIN
