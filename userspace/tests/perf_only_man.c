// SPDX-License-Identifier: GPL-2.0
/* perf_only_man: see tests/perf_only_man.h. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "options/perf-only.h"
#include "tests/perf_only_man.h"
#include "util/util.h"

/* The example of the introduction: the option perf users reach for most. */
#define EXAMPLE "tid"

/*
 * Whether the word at @p (up to a blank) is code, an option, an event or
 * a command ("-e", "cpu/tx-start/,cpu/cycles-t/", "$!", "ctxstat"),
 * which groff must not hyphenate: a character other than a letter
 * before its trailing punctuation.
 */
static bool code_word(const char *p)
{
	size_t n = strcspn(p, " ");

	while (n && strchr(",;:)", p[n - 1]))
		n--;
	if (n >= 7 && !strncmp(p, "ctxstat", 7))
		return true;
	for (; n; n--, p++)
		if (!isalpha((unsigned char)*p) && *p != '\'' && *p != '(')
			return true;
	return false;
}

/*
 * @s as roff text: every '-' is \- (a minus: options and event names
 * copied from the page must work), a backslash \e; code words not
 * hyphenated (\%) but broken after a comma (\:) with @code; with
 * @bold_options, those that begin with a dash (an option, after a blank
 * or '(') in bold.
 */
static void roff_text(FILE *f, const char *s, bool code, bool bold_options)
{
	bool bold = false;
	const char *p;

	for (p = s; *p; p++) {
		if (code && (p == s || p[-1] == ' ') && code_word(p))
			fputs("\\%", f);
		if (bold_options && !bold && *p == '-' &&
		    (p == s || p[-1] == ' ' || p[-1] == '(') &&
		    (isalpha((unsigned char)p[1]) || p[1] == '-')) {
			fputs("\\fB", f);
			bold = true;
		} else if (bold && !isalnum((unsigned char)*p) && *p != '-' &&
			   *p != '=') {
			fputs("\\fR", f);
			bold = false;
		}
		if (*p == '-')
			fputs("\\-", f);
		else if (code && *p == ',' && p[1] && p[1] != ' ')
			fputs(",\\:", f);	/* a line may break after it */
		else if (*p == '\\')
			fputs("\\e", f);
		else
			fputc(*p, f);
	}
	if (bold)
		fputs("\\fR", f);
}

/* "-t, --tid" in bold, the commas not. */
static void roff_tag(FILE *f, const struct cxs_perf_only *p)
{
	if (p->letter)
		fprintf(f, "\\fB\\-%c\\fR, ", p->letter);
	fputs("\\fB\\-\\-", f);
	roff_text(f, p->name, false, false);
	fputs("\\fR", f);
}

static const struct cxs_perf_only *first_with(const char *instead)
{
	size_t i;

	for (i = 0; i < cxs_nr_perf_only; i++)
		if (!strcmp(cxs_perf_only[i].instead, instead))
			return &cxs_perf_only[i];
	return NULL;
}

int cxs_perf_only_roff(FILE *f)
{
	const struct cxs_perf_only *p, *q;
	char msg[256];
	size_t i, j, n;
	int k;

	for (p = NULL, i = 0; i < cxs_nr_perf_only; i++)
		if (!strcmp(cxs_perf_only[i].name, EXAMPLE))
			p = &cxs_perf_only[i];
	if (!p)
		return -1;
	cxs_perf_only_err(p, msg, sizeof(msg));
	fputs("These options of\n.B perf stat\n"
	      "6.1 are recognized but not supported: \\%ctxstat names the option with\n"
	      "what to use instead, the text below, and exits 129:\n"
	      ".PP\n.RS 4\n\\fBctxstat: ", f);
	roff_text(f, msg, true, false);
	fputs("\\fR\n.RE\n", f);
	/* one .TP per text, where its first option is in perf's order */
	for (i = 0; i < cxs_nr_perf_only; i++) {
		p = &cxs_perf_only[i];
		if (first_with(p->instead) != p)
			continue;
		fputs(".TP\n", f);
		/* those with a letter first, as perf's usage lists them */
		for (n = 0, k = 0; k < 2; k++)
			for (j = i; j < cxs_nr_perf_only; j++) {
				q = &cxs_perf_only[j];
				if (strcmp(q->instead, p->instead) ||
				    (!q->letter) != k)
					continue;
				if (n++)
					fputs(", ", f);
				roff_tag(f, q);
			}
		fputs("\n", f);
		roff_text(f, p->instead, true, true);
		fputs("\n", f);
	}
	return ferror(f) ? -1 : 0;
}

/* The offset of the line @line of @page, or -1; @twice: found again. */
static long find_line(const char *page, size_t len, const char *line,
		      bool *twice)
{
	size_t n = strlen(line), at = 0;
	long found = -1;

	*twice = false;
	while (at < len) {
		const char *nl = memchr(page + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - page) : len;

		if (end - at == n && !memcmp(page + at, line, n)) {
			if (found >= 0)
				*twice = true;
			else
				found = at;
		}
		at = end + 1;
	}
	return found;
}

int cxs_perf_only_splice(const char *page, size_t len, FILE *out,
			 char *err, size_t errlen)
{
	bool twice_b, twice_e;
	long b = find_line(page, len, CXS_PERF_ONLY_BEGIN, &twice_b);
	long e = find_line(page, len, CXS_PERF_ONLY_END, &twice_e);
	size_t body;

	if (b < 0 || e < 0)
		return cxs_err(err, errlen, "no line '%s' in the page",
			       b < 0 ? CXS_PERF_ONLY_BEGIN : CXS_PERF_ONLY_END);
	if (twice_b || twice_e || e < b)
		return cxs_err(err, errlen,
			       "the page must have '%s', then '%s', each once",
			       CXS_PERF_ONLY_BEGIN, CXS_PERF_ONLY_END);
	body = b + strlen(CXS_PERF_ONLY_BEGIN) + 1;
	fwrite(page, 1, body, out);
	if (cxs_perf_only_roff(out))
		return cxs_err(err, errlen, "the table has no --%s, the example",
			       EXAMPLE);
	fwrite(page + e, 1, len - e, out);
	return ferror(out) ? cxs_err(err, errlen, "write error") : 0;
}
