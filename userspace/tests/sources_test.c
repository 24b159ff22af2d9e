// SPDX-License-Identifier: GPL-2.0
/*
 * sources tests, no kernel needed: the --irq-sources request, the READ
 * reply's source nests built as the module lays them out and parsed, the
 * rows' labels (/proc/interrupts' IPI descriptions), the mapping of each
 * session's ids to the series' rows, their order, and the rows in CSV
 * and JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "series_fixture.h"
#include "lib/internal.h"
#include "run/irq-sources.h"

#define FAMILY 0x1c

/* The flag and CTXCOUNT_A_MAX_SOURCES ride beside the target when set. */
TEST(session_new_max_sources)
{
	const struct ctxc_event_req ev = { .type = 0, .config = 1 };
	struct ctxc_target t = { .pid = 7 };
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nl_msg *msg = ctxc_build_session_new(FAMILY, &t, &ev, 1);

	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	EXPECT_EQ(NULL, tb[CTXCOUNT_A_MAX_SOURCES]);
	EXPECT_EQ(NULL, tb[CTXCOUNT_A_SESSION_FLAGS]);
	nlmsg_free(msg);
	t.session_flags = CTXCOUNT_SESSION_F_IRQ_SOURCES;
	t.max_sources = 12;
	msg = ctxc_build_session_new(FAMILY, &t, &ev, 1);
	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_NE(NULL, tb[CTXCOUNT_A_SESSION_FLAGS]);
	EXPECT_EQ(CTXCOUNT_SESSION_F_IRQ_SOURCES,
		  nla_get_u32(tb[CTXCOUNT_A_SESSION_FLAGS]));
	ASSERT_NE(NULL, tb[CTXCOUNT_A_MAX_SOURCES]);
	EXPECT_EQ(12, nla_get_u32(tb[CTXCOUNT_A_MAX_SOURCES]));
	nlmsg_free(msg);
}

static struct nl_msg *read_reply(void)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 1, FAMILY, 0, 0, CTXCOUNT_CMD_SESSION_READ,
		    CTXCOUNT_GENL_VERSION);
	nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, 3);
	return msg;
}

/* One event, its hardirq split between sources @ids (with a pad first). */
static void put_event(struct nl_msg *msg, uint32_t index, uint64_t hardirq,
		      const int *ids, const uint64_t *vals, int n)
{
	struct nlattr *ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	struct nlattr *b;
	int k;

	nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, index);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, 1000);
	b = nla_nest_start(msg, CTXCOUNT_EVENT_A_BUCKETS);
	nla_put_u64(msg, CTXCOUNT_BUCKET_TASK, 1000 - hardirq);
	nla_put_u64(msg, CTXCOUNT_BUCKET_HARDIRQ, hardirq);
	nla_nest_end(msg, b);
	b = nla_nest_start(msg, CTXCOUNT_EVENT_A_SOURCES);
	nla_put(msg, CTXCOUNT_SOURCE_ID_UNSPEC, 0, NULL);	/* padding */
	for (k = 0; k < n; k++)
		nla_put_u64(msg, ids[k], vals[k]);
	nla_nest_end(msg, b);
	nla_nest_end(msg, ev);
}

static void put_source(struct nl_msg *msg, uint32_t id, uint32_t kind,
		       uint32_t irq, const uint64_t *hwirq, const char *name,
		       uint64_t count)
{
	struct nlattr *s = nla_nest_start(msg, CTXCOUNT_SOURCES_A_SOURCE);

	nla_put_u32(msg, CTXCOUNT_SOURCE_A_ID, id);
	nla_put_u32(msg, CTXCOUNT_SOURCE_A_KIND, kind);
	if (kind >= CTXCOUNT_SOURCE_KIND_IRQ)
		nla_put_u32(msg, CTXCOUNT_SOURCE_A_IRQ, irq);
	if (hwirq)
		nla_put_u64(msg, CTXCOUNT_SOURCE_A_HWIRQ, *hwirq);
	if (name)
		nla_put_string(msg, CTXCOUNT_SOURCE_A_NAME, name);
	nla_put_u64(msg, CTXCOUNT_SOURCE_A_COUNT, count);
	nla_nest_end(msg, s);
}

/* A CPU nest: one event, and the handler runs there by source id. */
static void put_cpu(struct nl_msg *msg, uint32_t cpu, int id, uint64_t val,
		    uint64_t count)
{
	struct nlattr *c = nla_nest_start(msg, CTXCOUNT_A_CPU), *l;

	nla_put_u32(msg, CTXCOUNT_CPU_A_CPU, cpu);
	l = nla_nest_start(msg, CTXCOUNT_CPU_A_EVENTS);
	put_event(msg, 0, val, &id, &val, 1);
	nla_nest_end(msg, l);
	l = nla_nest_start(msg, CTXCOUNT_CPU_A_SOURCE_COUNTS);
	nla_put_u64(msg, id, count);
	nla_nest_end(msg, l);
	nla_nest_end(msg, c);
}

/* What an arm64 module would send: outside, an IPI, a device irq. */
static struct nl_msg *arm64_reply(int bad_id)
{
	static const int ids[] = { CTXCOUNT_SOURCE_ID_OUTSIDE, 3, 4 };
	static const uint64_t vals[] = { 30, 50, 20 };
	struct nl_msg *msg = read_reply();
	struct nlattr *l;
	uint64_t hw = 5;

	l = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	put_event(msg, 0, 100, ids, vals, 3);
	nla_nest_end(msg, l);
	put_cpu(msg, 0, 3, 50, 7);
	put_cpu(msg, 1, 4, 20, 2);
	l = nla_nest_start(msg, CTXCOUNT_A_SOURCES);
	put_source(msg, CTXCOUNT_SOURCE_ID_OUTSIDE, CTXCOUNT_SOURCE_KIND_OUTSIDE,
		   0, NULL, NULL, 0);
	put_source(msg, 3, CTXCOUNT_SOURCE_KIND_IRQ, 12, &hw, "IPI", 7);
	put_source(msg, bad_id ?: 4, CTXCOUNT_SOURCE_KIND_IRQ, 24, NULL,
		   "virtio0-input.0", 2);
	nla_nest_end(msg, l);
	return msg;
}

TEST(parse_source_nests)
{
	struct nl_msg *msg = arm64_reply(0);
	struct ctxc_cpu_val cv[4];
	struct ctxc_cpus cpus = { .cap = 4, .v = cv };
	struct ctxc_reply r;

	ASSERT_EQ(0, ctxc_parse_reply_cpus(nlmsg_hdr(msg), &r, &cpus));
	EXPECT_TRUE(r.has_sources);
	EXPECT_EQ(30, r.ev[0].src[CTXCOUNT_SOURCE_ID_OUTSIDE]);
	EXPECT_EQ(50, r.ev[0].src[3]);
	EXPECT_EQ(20, r.ev[0].src[4]);
	EXPECT_EQ(0, r.ev[0].src[CTXCOUNT_SOURCE_ID_OTHER]);
	EXPECT_TRUE(r.src[CTXCOUNT_SOURCE_ID_OUTSIDE].present);
	EXPECT_EQ(CTXCOUNT_SOURCE_KIND_OUTSIDE, r.src[CTXCOUNT_SOURCE_ID_OUTSIDE].kind);
	EXPECT_FALSE(r.src[CTXCOUNT_SOURCE_ID_OTHER].present);
	EXPECT_EQ(CTXCOUNT_SOURCE_KIND_IRQ, r.src[3].kind);
	EXPECT_EQ(12, r.src[3].irq);
	EXPECT_TRUE(r.src[3].has_hwirq);
	EXPECT_EQ(5, r.src[3].hwirq);
	EXPECT_STREQ("IPI", r.src[3].name);
	EXPECT_EQ(7, r.src[3].count);
	EXPECT_FALSE(r.src[4].has_hwirq);
	EXPECT_STREQ("virtio0-input.0", r.src[4].name);
	ASSERT_EQ(2, cpus.nr);
	EXPECT_EQ(50, cv[0].ev[0].src[3]);
	EXPECT_EQ(7, cv[0].src_count[3]);
	EXPECT_EQ(0, cv[0].src_count[4]);
	EXPECT_EQ(20, cv[1].ev[0].src[4]);
	EXPECT_EQ(2, cv[1].src_count[4]);
	nlmsg_free(msg);
}

/* An id beyond the protocol's makes the reply malformed, not short. */
TEST(parse_rejects_bad_source_id)
{
	struct nl_msg *msg = arm64_reply(CTXCOUNT_SOURCE_ID_MAX + 1);
	struct ctxc_reply r;

	EXPECT_EQ(-EINVAL, ctxc_parse_reply(nlmsg_hdr(msg), &r));
	nlmsg_free(msg);
	msg = arm64_reply(CTXCOUNT_SOURCE_ID_MAX);
	EXPECT_EQ(0, ctxc_parse_reply(nlmsg_hdr(msg), &r));
	nlmsg_free(msg);
}

/* A reply without sources (an older module, no flag) has none. */
TEST(parse_without_sources)
{
	struct nl_msg *msg = read_reply();
	struct ctxc_reply r;
	struct nlattr *l = nla_nest_start(msg, CTXCOUNT_A_EVENTS);

	put_event(msg, 0, 10, NULL, NULL, 0);
	nla_nest_end(msg, l);
	ASSERT_EQ(0, ctxc_parse_reply(nlmsg_hdr(msg), &r));
	EXPECT_FALSE(r.has_sources);
	EXPECT_EQ(10, r.ev[0].bucket[CTXCOUNT_BUCKET_HARDIRQ]);
	nlmsg_free(msg);
}

static const char arm64_interrupts[] =
	"           CPU0       CPU1       \n"
	" 11:      15512      14237     GICv3  27 Level     arch_timer\n"
	" 24:        310          0     GICv3  48 Edge      virtio0-input.0\n"
	"IPI0:       120        133       Rescheduling interrupts\n"
	"IPI5:        17          4       IRQ work interrupts\n"
	"IPI6:         0          0       CPU wake-up interrupts\n"
	"Err:          0\n";

TEST(ipi_descriptions)
{
	char buf[64];

	ASSERT_EQ(0, cxs_interrupts_ipi_desc(arm64_interrupts, 5, buf, sizeof(buf)));
	EXPECT_STREQ("IRQ work interrupts", buf);
	ASSERT_EQ(0, cxs_interrupts_ipi_desc(arm64_interrupts, 0, buf, sizeof(buf)));
	EXPECT_STREQ("Rescheduling interrupts", buf);
	ASSERT_EQ(0, cxs_interrupts_ipi_desc(arm64_interrupts, 6, buf, sizeof(buf)));
	EXPECT_STREQ("CPU wake-up interrupts", buf);
	EXPECT_EQ(-1, cxs_interrupts_ipi_desc(arm64_interrupts, 7, buf, sizeof(buf)));
	/* IPI1 is not IPI10's prefix */
	EXPECT_EQ(-1, cxs_interrupts_ipi_desc("IPI10:  3  Foo\n", 1, buf, sizeof(buf)));
	EXPECT_EQ(-1, cxs_interrupts_ipi_desc("", 5, buf, sizeof(buf)));
}

TEST(labels)
{
	struct cxs_source_row row = { .kind = CTXCOUNT_SOURCE_KIND_IRQ, .irq = 24 };
	char buf[CXS_SOURCE_LABEL_LEN];

	strcpy(row.name, "virtio0-input.0");
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq:24 virtio0-input.0", buf);
	row.name[0] = '\0';
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq:24", buf);
	strcpy(row.name, "IPI");
	row.irq = 12;
	row.has_hwirq = true;
	row.hwirq = 5;
	cxs_source_label(&row, "IRQ work interrupts", buf, sizeof(buf));
	EXPECT_STREQ("hardirq:IPI5 IRQ work interrupts", buf);
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq:IPI5", buf);
	/* a hardware number alone does not make an IPI */
	strcpy(row.name, "arch_timer");
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq:12 arch_timer", buf);
	row = (struct cxs_source_row){ .kind = CTXCOUNT_SOURCE_KIND_VECTOR,
				       .irq = 0xec };
	strcpy(row.name, "local_timer");
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq:local_timer", buf);
	row.kind = CTXCOUNT_SOURCE_KIND_OUTSIDE;
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq: outside handlers", buf);
	row.kind = CTXCOUNT_SOURCE_KIND_OTHER;
	cxs_source_label(&row, NULL, buf, sizeof(buf));
	EXPECT_STREQ("hardirq: other sources", buf);
}

/* A reply by hand: @n sources, ids from @first, irq 100 + k, value k + 1. */
static void reply_of(struct ctxc_reply *r, int first, int n, int irq0)
{
	int k, id;

	memset(r, 0, sizeof(*r));
	r->has_sources = true;
	for (k = 0; k < n; k++) {
		id = first + k;
		r->src[id] = (struct ctxc_source){
			.present = true, .kind = CTXCOUNT_SOURCE_KIND_IRQ,
			.irq = irq0 + k,
		};
		snprintf(r->src[id].name, sizeof(r->src[id].name), "dev%d",
			 irq0 + k);
		r->ev[0].src[id] = k + 1;
	}
}

/* The same source under another id in another session: the same row. */
TEST(learn_maps_by_source)
{
	static struct ctxc_reply r;
	static struct cxs_sources t;
	uint64_t rows[CXS_SOURCE_ROWS];

	cxs_sources_init(&t, NULL);
	reply_of(&r, CTXCOUNT_SOURCE_ID_FIRST, 2, 100);
	cxs_sources_learn(&t, &r);
	ASSERT_EQ(2, t.nr);
	EXPECT_STREQ("hardirq:100 dev100", t.row[0].label);
	EXPECT_STREQ("hardirq:101 dev101", t.row[1].label);
	/* next session: dev101 first, then a new one */
	reply_of(&r, CTXCOUNT_SOURCE_ID_FIRST, 2, 101);
	cxs_sources_learn(&t, &r);
	ASSERT_EQ(3, t.nr);
	EXPECT_EQ(1, t.map[CTXCOUNT_SOURCE_ID_FIRST]);
	EXPECT_EQ(2, t.map[CTXCOUNT_SOURCE_ID_FIRST + 1]);
	EXPECT_EQ(-1, t.map[CTXCOUNT_SOURCE_ID_FIRST + 2]);
	cxs_sources_by_row(&t, r.ev[0].src, rows);
	EXPECT_EQ(0, rows[0]);
	EXPECT_EQ(1, rows[1]);
	EXPECT_EQ(2, rows[2]);
}

/*
 * Undescribed ids with values: OUTSIDE and OTHER by their ids, a handler
 * into "other sources"; undescribed ids without values make no row.
 */
TEST(learn_undescribed_ids)
{
	static struct ctxc_reply r;
	static struct cxs_sources t;
	uint64_t rows[CXS_SOURCE_ROWS];

	cxs_sources_init(&t, NULL);
	memset(&r, 0, sizeof(r));
	r.ev[0].src[CTXCOUNT_SOURCE_ID_OUTSIDE] = 4;
	r.ev[2].src[9] = 6;
	cxs_sources_learn(&t, &r);
	ASSERT_EQ(2, t.nr);
	EXPECT_STREQ("hardirq: outside handlers", t.row[0].label);
	EXPECT_STREQ("hardirq: other sources", t.row[1].label);
	EXPECT_EQ(-1, t.map[CTXCOUNT_SOURCE_ID_OTHER]);
	r.ev[2].src[CTXCOUNT_SOURCE_ID_OTHER] = 1;
	cxs_sources_learn(&t, &r);
	EXPECT_EQ(2, t.nr);
	cxs_sources_by_row(&t, r.ev[2].src, rows);
	EXPECT_EQ(7, rows[1]);
}

/* More sources than rows: the rest go to the last row, "other sources". */
TEST(learn_overflow_to_other)
{
	static struct ctxc_reply r;
	static struct cxs_sources t;
	uint64_t rows[CXS_SOURCE_ROWS], sum = 0;
	int k, session;

	cxs_sources_init(&t, NULL);
	for (session = 0; session < 3; session++) {
		reply_of(&r, CTXCOUNT_SOURCE_ID_FIRST, CTXCOUNT_MAX_SOURCES,
			 1000 * session);
		cxs_sources_learn(&t, &r);
	}
	ASSERT_EQ(CXS_SOURCE_ROWS, t.nr);
	EXPECT_STREQ("hardirq: other sources", t.row[CXS_SOURCE_ROWS - 1].label);
	EXPECT_STREQ("hardirq:1062 dev1062", t.row[CXS_SOURCE_ROWS - 2].label);
	/* the third session's 64: one row, their sum */
	cxs_sources_by_row(&t, r.ev[0].src, rows);
	for (k = 1; k <= CTXCOUNT_MAX_SOURCES; k++)
		sum += k;
	EXPECT_EQ(sum, rows[CXS_SOURCE_ROWS - 1]);
}

/* arm64's IPIs get /proc/interrupts' description; read once per READ. */
TEST(learn_ipi_description)
{
	static struct ctxc_reply r;
	static struct cxs_sources t;
	char path[] = "/tmp/ctxstat-sources-XXXXXX";
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(arm64_interrupts),
		  write(fd, arm64_interrupts, strlen(arm64_interrupts)));
	close(fd);
	cxs_sources_init(&t, path);
	memset(&r, 0, sizeof(r));
	r.src[3] = (struct ctxc_source){ .present = true, .irq = 12,
		.kind = CTXCOUNT_SOURCE_KIND_IRQ, .has_hwirq = true, .hwirq = 5 };
	strcpy(r.src[3].name, "IPI");
	r.src[4] = r.src[3];
	r.src[4].hwirq = 9;
	cxs_sources_learn(&t, &r);
	ASSERT_EQ(2, t.nr);
	EXPECT_STREQ("hardirq:IPI5 IRQ work interrupts", t.row[0].label);
	EXPECT_STREQ("hardirq:IPI9", t.row[1].label);
	unlink(path);
	/* no /proc/interrupts: the number alone */
	cxs_sources_init(&t, path);
	cxs_sources_learn(&t, &r);
	EXPECT_STREQ("hardirq:IPI5", t.row[0].label);
}

/* Rows of a counter: one value per run, 0 before a row was first seen. */
TEST(counts_fill_earlier_runs)
{
	struct cxs_counter_values c = { 0 };
	uint64_t one[1] = { 7 }, two[2] = { 1, 5 };
	struct cxs_counter_reading rd = {
		.full = 100, .time_enabled = 1, .time_running = 1,
		.src = one, .nr_src = 1,
	};
	int order[2];

	ASSERT_EQ(0, cxs_counter_add(&c, &rd));
	rd.src = two;
	rd.nr_src = 2;
	ASSERT_EQ(0, cxs_counter_add(&c, &rd));
	ASSERT_EQ(2, c.nr_src);
	ASSERT_EQ(2, c.src[1].n);
	EXPECT_EQ(0, c.src[1].v[0]);
	EXPECT_EQ(5, c.src[1].v[1]);
	EXPECT_EQ(4, cxs_sample_mean(&c.src[0]));
	/* largest mean first */
	ASSERT_EQ(2, cxs_sources_order(&c, false, order));
	EXPECT_EQ(0, order[0]);
	EXPECT_EQ(1, order[1]);
	/* a run without the rows' values: 0 in each */
	rd.src = NULL;
	ASSERT_EQ(0, cxs_counter_add(&c, &rd));
	EXPECT_EQ(3, c.src[1].n);
	EXPECT_EQ(0, c.src[1].v[2]);
	cxs_counter_free(&c);
}

TEST(order_hides_zero_rows)
{
	struct cxs_counter_values c = { 0 };
	uint64_t v[4] = { 0, 3, 9, 3 };
	struct cxs_counter_reading rd = {
		.full = 100, .time_enabled = 1, .time_running = 1,
		.src = v, .nr_src = 4,
	};
	int order[4];

	ASSERT_EQ(0, cxs_counter_add(&c, &rd));
	ASSERT_EQ(3, cxs_sources_order(&c, false, order));
	EXPECT_EQ(2, order[0]);
	EXPECT_EQ(1, order[1]);	/* ties: first seen first */
	EXPECT_EQ(3, order[2]);
	ASSERT_EQ(4, cxs_sources_order(&c, true, order));
	EXPECT_EQ(0, order[3]);
	cxs_counter_free(&c);
}

/* A driver's name is quoted in CSV when needed, escaped in JSON. */
TEST(csv_json_names)
{
	static struct cxs_sources t;
	static struct fixture_data d;
	static struct ctxc_reply r;
	uint64_t rows[CXS_SOURCE_ROWS] = { 4, 6 };
	struct cxs_counter_reading rd = {
		.full = 100, .time_enabled = 1, .time_running = 1,
		.src = rows, .nr_src = 2,
	};
	char *out;

	cxs_sources_init(&t, NULL);
	memset(&r, 0, sizeof(r));
	r.src[3] = (struct ctxc_source){ .present = true, .irq = 9,
					   .kind = CTXCOUNT_SOURCE_KIND_IRQ };
	strcpy(r.src[3].name, "acpi, i2c\"x\"");
	r.src[4] = r.src[3];
	r.src[4].irq = 10;
	strcpy(r.src[4].name, "ahci");
	cxs_sources_learn(&t, &r);
	setup(&d, "instructions", 1);
	d.series.sources = &t;
	rd.bucket[CTXCOUNT_BUCKET_TASK] = 90;
	rd.bucket[CTXCOUNT_BUCKET_HARDIRQ] = 10;
	ASSERT_EQ(0, cxs_counter_add(&d.res[0], &rd));
	out = render(&d, CXS_OUTPUT_CSV, ",", true, 0);
	EXPECT_NE(NULL, strstr(out, "\n6,,instructions [hardirq:10 ahci],1,100.00,6.00,of all\n"
				   "4,,\"instructions [hardirq:9 acpi, i2c\"\"x\"\"]\",1,100.00,4.00,of all\n"))
		TH_LOG("%s", out);
	free(out);
	out = render(&d, CXS_OUTPUT_JSON, NULL, true, 0);
	EXPECT_NE(NULL, strstr(out, "\"event\" : \"instructions [hardirq:9 acpi, i2c\\\"x\\\"]\", "))
		TH_LOG("%s", out);
	free(out);
	out = render(&d, CXS_OUTPUT_STD, NULL, true, 0);
	EXPECT_NE(NULL, strstr(out, "                 6      instructions [hardirq:10 ahci]   #    6.00% of all"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

TEST_HARNESS_MAIN
