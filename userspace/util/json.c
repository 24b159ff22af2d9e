// SPDX-License-Identifier: GPL-2.0
/*
 * json: recursive-descent reader. Strict on purpose: a results file that
 * is not exactly JSON is reported with its line, rather than half read.
 * Strings may hold any \u escape except \u0000 (kept as UTF-8).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/util.h"

#define MAX_DEPTH 64

struct parser {
	const char *s, *end;
	const char *start;
	char *err;
	size_t errlen;
	bool failed;
	int depth;
};

static void *fail(struct parser *p, const char *fmt, ...)
{
	const char *c;
	char msg[160];
	int line = 1;
	va_list ap;

	if (p->failed)
		return NULL;
	for (c = p->start; c < p->s && c < p->end; c++)
		line += *c == '\n';
	va_start(ap, fmt);
	cxs_verr(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "line %d: %s", line, msg);
	p->failed = true;
	return NULL;
}

static void skip_ws(struct parser *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' ||
				 *p->s == '\n' || *p->s == '\r'))
		p->s++;
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return false;
	p->s += n;
	return true;
}

static struct cxs_json *new_node(struct parser *p, enum cxs_json_type t)
{
	struct cxs_json *j = calloc(1, sizeof(*j));

	if (!j)
		return fail(p, "out of memory");
	j->type = t;
	return j;
}

static int hex4(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = 0xc0 | (cp >> 6);
		o[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = 0xe0 | (cp >> 12);
		o[1] = 0x80 | ((cp >> 6) & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	o[0] = 0xf0 | (cp >> 18);
	o[1] = 0x80 | ((cp >> 12) & 0x3f);
	o[2] = 0x80 | ((cp >> 6) & 0x3f);
	o[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* \uXXXX (and a following low surrogate) at p->s, past the backslash-u. */
static int unicode_escape(struct parser *p, char *o, size_t *olen)
{
	int hi, lo;

	if (p->end - p->s < 4 || (hi = hex4(p->s)) < 0)
		return fail(p, "bad \\u escape"), -1;
	p->s += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return fail(p, "lone low surrogate"), -1;
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u' ||
		    (lo = hex4(p->s + 2)) < 0xdc00 || lo > 0xdfff)
			return fail(p, "lone high surrogate"), -1;
		p->s += 6;
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!hi)
		return fail(p, "\\u0000 in a string"), -1;
	*olen += put_utf8(o + *olen, hi);
	return 0;
}

static char *parse_string_raw(struct parser *p)
{
	const char *q;
	size_t olen = 0;
	char *o;

	p->s++;	/* opening quote */
	for (q = p->s; q < p->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= p->end)
		return fail(p, "unterminated string");
	/* escapes never grow: \uXXXX (6 bytes) is at most 4 of UTF-8 */
	o = malloc(q - p->s + 1);
	if (!o)
		return fail(p, "out of memory");
	while (*p->s != '"') {
		unsigned char c = *p->s++;

		if (c < 0x20) {
			free(o);
			return fail(p, "control character in a string");
		}
		if (c != '\\') {
			o[olen++] = c;
			continue;
		}
		c = *p->s++;
		switch (c) {
		case '"': case '\\': case '/':
			o[olen++] = c;
			break;
		case 'b': o[olen++] = '\b'; break;
		case 'f': o[olen++] = '\f'; break;
		case 'n': o[olen++] = '\n'; break;
		case 'r': o[olen++] = '\r'; break;
		case 't': o[olen++] = '\t'; break;
		case 'u':
			if (unicode_escape(p, o, &olen)) {
				free(o);
				return NULL;
			}
			break;
		default:
			free(o);
			return fail(p, "bad escape '\\%c'", c);
		}
	}
	p->s++;
	o[olen] = '\0';
	return o;
}

/* RFC 8259 number grammar, checked before strtod converts it. */
static struct cxs_json *parse_number(struct parser *p)
{
	const char *q = p->s;
	struct cxs_json *j;
	char buf[64];

	if (q < p->end && *q == '-')
		q++;
	if (q < p->end && *q == '0')
		q++;
	else if (q < p->end && *q >= '1' && *q <= '9')
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	else
		return fail(p, "unexpected character '%c'", *p->s);
	if (q < p->end && *q == '.') {
		if (++q >= p->end || *q < '0' || *q > '9')
			return fail(p, "digit expected after '.'");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < p->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= p->end || *q < '0' || *q > '9')
			return fail(p, "digit expected in exponent");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	if ((size_t)(q - p->s) >= sizeof(buf))
		return fail(p, "number too long");
	memcpy(buf, p->s, q - p->s);
	buf[q - p->s] = '\0';
	j = new_node(p, CXS_JSON_NUMBER);
	if (!j)
		return NULL;
	/* JSON's decimal point, whatever LC_NUMERIC says */
	j->num = strtod_l(buf, NULL, cxs_c_locale() ?: LC_GLOBAL_LOCALE);
	if (isinf(j->num)) {
		free(j);
		return fail(p, "number out of range");
	}
	p->s = q;
	return j;
}

static struct cxs_json *parse_value(struct parser *p);

static int append(struct parser *p, struct cxs_json *j, struct cxs_json *v,
		  char *key)
{
	struct cxs_json **items;
	char **keys;

	items = realloc(j->items, (j->nr + 1) * sizeof(*items));
	if (!items)
		return fail(p, "out of memory"), -1;
	j->items = items;
	if (j->type == CXS_JSON_OBJECT) {
		keys = realloc(j->keys, (j->nr + 1) * sizeof(*keys));
		if (!keys)
			return fail(p, "out of memory"), -1;
		j->keys = keys;
		j->keys[j->nr] = key;
	}
	j->items[j->nr++] = v;
	return 0;
}

static int parse_member(struct parser *p, struct cxs_json *j)
{
	struct cxs_json *v;
	char *key;
	int i;

	skip_ws(p);
	if (p->s >= p->end || *p->s != '"')
		return fail(p, "object key expected"), -1;
	key = parse_string_raw(p);
	if (!key)
		return -1;
	for (i = 0; i < j->nr; i++)
		if (!strcmp(j->keys[i], key)) {
			fail(p, "duplicate key \"%s\"", key);
			free(key);
			return -1;
		}
	skip_ws(p);
	if (p->s >= p->end || *p->s != ':') {
		free(key);
		return fail(p, "':' expected"), -1;
	}
	p->s++;
	v = parse_value(p);
	if (!v || append(p, j, v, key)) {
		cxs_json_free(v);
		free(key);
		return -1;
	}
	return 0;
}

static struct cxs_json *parse_container(struct parser *p, bool object)
{
	char close = object ? '}' : ']';
	struct cxs_json *j, *v;

	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested too deeply");
	j = new_node(p, object ? CXS_JSON_OBJECT : CXS_JSON_ARRAY);
	if (!j)
		return NULL;
	p->s++;
	skip_ws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return j;
	}
	for (;;) {
		if (object) {
			if (parse_member(p, j))
				goto bad;
		} else {
			v = parse_value(p);
			if (!v || append(p, j, v, NULL)) {
				cxs_json_free(v);
				goto bad;
			}
		}
		skip_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close)
			break;
		fail(p, "',' or '%c' expected", close);
		goto bad;
	}
	p->s++;
	p->depth--;
	return j;
bad:
	cxs_json_free(j);
	return NULL;
}

static struct cxs_json *parse_value(struct parser *p)
{
	struct cxs_json *j;

	skip_ws(p);
	if (p->s >= p->end)
		return fail(p, "unexpected end of input");
	switch (*p->s) {
	case '{':
		return parse_container(p, true);
	case '[':
		return parse_container(p, false);
	case '"':
		j = new_node(p, CXS_JSON_STRING);
		if (j && !(j->str = parse_string_raw(p))) {
			free(j);
			return NULL;
		}
		return j;
	}
	if (literal(p, "true") || literal(p, "false")) {
		j = new_node(p, CXS_JSON_BOOL);
		if (j)
			j->b = p->s[-4] == 't';	/* "true", not "alse" */
		return j;
	}
	if (literal(p, "null"))
		return new_node(p, CXS_JSON_NULL);
	return parse_number(p);
}

struct cxs_json *cxs_json_parse(const char *text, size_t len,
				char *err, size_t errlen)
{
	struct parser p = {
		.s = text, .end = text + len, .start = text,
		.err = err, .errlen = errlen,
	};
	struct cxs_json *j = parse_value(&p);

	if (!j)
		return NULL;
	skip_ws(&p);
	if (p.s != p.end) {
		fail(&p, "trailing data after the JSON value");
		cxs_json_free(j);
		return NULL;
	}
	return j;
}

void cxs_json_free(struct cxs_json *j)
{
	int i;

	if (!j)
		return;
	for (i = 0; i < j->nr; i++) {
		cxs_json_free(j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->str);
	free(j);
}

const struct cxs_json *cxs_json_get(const struct cxs_json *j, const char *key)
{
	int i;

	if (!j || j->type != CXS_JSON_OBJECT)
		return NULL;
	for (i = 0; i < j->nr; i++)
		if (!strcmp(j->keys[i], key))
			return j->items[i];
	return NULL;
}

/*
 * The length of the well-formed UTF-8 sequence @s starts with (RFC 3629:
 * no overlong form, no surrogate, nothing above U+10FFFF), 0 for none.
 */
static int utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

void cxs_json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		int n = utf8_len((const unsigned char *)s);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (!n)
			fputs("\\ufffd", f);
		else
			fwrite(s, 1, n, f);
		s += n ? n : 1;
	}
	fputc('"', f);
}
