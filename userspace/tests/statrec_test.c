// SPDX-License-Identifier: GPL-2.0
/*
 * stat record tests: perf's stat record format (perfdata/), written by
 * `ctxstat record` and read by `ctxstat report -i`, against perf itself.
 *
 * The fixtures (tests/fixtures/perf-6.1-stat-record*) were written by
 * Debian 12's perf 6.1.192 on an x86_64 host without a PMU (cycles is
 * <not supported>), perf_event_paranoid 2, as root, in that directory:
 *
 *   perf stat record -o - -e task-clock,context-switches,page-faults,cycles true > perf-6.1-stat-record.pipe
 *   perf stat record -o perf-6.1-stat-record.data -e task-clock,context-switches,page-faults,cycles true
 *   perf stat record -o - -a -A -e cpu-clock sleep 0.01 > perf-6.1-stat-record-A.pipe
 *   perf stat record -I 100 -o - -e task-clock,context-switches sleep 0.25 > perf-6.1-stat-record-I.pipe
 *   perf stat record -I 100 -a -A -o - -e cpu-clock sleep 0.25 > perf-6.1-stat-record-I-A.pipe
 *
 * and each FILE.report is `perf stat report -i FILE 2> FILE.report`.
 * They hold host-endian (little) data: the byte tests skip elsewhere.
 *
 * The live tests run /usr/bin/perf (CXS_PERF overrides): skipped, with
 * the reason, when it is missing or cannot record here. ctxstat records
 * against tests/fake_nl.c's module, whose counts are fixed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"
#include "perfdata/format.h"
#include "perfdata/stat-data.h"

#define FIXTURES CXS_TEST_DIR "/fixtures/"

static const char *perf_bin(void)
{
	return getenv("CXS_PERF") ?: "/usr/bin/perf";
}

static char *tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/tmp/ctxstat-statrec-%d-%s", (int)getpid(), name);
	unlink(buf);
	return buf;
}

/* The whole of @path, its length in @len; NULL if it cannot be read. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	fclose(f);
	return buf;
}

/*
 * sh -c @cmd with stdin from @in (or /dev/null), stderr to @err_path;
 * the exit status, -1 if it did not run.
 */
static int shell(const char *cmd, const char *in, const char *err_path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(in ?: "/dev/null", O_RDONLY);

		dup2(fd, 0);
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		dup2(fd, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Can perf record a software event here? NULL, or why not. */
static const char *perf_cannot_record(void)
{
	static char why[256];
	char cmd[512], data[96], err[96];
	int rc;

	if (access(perf_bin(), X_OK))
		return "no perf to compare with (/usr/bin/perf, or CXS_PERF)";
	snprintf(cmd, sizeof(cmd), "%s stat record -o %s -e task-clock true", perf_bin(),
		 tmp_path(data, sizeof(data), "probe.data"));
	rc = shell(cmd, NULL, tmp_path(err, sizeof(err), "probe.err"));
	unlink(data);
	unlink(err);
	if (!rc)
		return NULL;
	snprintf(why, sizeof(why), "perf stat record fails here (exit %d): perf_event_paranoid or no perf_event_open", rc);
	return why;
}

/*
 * The rows of a perf stat table: "value name" for each counted event
 * (msec's value as printed, "<not supported>" and the like as a value),
 * one per line, in order; the metric after '#' left out, it is not a
 * count.
 */
static void rows_of(const char *text, char *out, size_t len)
{
	const char *p = text, *nl;
	char line[512], value[64], name[128], unit[32];
	size_t used = 0;

	out[0] = '\0';
	for (; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		if (strstr(line, "Performance counter stats") ||
		    strstr(line, "seconds"))
			continue;
		if (sscanf(line, " <%63[^>]> %127s", value, name) == 2)
			used += snprintf(out + used, len - used, "<%s> %s\n", value, name);
		else if (sscanf(line, " %63[0-9.,] msec %127s", value, name) == 2)
			used += snprintf(out + used, len - used, "%s msec %s\n", value, name);
		else if (sscanf(line, " %63[0-9.,] %127s", value, name) == 2 &&
			 !sscanf(name, "%31[#]", unit))
			used += snprintf(out + used, len - used, "%s %s\n", value, name);
		if (used >= len)
			break;
	}
}

/* One record of a perf stream at @p: its size, 0 past @end. */
static size_t record_size(const char *p, const char *end)
{
	const struct perf_event_header *h = (const void *)p;

	if (end - p < (long)sizeof(*h) || h->size < sizeof(*h) || p + h->size > end)
		return 0;
	return h->size;
}

/*
 * The fixture @name (whole, into @perf and @plen) read and written again
 * by ctxstat into a file named @tmp_name: what was written (@olen bytes).
 */
static char *rewritten(struct __test_metadata *_metadata, const char *name,
		       const char *tmp_name, char **perf, size_t *plen, size_t *olen)
{
	char path[256], err[256], out[96], *ours;
	struct cxs_stat_data d;
	int fd;

	snprintf(path, sizeof(path), FIXTURES "%s", name);
	*perf = read_all(path, plen);
	ASSERT_NE(NULL, *perf);
	ASSERT_EQ(0, cxs_stat_read(path, &d, err, sizeof(err))) TH_LOG("%s", err);
	fd = open(tmp_path(out, sizeof(out), tmp_name), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cxs_stat_write(fd, &d, err, sizeof(err))) TH_LOG("%s", err);
	close(fd);
	cxs_stat_data_free(&d);
	ours = read_all(out, olen);
	ASSERT_NE(NULL, ours);
	unlink(out);
	return ours;
}

/*
 * ctxstat writes what it reads of perf's own pipe stream byte for byte:
 * every record but perf's kernel MMAP (which stat record only adds for
 * old perf report's sake) in perf's order, the pipe header first. This
 * proves the structures' layout both ways against perf's bytes.
 */
TEST(pipe_layout_is_perfs_byte_for_byte)
{
	char *perf, *ours, *p, *q, *pend, *qend;
	size_t plen, olen, n, m;
	int records = 0;

	ours = rewritten(_metadata, "perf-6.1-stat-record.pipe", "rewritten.pipe",
			 &perf, &plen, &olen);
	ASSERT_EQ(0, memcmp(perf, ours, sizeof(struct cxs_perf_pipe_file_header)));
	p = perf + sizeof(struct cxs_perf_pipe_file_header);
	q = ours + sizeof(struct cxs_perf_pipe_file_header);
	pend = perf + plen;
	qend = ours + olen;
	while ((n = record_size(p, pend))) {
		if (((const struct perf_event_header *)p)->type == PERF_RECORD_MMAP) {
			p += n;
			continue;
		}
		m = record_size(q, qend);
		ASSERT_EQ(n, m) TH_LOG("record %d (type %u) is %zu bytes in perf's, %zu in ours",
				       records, ((const struct perf_event_header *)p)->type, n, m);
		EXPECT_EQ(0, memcmp(p, q, n)) TH_LOG("record %d (type %u) differs", records,
						     ((const struct perf_event_header *)p)->type);
		p += n;
		q += m;
		records++;
	}
	EXPECT_EQ(pend, p);
	EXPECT_EQ(qend, q) TH_LOG("ours has %zu bytes more", (size_t)(qend - q));
	/* attrs, updates, maps, config, a STAT per counted event, the round */
	EXPECT_LE(12, records);
	free(perf);
	free(ours);
}

/* Feature @feat's section in the perf.data file @f, or NULL. */
static const struct cxs_perf_file_section *feature(const char *f, int feat)
{
	const struct cxs_perf_file_header *h = (const void *)f;
	const struct cxs_perf_file_section *sec =
		(const void *)(f + h->data.offset + h->data.size);
	int i;

	if (!(h->adds_features[feat / 64] & (1ULL << (feat % 64))))
		return NULL;
	for (i = 0; i < feat; i++)
		if (h->adds_features[i / 64] & (1ULL << (i % 64)))
			sec++;
	return sec;
}

/* The data section's records of @f, but @skip's, into @out: its length. */
static size_t records_but(const char *f, uint32_t skip, uint64_t skip_update,
			  char *out)
{
	const struct cxs_perf_file_header *h = (const void *)f;
	const char *p = f + h->data.offset, *end = p + h->data.size;
	const struct cxs_perf_record_event_update *u;
	size_t n, len = 0;

	while ((n = record_size(p, end))) {
		u = (const void *)p;
		if (u->header.type != skip &&
		    !(u->header.type == CXS_PERF_RECORD_EVENT_UPDATE && u->type == skip_update)) {
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	return len;
}

/*
 * A perf.data file as perf lays it out: what ctxstat writes of what it
 * read of perf's file has perf's header words, ids and attrs, data
 * records (perf's kernel MMAP aside, and the names ctxstat also sends
 * in a file), and perf's CMDLINE, EVENT_DESC and STAT sections, byte for
 * byte (the host's HOSTNAME, OSRELEASE, ARCH, NRCPUS are this host's).
 */
TEST(file_layout_is_perfs_byte_for_byte)
{
	static const int same[] = { CXS_HEADER_CMDLINE, CXS_HEADER_EVENT_DESC, CXS_HEADER_STAT };
	const struct cxs_perf_file_header *ph, *oh;
	const struct cxs_perf_file_section *ps, *os;
	char *perf, *ours, *pr, *or;
	size_t plen, olen, prn, orn, i;

	ours = rewritten(_metadata, "perf-6.1-stat-record.data", "rewritten.data",
			 &perf, &plen, &olen);
	ph = (const void *)perf;
	oh = (const void *)ours;
	EXPECT_EQ(ph->magic, oh->magic);
	EXPECT_EQ(ph->size, oh->size);
	EXPECT_EQ(ph->attr_size, oh->attr_size);
	EXPECT_EQ(ph->attrs.offset, oh->attrs.offset);
	ASSERT_EQ(ph->attrs.size, oh->attrs.size);
	EXPECT_EQ(ph->data.offset, oh->data.offset);
	/* the ids before the attrs, then the attrs */
	EXPECT_EQ(0, memcmp(perf + ph->size, ours + oh->size,
			    ph->attrs.offset + ph->attrs.size - ph->size));
	pr = malloc(plen);
	or = malloc(olen);
	ASSERT_TRUE(pr && or);
	prn = records_but(perf, PERF_RECORD_MMAP, -1, pr);
	orn = records_but(ours, PERF_RECORD_MMAP, CXS_PERF_EVENT_UPDATE_NAME, or);
	ASSERT_EQ(prn, orn);
	EXPECT_EQ(0, memcmp(pr, or, prn));
	for (i = 0; i < ARRAY_SIZE(same); i++) {
		ps = feature(perf, same[i]);
		os = feature(ours, same[i]);
		ASSERT_TRUE(ps && os) TH_LOG("feature %d", same[i]);
		ASSERT_EQ(ps->size, os->size) TH_LOG("feature %d", same[i]);
		EXPECT_EQ(0, memcmp(perf + ps->offset, ours + os->offset, ps->size))
			TH_LOG("feature %d", same[i]);
	}
	free(pr);
	free(or);
	free(perf);
	free(ours);
}

/* What the fixtures hold, read as perf reads them. */
TEST(reads_perfs_file_and_pipe)
{
	static const char *const files[] = {
		FIXTURES "perf-6.1-stat-record.pipe", FIXTURES "perf-6.1-stat-record.data",
	};
	struct cxs_stat_data d;
	char err[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		ASSERT_EQ(0, cxs_stat_read(files[i], &d, err, sizeof(err))) TH_LOG("%s", err);
		EXPECT_EQ(i == 0, d.pipe);
		ASSERT_EQ(4, d.nr_events);
		EXPECT_STREQ("task-clock", d.ev[0].name);
		EXPECT_STREQ("msec", d.ev[0].unit);
		EXPECT_EQ(1e-6, d.ev[0].scale);
		EXPECT_STREQ("context-switches", d.ev[1].name);
		/* perf names in a pipe only the events it opened */
		EXPECT_STREQ(i == 0 ? "" : "cycles", d.ev[3].name);
		ASSERT_EQ(1, d.nr_cpus);
		EXPECT_EQ(-1, d.cpus[0]);
		EXPECT_EQ(1, d.nr_threads);
		EXPECT_EQ(CXS_PERF_AGGR_GLOBAL, d.aggr_mode);
		ASSERT_EQ(1, d.nr_rounds);
		EXPECT_EQ(CXS_PERF_STAT_ROUND_FINAL, d.rounds[0].type);
		EXPECT_TRUE(cxs_stat_value_at(&d, d.rounds[0].v, 0, 0, 0)->set);
		EXPECT_FALSE(cxs_stat_value_at(&d, d.rounds[0].v, 3, 0, 0)->set);
		/* perf's path, then "stat record -o FILE -e EVENTS true" */
		EXPECT_EQ(i == 0 ? 0 : 8, d.nr_cmdline);
		cxs_stat_data_free(&d);
	}
}

/* ctxstat report -i prints each fixture exactly as perf stat report did. */
TEST(report_prints_what_perf_printed)
{
	static const char *const files[] = {
		"perf-6.1-stat-record.pipe", "perf-6.1-stat-record.data",
		"perf-6.1-stat-record-A.pipe", "perf-6.1-stat-record-I.pipe",
		"perf-6.1-stat-record-I-A.pipe",
	};
	char path[256], want_path[300], *want;
	struct outcome o;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), FIXTURES "%s", files[i]);
		snprintf(want_path, sizeof(want_path), "%s.report", path);
		want = read_all(want_path, &n);
		ASSERT_NE(NULL, want);
		run(cmd_report, ARGV("report", "-i", path), &o);
		EXPECT_EQ(0, o.code) TH_LOG("%s: %s", files[i], o.err);
		EXPECT_STREQ(want, o.err);
		EXPECT_STREQ("", o.out);
		done(&o);
		free(want);
	}
}

/* perf's word order, and "-" for standard input. */
TEST(stat_report_from_standard_input)
{
	char want_path[256], *want;
	int saved = dup(0), fd;
	struct outcome o;
	size_t n;

	snprintf(want_path, sizeof(want_path), FIXTURES "perf-6.1-stat-record.pipe.report");
	want = read_all(want_path, &n);
	ASSERT_NE(NULL, want);
	fd = open(FIXTURES "perf-6.1-stat-record.pipe", O_RDONLY);
	ASSERT_LE(0, fd);
	dup2(fd, 0);
	close(fd);
	run(stat_main, ARGV("stat", "report", "-i", "-"), &o);
	dup2(saved, 0);
	close(saved);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_STREQ(want, o.err);
	done(&o);
	free(want);
}

TEST(report_refuses_what_is_not_perfs)
{
	struct outcome o;

	run(cmd_report, ARGV("report", "-i", FIXTURES "perf-6.1-stat-record.pipe.report"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "not perf's data (no PERFILE2 magic)")) TH_LOG("%s", o.err);
	done(&o);
	/* perf stat report's aggregation: named, not "unknown" */
	run(cmd_report, ARGV("report", "-i", "x", "--per-core"), &o);
	EXPECT_EQ(129, o.code);
	EXPECT_NE(NULL, strstr(o.err, "perf stat report option not supported by ctxstat: --per-core"))
		TH_LOG("%s", o.err);
	done(&o);
	run(cmd_report, ARGV("report", "-i", "/nonexistent/perf.data"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "/nonexistent/perf.data: No such file or directory"))
		TH_LOG("%s", o.err);
	done(&o);
}

/*
 * ctxstat record (and stat record -o -, which prints nothing, as perf),
 * then perf stat report -i: the counts and names ctxstat printed, :t events named so, an event the
 * kernel refused <not supported> in both. The fake module counts
 * fake_nl.base + 100 * counter + run (fake_nl.h).
 */
static void record_then_perf_reports(struct __test_metadata *_metadata, bool pipe)
{
	char data[96], perr[96], cmd[512], printed[2048], reported[2048], *text;
	const char *why = perf_cannot_record();
	struct outcome o;
	size_t n;

	if (why)
		SKIP(return, "%s", why);
	fake_nl_reset();
	/* the stream without hardware events: perf reads them <not supported> */
	if (pipe)
		fake_nl.hw_err = ENOENT;
	tmp_path(data, sizeof(data), pipe ? "ctx.pipe" : "ctx.data");
	if (pipe)
		run_to(stat_main, ARGV("stat", "record", "-o", "-", "-e",
				       "task-clock,task-clock:t,context-switches,instructions:t",
				       "true"), data, &o);
	else
		run(stat_main, ARGV("ctxstat", "-e", "task-clock,task-clock:t", "record",
				    "-o", data, "-e", "context-switches,instructions:t",
				    "--", "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	rows_of(o.err, printed, sizeof(printed));
	if (pipe) {
		/* as perf, nothing printed: the counts are the fake module's */
		EXPECT_STREQ("", printed);
		snprintf(printed, sizeof(printed), "%s",
			 "1.00 msec task-clock\n1.00 msec task-clock:t\n"
			 "1000100 context-switches\n<not supported> instructions:t\n");
	}
	snprintf(cmd, sizeof(cmd), "%s stat report -i %s", perf_bin(), pipe ? "-" : data);
	ASSERT_EQ(0, shell(cmd, pipe ? data : NULL, tmp_path(perr, sizeof(perr), "perf.err")));
	text = read_all(perr, &n);
	ASSERT_NE(NULL, text);
	rows_of(text, reported, sizeof(reported));
	EXPECT_STREQ(printed, reported) TH_LOG("ctxstat printed:\n%s\nperf stat report:\n%s",
					       o.err, text);
	EXPECT_NE(NULL, strstr(reported, " task-clock:t\n")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(reported, " instructions:t\n")) TH_LOG("%s", text);
	if (pipe) {
		EXPECT_NE(NULL, strstr(reported, "<not supported> instructions:t\n"));
		EXPECT_NE(NULL, strstr(text, "Performance counter stats for 'pipe':"));
	}
	free(text);
	/*
	 * perf script reads it as perf's own (perf 7.x's stat.sh, "stat
	 * record and script test"): its header line, a row per reading
	 */
	snprintf(cmd, sizeof(cmd), "%s script -i %s", perf_bin(), pipe ? "-" : data);
	EXPECT_EQ(0, shell(cmd, pipe ? data : NULL, perr));
	text = read_all(perr, &n);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "CPU   THREAD             VAL             ENA             RUN            TIME EVENT\n"))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, " task-clock\n")) TH_LOG("%s", text);
	free(text);
	done(&o);
	/* and ctxstat report -i, perf 6.1's stat.sh pair */
	run(cmd_report, ARGV("report", "-i", data), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	rows_of(o.err, reported, sizeof(reported));
	EXPECT_STREQ(printed, reported) TH_LOG("%s", o.err);
	done(&o);
	unlink(data);
	unlink(perr);
}

TEST(ctxstat_record_read_by_perf_stat_report)
{
	record_then_perf_reports(_metadata, false);
}

/*
 * record -r 2: a round per run; a reading is the counter's total so far,
 * so that perf stat report, which prints what each round adds, prints
 * each run's own counts (the fake module's run k counts k more).
 */
TEST(record_repeat_is_a_round_per_run)
{
	static const char want[] =
		"1000000 context-switches\n1000090 instructions:t\n"
		"1000001 context-switches\n1000091 instructions:t\n";
	char data[96], perr[96], cmd[512], rows[2048], *text;
	const char *why = perf_cannot_record();
	struct cxs_stat_data d;
	struct outcome o;
	size_t n;

	fake_nl_reset();
	tmp_path(data, sizeof(data), "r2.data");
	run(stat_main, ARGV("ctxstat", "record", "-r", "2", "-o", data, "-e",
			    "context-switches,instructions:t", "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	done(&o);
	ASSERT_EQ(0, cxs_stat_read(data, &d, cmd, sizeof(cmd))) TH_LOG("%s", cmd);
	ASSERT_EQ(2, d.nr_rounds);
	EXPECT_EQ(1000001, cxs_stat_value_at(&d, d.rounds[1].v, 0, 0, 0)->val);
	cxs_stat_data_free(&d);
	run(cmd_report, ARGV("report", "-i", data), &o);
	rows_of(o.err, rows, sizeof(rows));
	EXPECT_STREQ(want, rows) TH_LOG("%s", o.err);
	done(&o);
	if (why) {
		unlink(data);
		SKIP(return, "%s", why);
	}
	snprintf(cmd, sizeof(cmd), "%s stat report -i %s", perf_bin(), data);
	ASSERT_EQ(0, shell(cmd, NULL, tmp_path(perr, sizeof(perr), "r2.err")));
	text = read_all(perr, &n);
	ASSERT_NE(NULL, text);
	rows_of(text, rows, sizeof(rows));
	EXPECT_STREQ(want, rows) TH_LOG("%s", text);
	free(text);
	unlink(data);
	unlink(perr);
}

/*
 * duration_time is recorded as perf 6.1 records it (the dummy software
 * event's attr, unit "ns", the run's time as its reading) and report -i
 * prints it back as perf's row.
 */
TEST(record_duration_time)
{
	char data[96], cmd[512];
	struct cxs_stat_data d;
	struct outcome o;
	const char *p;

	fake_nl_reset();
	tmp_path(data, sizeof(data), "dt.data");
	run(stat_main, ARGV("ctxstat", "record", "-o", data, "-e",
			    "duration_time,context-switches", "sleep", "0.05"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	done(&o);
	ASSERT_EQ(0, cxs_stat_read(data, &d, cmd, sizeof(cmd))) TH_LOG("%s", cmd);
	ASSERT_EQ(2, d.nr_events);
	EXPECT_STREQ("duration_time", d.ev[0].name);
	EXPECT_EQ(PERF_TYPE_SOFTWARE, d.ev[0].attr.type);
	EXPECT_EQ(PERF_COUNT_SW_DUMMY, d.ev[0].attr.config);
	EXPECT_STREQ("ns", d.ev[0].unit);
	ASSERT_EQ(1, d.nr_rounds);
	EXPECT_LE(50000000, cxs_stat_value_at(&d, d.rounds[0].v, 0, 0, 0)->val);
	cxs_stat_data_free(&d);
	run(cmd_report, ARGV("report", "-i", data), &o);
	p = strstr(o.err, " ns   duration_time");
	EXPECT_NE(NULL, p) TH_LOG("%s", o.err);
	done(&o);
	unlink(data);
}

/*
 * The lines of @text that hold @needle, each cut at its metric's '#'
 * (the header aside).
 */
static void lines_with(const char *text, const char *needle, char *out, size_t len)
{
	const char *p = text, *nl, *hash;
	size_t used = 0;

	out[0] = '\0';
	for (; *p && used < len; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		if (!memmem(p, nl - p, needle, strlen(needle)) ||
		    memmem(p, nl - p, "counter stats for", 17))
			continue;
		hash = memchr(p, '#', nl - p) ?: nl;
		while (hash > p && hash[-1] == ' ')
			hash--;
		used += snprintf(out + used, len - used, "%.*s\n", (int)(hash - p), p);
	}
}

/*
 * record -a --per-thread: the thread map is the threads (comm, tid), a
 * STAT per thread, perf 6.1's per-thread aggregation: perf stat report
 * prints ctxstat's rows.
 */
TEST(record_per_thread_rows)
{
	char data[96], perr[96], cmd[512], printed[1024], reported[1024], *text;
	const char *why = perf_cannot_record();
	struct cxs_stat_data d;
	struct outcome o;
	size_t n;

	fake_nl_reset();
	tmp_path(data, sizeof(data), "pt.data");
	run(stat_main, ARGV("ctxstat", "record", "-o", data, "-a", "--per-thread",
			    "-e", "instructions", "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	lines_with(o.err, "instructions", printed, sizeof(printed));
	ASSERT_EQ(0, cxs_stat_read(data, &d, cmd, sizeof(cmd))) TH_LOG("%s", cmd);
	ASSERT_LE(2, d.nr_threads);
	EXPECT_STREQ("main", d.comms[0]) TH_LOG("%s", o.err);
	EXPECT_EQ(1001, d.pids[0]);
	cxs_stat_data_free(&d);
	done(&o);
	if (why) {
		unlink(data);
		SKIP(return, "%s", why);
	}
	snprintf(cmd, sizeof(cmd), "%s stat report -i %s", perf_bin(), data);
	ASSERT_EQ(0, shell(cmd, NULL, tmp_path(perr, sizeof(perr), "pt.err")));
	text = read_all(perr, &n);
	ASSERT_NE(NULL, text);
	lines_with(text, "instructions", reported, sizeof(reported));
	/* ctxstat -a leaves out the threads that counted 0, as perf stat -a */
	n = strlen(printed);
	snprintf(printed + n, sizeof(printed) - n, "%s",
		 "         sleeper-1003                      0      instructions\n");
	EXPECT_STREQ(printed, reported) TH_LOG("%s", text);
	free(text);
	/* ctxstat report -i prints the threads as perf stat report */
	run(cmd_report, ARGV("report", "-i", data), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	lines_with(o.err, "instructions", printed, sizeof(printed));
	EXPECT_STREQ(reported, printed) TH_LOG("%s", o.err);
	done(&o);
	unlink(data);
	unlink(perr);
}

TEST(ctxstat_record_pipe_read_by_perf_stat_report)
{
	record_then_perf_reports(_metadata, true);
}

TEST_HARNESS_MAIN
