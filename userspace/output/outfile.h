/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outfile: -o FILE. The file is checked before anything runs but made
 * (created, truncated or appended to) only at the first write, so that a
 * run that fails before it prints (no module, a refused event) leaves an
 * existing file as it was; and every write error is seen at the end.
 */
#ifndef CTXSTAT_OUTPUT_OUTFILE_H
#define CTXSTAT_OUTPUT_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * A stream for @path, opened at its first write, appended to with
 * @append; with @started perf stat's first line, "# started on <date>"
 * and a blank line, dated now. NULL after saying why @path cannot be
 * written.
 */
FILE *cxs_outfile_open(const char *path, bool append, bool started);

/*
 * Close @f (@path's stream, or a standard one, which is flushed only):
 * 0, or -1 after saying why what was written did not all get there.
 * @who prefixes the message ("ctxstat", "ctxstat report").
 */
int cxs_outfile_close(FILE *f, const char *path, const char *who);

#endif
