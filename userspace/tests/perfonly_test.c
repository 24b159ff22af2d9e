// SPDX-License-Identifier: GPL-2.0
/*
 * perf-only tests: the table of perf's options that ctxstat lacks
 * (options/perf-only.c) is perf 6.1's stat_options less ctxstat's own,
 * every entry says what to use instead, the parser names each with that
 * text, and ctxstat.1's section PERF OPTIONS NOT SUPPORTED is what the
 * table generates (make -C userspace man), so the page cannot drift.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "options/args.h"
#include "options/perf-only.h"
#include "tests/perf_only_man.h"

/*
 * perf 6.1's stat_options (tools/perf/builtin-stat.c), in its order, with
 * --no-scale, the negation perf's parser makes of --scale. arg: 1 takes a
 * value, 0 none or an optional one.
 */
static const struct {
	const char *name;
	char letter;
	int arg;
} perf61[] = {
	{ "transaction", 'T', 0 }, { "event", 'e', 1 }, { "filter", 0, 1 },
	{ "no-inherit", 'i', 0 }, { "pid", 'p', 1 }, { "tid", 't', 1 },
	{ "bpf-prog", 'b', 1 }, { "bpf-counters", 0, 0 },
	{ "bpf-attr-map", 0, 1 }, { "all-cpus", 'a', 0 }, { "group", 'g', 0 },
	{ "scale", 0, 0 }, { "no-scale", 0, 0 }, { "verbose", 'v', 0 },
	{ "repeat", 'r', 1 }, { "table", 0, 0 }, { "null", 'n', 0 },
	{ "detailed", 'd', 0 }, { "sync", 'S', 0 }, { "big-num", 'B', 0 },
	{ "cpu", 'C', 1 }, { "no-aggr", 'A', 0 }, { "no-merge", 0, 0 },
	{ "hybrid-merge", 0, 0 }, { "field-separator", 'x', 1 },
	{ "json-output", 'j', 0 }, { "cgroup", 'G', 1 },
	{ "for-each-cgroup", 0, 1 }, { "output", 'o', 1 }, { "append", 0, 0 },
	{ "log-fd", 0, 1 }, { "pre", 0, 1 }, { "post", 0, 1 },
	{ "interval-print", 'I', 1 }, { "interval-count", 0, 1 },
	{ "interval-clear", 0, 0 }, { "timeout", 0, 1 },
	{ "per-socket", 0, 0 }, { "per-die", 0, 0 }, { "per-core", 0, 0 },
	{ "per-thread", 0, 0 }, { "per-node", 0, 0 }, { "delay", 'D', 1 },
	{ "metric-only", 0, 0 }, { "metric-no-group", 0, 0 },
	{ "metric-no-merge", 0, 0 }, { "topdown", 0, 0 }, { "td-level", 0, 1 },
	{ "smi-cost", 0, 0 }, { "metrics", 'M', 1 }, { "all-kernel", 0, 0 },
	{ "all-user", 0, 0 }, { "percore-show-thread", 0, 0 },
	{ "summary", 0, 0 }, { "no-csv-summary", 0, 0 }, { "quiet", 0, 0 },
	{ "cputype", 0, 1 }, { "pfm-events", 0, 1 }, { "control", 0, 1 },
	{ "iostat", 0, 0 },
};

static const struct cxs_perf_only *in_table(const char *name)
{
	size_t i;

	for (i = 0; i < cxs_nr_perf_only; i++)
		if (!strcmp(cxs_perf_only[i].name, name))
			return &cxs_perf_only[i];
	return NULL;
}

/* cxs_args_read() of "ctxstat OPT [VALUE] true". */
static int read_one(struct cxs_args *a, const char *opt, int arg,
		    char *err, size_t errlen)
{
	char *argv[] = { "ctxstat", (char *)opt, arg ? "1" : "true",
			 "true", NULL };

	return cxs_args_read(a, arg ? 4 : 3, argv, err, errlen);
}

/*
 * Every entry says what to use instead, or that there is nothing and
 * why: a text of its own, no final period (it ends a message in
 * parentheses), one line, and the whole message fits ctxstat's buffer.
 */
TEST(every_entry_says_what_instead)
{
	char err[256], want[512];
	size_t i, j, n;

	ASSERT_LT(20, cxs_nr_perf_only);
	for (i = 0; i < cxs_nr_perf_only; i++) {
		const struct cxs_perf_only *p = &cxs_perf_only[i];

		ASSERT_NE(NULL, p->instead) TH_LOG("--%s has no instead text", p->name);
		n = strlen(p->instead);
		EXPECT_LT(10, n) TH_LOG("--%s: '%s' says nothing", p->name, p->instead);
		EXPECT_EQ(NULL, strchr(p->instead, '\n')) TH_LOG("--%s", p->name);
		EXPECT_NE('.', p->instead[n - 1]) TH_LOG("--%s: a final period", p->name);
		EXPECT_FALSE(isupper((unsigned char)p->instead[0])) TH_LOG("--%s", p->name);
		snprintf(want, sizeof(want),
			 "perf option not supported by ctxstat: --%s (%s)",
			 p->name, p->instead);
		EXPECT_EQ(-1, cxs_perf_only_err(p, err, sizeof(err)));
		EXPECT_STREQ(want, err);
		EXPECT_GT(sizeof(err) - 1, strlen(want)) TH_LOG("--%s: too long", p->name);
		for (j = 0; j < i; j++) {
			EXPECT_STRNE(p->name, cxs_perf_only[j].name);
			if (p->letter)
				EXPECT_NE(p->letter, cxs_perf_only[j].letter);
		}
	}
}

/* The parser names each of them, long and short, with that text. */
TEST(parser_names_each_with_its_text)
{
	char err[256], want[256], opt[64];
	struct cxs_args a;
	size_t i;

	for (i = 0; i < cxs_nr_perf_only; i++) {
		const struct cxs_perf_only *p = &cxs_perf_only[i];
		int arg = p->has_arg == required_argument;

		cxs_perf_only_err(p, want, sizeof(want));
		snprintf(opt, sizeof(opt), "--%s", p->name);
		EXPECT_EQ(-1, read_one(&a, opt, arg, err, sizeof(err)));
		EXPECT_TRUE(a.perf_only) TH_LOG("%s", opt);
		EXPECT_STREQ(want, err);
		if (!p->letter)
			continue;
		snprintf(opt, sizeof(opt), "-%c", p->letter);
		EXPECT_EQ(-1, read_one(&a, opt, arg, err, sizeof(err)));
		EXPECT_TRUE(a.perf_only) TH_LOG("%s", opt);
		EXPECT_STREQ(want, err);
	}
}

/*
 * The table is perf 6.1's options less ctxstat's: each of perf's is
 * either ctxstat's (taken, or refused for its value or its company, but
 * known) or the table's, with perf's letter; the table has nothing else.
 */
TEST(table_is_perf_61_less_ctxstat)
{
	const struct cxs_perf_only *p;
	char err[256], opt[64];
	struct cxs_args a;
	size_t i, j, found = 0;

	for (i = 0; i < ARRAY_SIZE(perf61); i++) {
		snprintf(opt, sizeof(opt), "--%s", perf61[i].name);
		read_one(&a, opt, perf61[i].arg, err, sizeof(err));
		p = in_table(perf61[i].name);
		if (!p) {
			EXPECT_FALSE(a.perf_only) TH_LOG("%s", opt);
			EXPECT_NE(0, strncmp(err, "unknown option", 14))
				TH_LOG("perf's %s is neither ctxstat's nor in options/perf-only.c", opt);
			EXPECT_NE(0, strncmp(err, "Ambiguous option", 16)) TH_LOG("%s", opt);
			continue;
		}
		found++;
		EXPECT_TRUE(a.perf_only) TH_LOG("%s", opt);
		EXPECT_EQ(perf61[i].letter, p->letter) TH_LOG("%s", opt);
		EXPECT_EQ(perf61[i].arg, p->has_arg == required_argument) TH_LOG("%s", opt);
	}
	for (j = 0; j < cxs_nr_perf_only; j++) {
		for (i = 0; i < ARRAY_SIZE(perf61); i++)
			if (!strcmp(perf61[i].name, cxs_perf_only[j].name))
				break;
		EXPECT_GT(ARRAY_SIZE(perf61), i)
			TH_LOG("--%s is in options/perf-only.c but not perf 6.1's", cxs_perf_only[j].name);
	}
	EXPECT_EQ(cxs_nr_perf_only, found);
}

static char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	FILE *in = fopen(path, "r"), *mem = open_memstream(&buf, len);
	int c;

	if (!in || !mem)
		return NULL;
	while ((c = getc(in)) != EOF)
		putc(c, mem);
	fclose(in);
	fclose(mem);
	return buf;
}

/* Line @n (from 1) of @s, up to its newline, into @out. */
static const char *line_of(const char *s, size_t n, char *out, size_t len)
{
	for (; n > 1 && s; n--) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	snprintf(out, len, "%.*s", s ? (int)strcspn(s, "\n") : 0, s ? s : "");
	return out;
}

/*
 * The committed ctxstat.1 is what the table generates: the section is
 * written by make -C userspace man, never by hand.
 */
TEST(committed_page_is_generated)
{
	char err[256], *page, *made = NULL, have[256], want[256];
	size_t len, made_len, i, line = 1;
	FILE *mem;

	page = slurp(CXS_MAN_PAGE, &len);
	ASSERT_NE(NULL, page) TH_LOG("%s", CXS_MAN_PAGE);
	mem = open_memstream(&made, &made_len);
	ASSERT_NE(NULL, mem);
	EXPECT_EQ(0, cxs_perf_only_splice(page, len, mem, err, sizeof(err)))
		TH_LOG("%s: %s", CXS_MAN_PAGE, err);
	fclose(mem);
	for (i = 0; i < len && i < made_len && page[i] == made[i]; i++)
		line += page[i] == '\n';
	EXPECT_TRUE(len == made_len && i == len)
		TH_LOG("ctxstat.1's PERF OPTIONS NOT SUPPORTED is not what options/perf-only.c generates: run make -C userspace man (line %zu: '%s', generated: '%s')",
		       line, line_of(page, line, have, sizeof(have)),
		       line_of(made, line, want, sizeof(want)));
	free(made);
	free(page);
}

/* Every option has a tag; a text shared by several is one paragraph. */
TEST(roff_names_every_option_once)
{
	char *roff = NULL, *tags = NULL, tag[96];
	size_t len, tags_len, i;
	FILE *mem = open_memstream(&roff, &len), *tmem;
	const char *at, *nl;

	ASSERT_NE(NULL, mem);
	ASSERT_EQ(0, cxs_perf_only_roff(mem));
	fclose(mem);
	/* the tag lines, each after a .TP */
	tmem = open_memstream(&tags, &tags_len);
	ASSERT_NE(NULL, tmem);
	for (at = strstr(roff, "\n.TP\n"); at; at = strstr(at, "\n.TP\n")) {
		at += 5;
		nl = strchr(at, '\n');
		fprintf(tmem, "%.*s\n", (int)(nl ? nl - at : (long)strlen(at)), at);
	}
	fclose(tmem);
	for (i = 0; i < cxs_nr_perf_only; i++) {
		const char *s = cxs_perf_only[i].name;
		char *t = tag + sprintf(tag, "\\fB\\-\\-");

		for (; *s; s++)
			t += *s == '-' ? sprintf(t, "\\-") : sprintf(t, "%c", *s);
		sprintf(t, "\\fR");
		at = strstr(tags, tag);
		EXPECT_NE(NULL, at) TH_LOG("no tag %s in the section", tag);
		if (at)
			EXPECT_EQ(NULL, strstr(at + 1, tag)) TH_LOG("tag %s twice", tag);
	}
	/* the metric options share a paragraph: their text once */
	at = strstr(roff, "no metrics:");
	ASSERT_NE(NULL, at);
	EXPECT_EQ(NULL, strstr(at + 1, "no metrics:"));
	/* a dash in the text is a minus, an option in it bold */
	EXPECT_NE(NULL, strstr(roff, "use \\%\\fB\\-p\\fR pid \\%\\fB\\-\\-per\\-thread\\fR,"));
	/* code not hyphenated, but broken after its commas */
	EXPECT_NE(NULL, strstr(roff, " \\%cycles:k,\\:instructions:k\n"));
	EXPECT_EQ(NULL, strstr(roff, "\n.\n"));
	free(tags);
	free(roff);
}

TEST(splice_needs_both_markers_once)
{
	const char ok[] = ".SH A\n" CXS_PERF_ONLY_BEGIN "\nold\n" CXS_PERF_ONLY_END "\n.SH B\n";
	const char none[] = ".SH A\n.SH B\n";
	const char twice[] = CXS_PERF_ONLY_BEGIN "\n" CXS_PERF_ONLY_END "\n"
		CXS_PERF_ONLY_BEGIN "\n" CXS_PERF_ONLY_END "\n";
	const char reversed[] = CXS_PERF_ONLY_END "\n" CXS_PERF_ONLY_BEGIN "\n";
	char err[256], *out = NULL;
	size_t len;
	FILE *mem = open_memstream(&out, &len);

	ASSERT_NE(NULL, mem);
	EXPECT_EQ(0, cxs_perf_only_splice(ok, sizeof(ok) - 1, mem, err, sizeof(err)));
	fflush(mem);
	EXPECT_EQ(0, strncmp(out, ".SH A\n" CXS_PERF_ONLY_BEGIN "\nThese options of\n", 6 + sizeof(CXS_PERF_ONLY_BEGIN) + 17));
	EXPECT_EQ(NULL, strstr(out, "old"));
	EXPECT_NE(NULL, strstr(out, "\n" CXS_PERF_ONLY_END "\n.SH B\n"));
	EXPECT_EQ(-1, cxs_perf_only_splice(none, sizeof(none) - 1, mem, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "BEGIN perf-only"));
	EXPECT_EQ(-1, cxs_perf_only_splice(twice, sizeof(twice) - 1, mem, err, sizeof(err)));
	EXPECT_EQ(-1, cxs_perf_only_splice(reversed, sizeof(reversed) - 1, mem, err, sizeof(err)));
	fclose(mem);
	free(out);
}

TEST_HARNESS_MAIN
