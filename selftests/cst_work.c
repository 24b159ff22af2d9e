// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads' own code, without libnl: ctx_workload links only this,
 * statically (see cst_work.h).
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "cst_work.h"

void cst_loop(uint64_t n)
{
#if defined(__aarch64__)
	/* subs + b.ne: 2 instructions per iteration */
	__asm__ volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b\n"
			 : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	/* dec + jnz: 2 instructions per iteration */
	__asm__ volatile("1:\n\tdec %0\n\tjnz 1b\n" : "+r"(n) : : "cc");
#else
	volatile uint64_t i;

	for (i = 0; i < n; i++)
		;
#endif
}

double cst_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void cst_spin_ms(unsigned int ms)
{
	double end = cst_now() + ms / 1000.0;

	while (cst_now() < end)
		cst_loop(1000);
}

int cst_udp_loopback(unsigned int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	char buf[64] = { 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int err = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &alen)) {
		err = -errno;
		goto out;
	}
	/* Each send raises NET_RX; it runs when sendto() re-enables BHs. */
	while (n--) {
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&a,
			   sizeof(a)) != sizeof(buf) ||
		    recv(s, buf, sizeof(buf), 0) != sizeof(buf)) {
			err = -errno;
			break;
		}
	}
out:
	if (s >= 0)
		close(s);
	return err;
}
