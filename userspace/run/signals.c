// SPDX-License-Identifier: GPL-2.0
/* signals: see run/signals.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "run/signals.h"

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

static void catch(int sig)
{
	struct sigaction sa, old;

	if (sigaction(sig, NULL, &old) || old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void cxs_signals_install(void)
{
	catch(SIGINT);
	catch(SIGTERM);
}

bool cxs_interrupted(void)
{
	return caught;
}

int cxs_interrupt_signal(void)
{
	return caught;
}

void cxs_signals_reraise(void)
{
	int sig = caught;

	if (!sig)
		return;
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

const char *cxs_signal_name(int sig)
{
	static char buf[16];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	else
		snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}
