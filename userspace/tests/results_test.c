// SPDX-License-Identifier: GPL-2.0
/*
 * results tests: the strict JSON reader, the --save document written and
 * read back, refusals (wrong format, unknown version, values that do not
 * match the run count), and the report tables in text, CSV and Markdown.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "output/results-table.h"
#include "results/results.h"
#include "stats/ab-test.h"
#include "util/json.h"

static struct cxs_json *parse(const char *s, char *err)
{
	return cxs_json_parse(s, strlen(s), err, 160);
}

TEST(json_values)
{
	char err[160];
	struct cxs_json *j = parse(" {\"a\": [1, -2.5e3, true, false, null],"
				   " \"s\": \"x\\\"\\u00e9\\ud83d\\ude00\\n\"} ", err);
	const struct cxs_json *a, *s;

	ASSERT_NE(NULL, j) TH_LOG("%s", err);
	a = cxs_json_get(j, "a");
	ASSERT_NE(NULL, a);
	ASSERT_EQ(5, a->nr);
	EXPECT_EQ(1.0, a->items[0]->num);
	EXPECT_EQ(-2500.0, a->items[1]->num);
	EXPECT_TRUE(a->items[2]->b);
	EXPECT_EQ(CXS_JSON_BOOL, a->items[3]->type);
	EXPECT_FALSE(a->items[3]->b);
	EXPECT_EQ(CXS_JSON_NULL, a->items[4]->type);
	s = cxs_json_get(j, "s");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("x\"\xc3\xa9\xf0\x9f\x98\x80\n", s->str);
	EXPECT_EQ(NULL, cxs_json_get(j, "b"));
	cxs_json_free(j);
}

TEST(json_strict)
{
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":1,}", "{a:1}", "[01]", "[1.]", "[.5]",
		"[1e]", "[+1]", "\"\\x\"", "\"a\nb\"", "[1] 2", "[tru]",
		"{\"a\":1,\"a\":2}", "\"\\u0000\"", "\"\\udc00\"", "[1e999]",
		"/* c */ 1", "[NaN]",
	};
	char err[160];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cxs_json *j = parse(bad[i], err);

		EXPECT_EQ(NULL, j) TH_LOG("accepted: %s", bad[i]);
		cxs_json_free(j);
		EXPECT_EQ(0, strncmp(err, "line ", 5)) TH_LOG("%s", err);
	}
	EXPECT_EQ(NULL, parse("{\n\"a\":\n[1,\n]}", err));
	EXPECT_STREQ("line 4: unexpected character ']'", err);
}

/* One benchmark, two configurations, as ctxstat compare --save writes. */
static char *write_doc(void)
{
	static double base_v[] = { 2000153, 2000161, 2000149, 2000170, 2000158 };
	static double plus_v[] = { 2100160, 2100152, 2100171, 2100149, 2100163 };
	static double same_v[] = { 1000, 1010, 990, 1005, 995 };
	static double ns[] = { 1e6, 1.1e6, 1e6, 1e6, 1.2e6 };
	static char *cmd[] = { "./loop", "a \"quoted\" arg", NULL };
	struct cxs_result_event ea[] = {
		{ "instructions:t", cxs_sample_view(base_v, 5), NULL },
		{ "cs", cxs_sample_view(same_v, 5), NULL },
		{ "cycles", cxs_sample_view(NULL, 0), "Operation not supported" },
	};
	struct cxs_result_event eb[] = {
		{ "instructions:t", cxs_sample_view(plus_v, 5), NULL },
		{ "cs", cxs_sample_view(same_v, 5), NULL },
		{ "cycles", cxs_sample_view(NULL, 0), "Operation not supported" },
	};
	struct cxs_result r[] = {
		{ "loop", "base", cmd, cxs_sample_view(ns, 5), ea, 3, NULL },
		{ "loop", "patched", cmd, cxs_sample_view(ns, 5), eb, 3, NULL },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (cxs_results_write(f, r, 2))
		abort();
	fclose(f);
	return buf;
}

TEST(save_and_read_back)
{
	struct cxs_result_set set = { 0 };
	char *doc = write_doc(), err[256];

	TH_LOG("%s", doc);
	EXPECT_NE(NULL, strstr(doc, "\"format\": \"ctxstat-results\""));
	EXPECT_NE(NULL, strstr(doc, "\"version\": 1"));
	EXPECT_NE(NULL, strstr(doc, "\"a \\\"quoted\\\" arg\""));
	ASSERT_EQ(0, cxs_results_parse(&set, "doc", doc, strlen(doc), err,
				       sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(2, set.nr);
	EXPECT_STREQ("loop", set.r[0].benchmark);
	EXPECT_STREQ("patched", set.r[1].config);
	EXPECT_STREQ("a \"quoted\" arg", set.r[0].command[1]);
	EXPECT_EQ(NULL, set.r[0].command[2]);
	ASSERT_EQ(3, set.r[1].nr_ev);
	EXPECT_STREQ("instructions:t", set.r[1].ev[0].name);
	ASSERT_EQ(5, set.r[1].ev[0].values.n);
	EXPECT_EQ(2100171.0, set.r[1].ev[0].values.v[2]);
	EXPECT_EQ(1.2e6, set.r[1].elapsed_ns.v[4]);
	EXPECT_STREQ("Operation not supported", set.r[0].ev[2].error);
	EXPECT_EQ(0, set.r[0].ev[2].values.n);
	cxs_results_free(&set);
	free(doc);
}

/* The saved outliers: |x - median| > 3 x 1.4826 x MAD, indices from 0. */
TEST(saved_outliers)
{
	static double v[] = { 100, 101, 99, 100, 180, 100 };
	struct cxs_result_event e = { "cs", cxs_sample_view(v, 6), NULL };
	static double ns[] = { 1, 1, 1, 1, 1, 1 };
	struct cxs_result r = { "b", "c", NULL, cxs_sample_view(ns, 6), &e, 1, NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_EQ(0, cxs_results_write(f, &r, 1));
	fclose(f);
	EXPECT_NE(NULL, strstr(buf, "\"outliers\": [4]")) TH_LOG("%s", buf);
	free(buf);
}

static int parse_doc(const char *doc, char *err, size_t len)
{
	struct cxs_result_set set = { 0 };
	int ret = cxs_results_parse(&set, "f.json", doc, strlen(doc), err, len);

	cxs_results_free(&set);
	return ret;
}

TEST(refusals)
{
	char err[256];

	EXPECT_EQ(-1, parse_doc("{\"format\": \"perf\", \"version\": 1, \"results\": []}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "f.json: not a ctxstat results file"));
	EXPECT_EQ(-1, parse_doc("{\"format\": \"ctxstat-results\", \"version\": 2, \"results\": []}", err, sizeof(err)));
	EXPECT_STREQ("f.json: results format version 2, this ctxstat reads 1", err);
	EXPECT_EQ(-1, parse_doc("{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": ["
				"{\"benchmark\": \"b\", \"config\": \"c\", \"command\": [], \"runs\": 2,"
				" \"elapsed_ns\": [1, 2], \"events\": [{\"name\": \"x\", \"values\": [1]}]}]}",
				err, sizeof(err)));
	EXPECT_STREQ("f.json: results[0].events[0]: 1 values for 2 runs", err);
	EXPECT_EQ(-1, parse_doc("{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": ["
				"{\"benchmark\": 3}]}", err, sizeof(err)));
	EXPECT_STREQ("f.json: results[0]: \"benchmark\" must be a string", err);
	EXPECT_EQ(-1, parse_doc("[", err, sizeof(err)));
	EXPECT_STREQ("f.json: line 1: unexpected end of input", err);
	EXPECT_EQ(0, parse_doc("{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": []}", err, sizeof(err)));
}

static char *table(enum cxs_table_format fmt, const char *sep)
{
	struct cxs_result_set set = { 0 };
	char *doc = write_doc(), err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (cxs_results_parse(&set, "doc", doc, strlen(doc), err, sizeof(err)))
		abort();
	f = open_memstream(&buf, &len);
	cxs_results_table(f, fmt, sep, CXS_THRESHOLD_PCT, &set);
	fclose(f);
	cxs_results_free(&set);
	free(doc);
	return buf;
}

/*
 * base: mean 2000158.2, squared deviations 27.04 + 7.84 + 84.64 + 139.24 +
 * 0.04 = 258.8, sd sqrt(258.8 / 4) = 8.0436, se 3.5972 (perf's +-, as in
 * compare; it was the 95 % CI, 9.9875); patched: mean 2100159, squared
 * deviations 1 + 49 + 144 + 100 + 16 = 310, se sqrt(310 / 4 / 5) =
 * 3.937, change +4.9996 %: more; cs the same values, se sqrt(250 / 20):
 * +0.00 %, no verdict word. Figures in compare's words: 4 significant
 * digits for the mean, 3 for se. (C locale here.)
 */
TEST(report_text)
{
	char *t = table(CXS_TABLE_TEXT, NULL);

	TH_LOG("\n%s", t);
	EXPECT_NE(NULL, strstr(t, "benchmark  event                    base                      patched\n"));
	EXPECT_NE(NULL, strstr(t, "\nloop       instructions:t  2.000M ± 3.60  2.100M ± 3.94 (+5.00% more)\n"));
	EXPECT_NE(NULL, strstr(t, "\nloop       cs              1.000k ± 3.54       1.000k ± 3.54 (+0.00%)\n"));
	EXPECT_NE(NULL, strstr(t, "<not counted>"));
	free(t);
}

TEST(report_csv)
{
	char *t = table(CXS_TABLE_CSV, ";");
	char *line2;

	static const char head[] =
		"benchmark;event;base mean;base se;base runs;patched mean;patched se;"
		"patched runs;patched change%;patched p (Holm);patched verdict\n";

	EXPECT_EQ(0, strncmp(t, head, strlen(head))) TH_LOG("%s", t);
	line2 = strchr(t, '\n') + 1;
	EXPECT_EQ(0, strncmp(line2, "loop;instructions:t;2000158.2;3.59722", 37)) TH_LOG("%s", line2);
	EXPECT_NE(NULL, strstr(line2, ";5;2100159;")) TH_LOG("%s", line2);
	EXPECT_NE(NULL, strstr(line2, ";5;4.9996;")) TH_LOG("%s", line2);
	EXPECT_NE(NULL, strstr(line2, ";more\n")) TH_LOG("%s", line2);
	EXPECT_NE(NULL, strstr(t, "\nloop;cs;1000;3.53553390593274;5;1000;3.53553390593274;5;0.0000;1;no significant change\n"));
	EXPECT_NE(NULL, strstr(t, "loop;cycles;;;;;;;;;\n"));
	free(t);
}

TEST(report_markdown)
{
	char *t = table(CXS_TABLE_MARKDOWN, NULL);

	EXPECT_NE(NULL, strstr(t, "| benchmark | event          |")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "|-----------|----------------|")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, ":|\n")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "| loop      | instructions:t |")) TH_LOG("%s", t);
	free(t);
}

/*
 * Under a comma-decimal locale the saved document is still JSON (decimal
 * points) and reads back exactly: values written with %.17g and read
 * with strtod would otherwise turn 1.5 into "1,5" and 1004.5 into 1004.
 */
TEST(comma_locale_save_and_read_back)
{
	static const char doc[] =
		"{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
		" {\"benchmark\": \"b\", \"config\": \"c\", \"command\": [], \"runs\": 2,"
		"  \"elapsed_ns\": [1.5, 2.25],"
		"  \"events\": [{\"name\": \"cycles\", \"values\": [1.01e9, 1004.5]}]}]}\n";
	struct cxs_result_set set = { 0 };
	const char *why = comma_locale();
	char err[256], *out;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, cxs_results_parse(&set, "doc", doc, strlen(doc), err,
				       sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1.01e9, set.r[0].ev[0].values.v[0]);
	EXPECT_EQ(1004.5, set.r[0].ev[0].values.v[1]);
	EXPECT_EQ(2.25, set.r[0].elapsed_ns.v[1]);
	cxs_results_free(&set);
	out = write_doc();
	EXPECT_NE(NULL, strstr(out, "\"elapsed_ns\": [1000000, 1100000, 1000000, 1000000, 1200000]"));
	EXPECT_NE(NULL, strstr(out, "\"mean\": 2000158.2, ")) TH_LOG("%s", out);
	free(out);
	out = table(CXS_TABLE_CSV, ";");
	EXPECT_NE(NULL, strstr(out, "loop;instructions:t;2000158.2;3.59722")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ";5;4.9996;")) TH_LOG("%s", out);
	free(out);
}

static const char dup_doc[] =
	"{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
	" {\"benchmark\": \"hackbench\", \"config\": \"6.1\", \"command\": [],"
	"  \"runs\": 1, \"elapsed_ns\": [1], \"events\": []}]}\n";

/* A (benchmark, configuration) pair in two files: an error naming both. */
TEST(duplicate_pairs_refused)
{
	struct cxs_result_set set = { 0 };
	char err[256];

	ASSERT_EQ(0, cxs_results_parse(&set, "a.json", dup_doc, strlen(dup_doc),
				       err, sizeof(err)));
	ASSERT_EQ(0, cxs_results_parse(&set, "b.json", dup_doc, strlen(dup_doc),
				       err, sizeof(err)));
	EXPECT_EQ(-1, cxs_results_check_unique(&set, err, sizeof(err)));
	EXPECT_STREQ("benchmark 'hackbench', configuration '6.1': in a.json and in b.json (one of them needs another --label or --name)", err);
	cxs_results_free(&set);
	ASSERT_EQ(0, cxs_results_parse(&set, "a.json", dup_doc, strlen(dup_doc),
				       err, sizeof(err)));
	EXPECT_EQ(0, cxs_results_check_unique(&set, err, sizeof(err)));
	cxs_results_free(&set);
}

/* Split one RFC 4180 record at @sep: the fields, unquoted, in @f. */
static int csv_split(const char *line, char sep, char f[][64], int max)
{
	int n = 0, k;

	while (n < max) {
		k = 0;
		if (*line == '"') {
			for (line++; *line && !(line[0] == '"' && line[1] != '"'); line++) {
				if (*line == '"')
					line++;
				f[n][k++] = *line;
			}
			line++;
		} else {
			while (*line && *line != sep && *line != '\n')
				f[n][k++] = *line++;
		}
		f[n++][k] = '\0';
		if (*line != sep)
			break;
		line++;
	}
	return n;
}

/* A benchmark named with the separator and quotes stays one field. */
TEST(report_csv_quoted)
{
	static const char doc[] =
		"{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
		" {\"benchmark\": \"hackbench, 5 \\\"groups\\\"\", \"config\": \"a,b\", \"command\": [],"
		"  \"runs\": 2, \"elapsed_ns\": [1, 1],"
		"  \"events\": [{\"name\": \"cs\", \"values\": [10, 12]}]}]}\n";
	struct cxs_result_set set = { 0 };
	char err[256], *buf = NULL, f[8][64], *line;
	size_t len = 0;
	FILE *out;

	ASSERT_EQ(0, cxs_results_parse(&set, "doc", doc, strlen(doc), err,
				       sizeof(err))) TH_LOG("%s", err);
	out = open_memstream(&buf, &len);
	cxs_results_table(out, CXS_TABLE_CSV, ",", CXS_THRESHOLD_PCT, &set);
	fclose(out);
	TH_LOG("%s", buf);
	EXPECT_EQ(5, csv_split(buf, ',', f, 8));
	EXPECT_STREQ("a,b mean", f[2]);
	line = strchr(buf, '\n') + 1;
	ASSERT_EQ(5, csv_split(line, ',', f, 8));
	EXPECT_STREQ("hackbench, 5 \"groups\"", f[0]);
	EXPECT_STREQ("cs", f[1]);
	EXPECT_STREQ("11", f[2]);
	EXPECT_EQ(0, strncmp(line, "\"hackbench, 5 \"\"groups\"\"\",cs,11,", 30)) TH_LOG("%s", line);
	free(buf);
	cxs_results_free(&set);
}

static char *report_of(const char *doc, enum cxs_table_format fmt)
{
	struct cxs_result_set set = { 0 };
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *out;

	if (cxs_results_parse(&set, "doc", doc, strlen(doc), err, sizeof(err)))
		return NULL;
	out = open_memstream(&buf, &len);
	cxs_results_table(out, fmt, fmt == CXS_TABLE_CSV ? "," : NULL,
			  CXS_THRESHOLD_PCT, &set);
	fclose(out);
	cxs_results_free(&set);
	return buf;
}

/*
 * A task-clock and a count, B 1.0001 % and 0.995 % above A. Means:
 * 2999627.1 / 3 = 999875.7 ns and 3029627.1 / 3 = 1009875.7 ns; 1005 and
 * 1015.
 */
static const char near_doc[] =
	"{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
	" {\"benchmark\": \"b\", \"config\": \"A\", \"command\": [], \"runs\": 3,"
	"  \"elapsed_ns\": [1, 1, 1], \"events\": ["
	"  {\"name\": \"task-clock\", \"values\": [999876.7, 999900.1, 999850.3]},"
	"  {\"name\": \"instructions\", \"values\": [1000, 1010, 1005]}]},\n"
	" {\"benchmark\": \"b\", \"config\": \"B\", \"command\": [], \"runs\": 3,"
	"  \"elapsed_ns\": [1, 1, 1], \"events\": ["
	"  {\"name\": \"task-clock\", \"values\": [1009876.7, 1009900.1, 1009850.3]},"
	"  {\"name\": \"instructions\", \"values\": [1010, 1020, 1015]}]}]}\n";

/*
 * A change is printed with the decimals that keep it on its side of the
 * threshold: 0.995 % is not "+1.00%" beside a 1.0001 % "+1.00% slower",
 * which read as one figure called two ways.
 */
TEST(report_change_near_threshold)
{
	char *t = report_of(near_doc, CXS_TABLE_TEXT);

	ASSERT_NE(NULL, t);
	TH_LOG("\n%s", t);
	EXPECT_NE(NULL, strstr(t, "1.015k ± 2.89 (+0.995%)\n")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, " (+1.00% slower)\n")) TH_LOG("%s", t);
	free(t);
}

/*
 * CSV as compare writes it: clocks in msec, as both text tables show
 * them and perf stat counts them, and figures of 15 significant digits
 * (the mean 999875.7 ns, not 999875.69999999984).
 */
TEST(report_csv_units_and_digits)
{
	char *t = report_of(near_doc, CXS_TABLE_CSV);

	ASSERT_NE(NULL, t);
	EXPECT_NE(NULL, strstr(t, "\nb,task-clock,0.9998757,")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, ",3,1.0098757,")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, "\nb,instructions,1005,2.88675134594813,3,1015,")) TH_LOG("%s", t);
	free(t);
}

/*
 * A name that is not UTF-8 (a command's argv is bytes): the document stays
 * JSON, each byte that starts no valid UTF-8 sequence (a stray
 * continuation, an overlong form, a surrogate) written as U+FFFD, valid
 * sequences as they are. It reads back.
 */
TEST(json_string_not_utf8)
{
	static const char name[] = "a\xff\xc3\xa9\xc0\xaf\xed\xa0\x80\xe2\x82\xac\xf0\x9f\x98\x80\x80z";
	char *buf = NULL, err[160];
	struct cxs_json *j;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cxs_json_write_string(f, name);
	fclose(f);
	EXPECT_STREQ("\"a\\ufffd\xc3\xa9\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
		     "\xe2\x82\xac\xf0\x9f\x98\x80\\ufffdz\"", buf);
	j = parse(buf, err);
	ASSERT_NE(NULL, j) TH_LOG("%s", err);
	EXPECT_STREQ("a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
		     "\xef\xbf\xbd\xef\xbf\xbd\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbdz",
		     j->str);
	cxs_json_free(j);
	free(buf);
}

/*
 * Markdown: a newline or tab in a name would split the row or shift its
 * cells; they are written as \n and \t, other control bytes as \xNN,
 * and the columns still line up.
 */
TEST(report_markdown_control_characters)
{
	static const char doc[] =
		"{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n"
		" {\"benchmark\": \"two\\nlines\\tand\\u0001\", \"config\": \"c\", \"command\": [],"
		"  \"runs\": 2, \"elapsed_ns\": [1, 1],"
		"  \"events\": [{\"name\": \"cs\", \"values\": [10, 12]}]}]}\n";
	struct cxs_result_set set = { 0 };
	char err[256], *buf = NULL, *line;
	size_t len = 0, width = 0, rows = 0;
	FILE *out;

	ASSERT_EQ(0, cxs_results_parse(&set, "doc", doc, strlen(doc), err,
				       sizeof(err))) TH_LOG("%s", err);
	out = open_memstream(&buf, &len);
	cxs_results_table(out, CXS_TABLE_MARKDOWN, NULL, CXS_THRESHOLD_PCT, &set);
	fclose(out);
	TH_LOG("\n%s", buf);
	EXPECT_NE(NULL, strstr(buf, "| two\\nlines\\tand\\x01 | cs ")) TH_LOG("%s", buf);
	/* The table's lines, up to the legend's blank line, in characters. */
	for (line = buf; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
		size_t bytes = strchr(line, '\n') - line, n = 0, i;

		for (i = 0; i < bytes; i++)
			n += ((unsigned char)line[i] & 0xc0) != 0x80;
		EXPECT_EQ('|', line[0]) TH_LOG("%.*s", (int)bytes, line);
		if (!width)
			width = n;
		EXPECT_EQ(width, n) TH_LOG("%.*s", (int)bytes, line);
		rows++;
	}
	EXPECT_EQ(3, rows);
	free(buf);
	cxs_results_free(&set);
}

TEST_HARNESS_MAIN
