// SPDX-License-Identifier: GPL-2.0
/*
 * ctxload-host: the host half of the test bed's network load. scripts/vm
 * starts one per guest run, bound to 127.0.0.1:<listen>, which the guest
 * reaches at 10.0.2.2:<listen> through QEMU user networking. On request it
 * sends 64-byte UDP datagrams to 127.0.0.1:<target-port>, QEMU's hostfwd
 * into the guest (10.0.2.15:5555). Traffic goes nowhere else.
 *
 * Control datagrams (text), each answered to its sender:
 *   "start RATE SECONDS"  send RATE datagrams/s for at most SECONDS
 *                         (replaces a running load) -> "ok RATE SECONDS"
 *   "stop"                stop sending              -> "stopped SENT"
 *   "status"                                        -> "sending|idle SENT"
 * The load stops by itself after SECONDS or MAX_PACKETS, and the helper
 * exits when its parent (scripts/vm) does.
 *
 *   ctxload-host --listen PORT --target-port PORT [--parent PID]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_RATE	200000		/* datagrams per second */
#define MAX_SECONDS	3600
#define MAX_PACKETS	(20ULL * 1000 * 1000)
#define PAYLOAD		64

struct load {
	int active;
	unsigned long rate;
	uint64_t start_ns, end_ns;
	uint64_t sent, limit;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int udp_socket(unsigned short port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0) {
		perror("ctxload-host: socket");
		exit(1);
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (port && bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "ctxload-host: bind 127.0.0.1:%u: %s\n", port, strerror(errno));
		exit(1);
	}
	return fd;
}

static void handle_control(int ctl, struct load *l)
{
	struct sockaddr_in from;
	socklen_t fromlen = sizeof(from);
	char buf[128], reply[128];
	unsigned long rate, secs;
	ssize_t n;

	n = recvfrom(ctl, buf, sizeof(buf) - 1, 0, (struct sockaddr *)&from, &fromlen);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "start %lu %lu", &rate, &secs) == 2) {
		if (rate > MAX_RATE)
			rate = MAX_RATE;
		if (secs > MAX_SECONDS)
			secs = MAX_SECONDS;
		l->active = rate > 0 && secs > 0;
		l->rate = rate;
		l->start_ns = now_ns();
		l->end_ns = l->start_ns + secs * 1000000000ULL;
		l->sent = 0;
		l->limit = (uint64_t)rate * secs;
		if (l->limit > MAX_PACKETS)
			l->limit = MAX_PACKETS;
		snprintf(reply, sizeof(reply), "ok %lu %lu", rate, secs);
		fprintf(stderr, "ctxload-host: start %lu/s for %lus\n", rate, secs);
	} else if (strncmp(buf, "stop", 4) == 0) {
		l->active = 0;
		snprintf(reply, sizeof(reply), "stopped %llu", (unsigned long long)l->sent);
		fprintf(stderr, "ctxload-host: stop after %llu\n", (unsigned long long)l->sent);
	} else if (strncmp(buf, "status", 6) == 0) {
		snprintf(reply, sizeof(reply), "%s %llu", l->active ? "sending" : "idle",
			 (unsigned long long)l->sent);
	} else {
		snprintf(reply, sizeof(reply), "error unknown request");
	}
	sendto(ctl, reply, strlen(reply), 0, (struct sockaddr *)&from, fromlen);
}

/* Send what the rate allows up to now; stop at the time or count limit. */
static void send_due(int out, const struct sockaddr_in *dst, struct load *l)
{
	static char payload[PAYLOAD] = "ctxload";
	uint64_t t = now_ns(), due;

	if (t >= l->end_ns || l->sent >= l->limit) {
		l->active = 0;
		fprintf(stderr, "ctxload-host: done, %llu sent\n", (unsigned long long)l->sent);
		return;
	}
	due = (t - l->start_ns) / 1000 * l->rate / 1000000;
	if (due > l->limit)
		due = l->limit;
	while (l->sent < due) {
		if (sendto(out, payload, sizeof(payload), MSG_DONTWAIT,
			   (const struct sockaddr *)dst, sizeof(*dst)) < 0 &&
		    errno != EAGAIN && errno != ECONNREFUSED && errno != ENOBUFS)
			break;
		l->sent++;
	}
}

int main(int argc, char **argv)
{
	unsigned short listen_port = 0, target_port = 0;
	pid_t parent = 0;
	struct sockaddr_in dst = { .sin_family = AF_INET };
	struct load l = { 0 };
	struct pollfd pfd;
	int i, ctl, out;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--listen"))
			listen_port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--target-port"))
			target_port = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--parent"))
			parent = atoi(argv[i + 1]);
		else
			break;
	}
	if (i != argc || !listen_port || !target_port) {
		fprintf(stderr, "usage: ctxload-host --listen PORT --target-port PORT [--parent PID]\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (parent && getppid() != parent)
		return 0;

	ctl = udp_socket(listen_port);
	out = udp_socket(0);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons(target_port);
	pfd.fd = ctl;
	pfd.events = POLLIN;

	for (;;) {
		if (poll(&pfd, 1, l.active ? 1 : 500) > 0)
			handle_control(ctl, &l);
		if (l.active)
			send_due(out, &dst, &l);
		if (parent && kill(parent, 0) < 0)
			return 0;
	}
}
