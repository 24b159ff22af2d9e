/* SPDX-License-Identifier: GPL-2.0 */
/*
 * comma_locale: switch the test to de_DE.UTF-8, a locale whose decimal
 * point is a comma and whose thousands separator is a dot. Machines
 * rarely have it installed, so it is generated once with localedef into
 * CXS_TEST_LOCALE_DIR (the Makefile's build directory; needs the locales
 * package, which scripts/setup installs) and found through LOCPATH.
 *
 *   const char *why = comma_locale();
 *   if (why) SKIP(return, "%s", why);
 */
#ifndef CTXSTAT_COMMA_LOCALE_H
#define CTXSTAT_COMMA_LOCALE_H

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#ifndef CXS_TEST_LOCALE_DIR
#define CXS_TEST_LOCALE_DIR "tests/locale"
#endif

#define COMMA_LOCALE "de_DE.UTF-8"

/* NULL once LC_ALL is de_DE.UTF-8 here (and in children, by LOCPATH
 * and LC_ALL in the environment), else why not. */
static inline const char *comma_locale(void)
{
	static const char dir[] = CXS_TEST_LOCALE_DIR "/" COMMA_LOCALE;
	static char why[512];
	char cmd[512];
	struct stat st;

	/*
	 * Generated before the first setlocale() of it: glibc remembers a
	 * locale it did not find.
	 */
	if (stat(dir, &st)) {
		mkdir(CXS_TEST_LOCALE_DIR, 0755);
		/* quiet: its messages would break the TAP stream */
		snprintf(cmd, sizeof(cmd),
			 "localedef -i de_DE -f UTF-8 '%s' >/dev/null 2>&1", dir);
		/* judged by setlocale() below */
		(void)!system(cmd);
	}
	setenv("LOCPATH", CXS_TEST_LOCALE_DIR, 1);
	setenv("LC_ALL", COMMA_LOCALE, 1);
	if (setlocale(LC_ALL, COMMA_LOCALE))
		return NULL;
	/* a partial one is made anew next time */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
	snprintf(why, sizeof(why),
		 "cannot generate the %s locale in %s with localedef (the locales package, scripts/setup installs it)",
		 COMMA_LOCALE, CXS_TEST_LOCALE_DIR);
	return why;
}

#endif
