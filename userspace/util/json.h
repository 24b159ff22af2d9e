/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json: a small strict JSON reader (RFC 8259: objects, arrays, strings,
 * numbers, true/false/null; no extensions, no trailing commas, no
 * comments) into a tree, and the string escaping for writers. Enough for
 * ctxstat's own documented results files; not a general library.
 */
#ifndef CTXSTAT_UTIL_JSON_H
#define CTXSTAT_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum cxs_json_type {
	CXS_JSON_NULL,
	CXS_JSON_BOOL,
	CXS_JSON_NUMBER,
	CXS_JSON_STRING,
	CXS_JSON_ARRAY,
	CXS_JSON_OBJECT,
};

struct cxs_json {
	enum cxs_json_type type;
	bool b;
	double num;
	char *str;			/* STRING, NUL-terminated (no NULs inside) */
	struct cxs_json **items;	/* ARRAY elements, OBJECT values */
	char **keys;			/* OBJECT keys */
	int nr;
};

/*
 * Parse @len bytes of @text. Returns the tree, or NULL with a message
 * naming the line and what was wrong in @err.
 */
struct cxs_json *cxs_json_parse(const char *text, size_t len,
				char *err, size_t errlen);
void cxs_json_free(struct cxs_json *j);

/* The member @key of an object, NULL if absent or @j is no object. */
const struct cxs_json *cxs_json_get(const struct cxs_json *j, const char *key);

/*
 * Write @s as a JSON string literal, quotes included. A byte that starts
 * no well-formed UTF-8 sequence is written as U+FFFD: the output is JSON
 * whatever bytes @s holds (a command's argv).
 */
void cxs_json_write_string(FILE *f, const char *s);

#endif
