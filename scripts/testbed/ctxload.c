// SPDX-License-Identifier: GPL-2.0
/*
 * ctxload: run a command in a test-bed guest while packets arrive, and show
 * that they did.
 *
 *   ctxload [--rate PPS] [--seconds S] [--loopback] [--allow-no-load]
 *           [--idle-sink | --late-sink] -- CMD [ARGS...]
 *   ctxload --stop
 *
 * Network mode (default): asks the host helper of scripts/vm (at
 * $CTX_LOAD_HOST:$CTX_LOAD_PORT, i.e. 10.0.2.2 over QEMU user networking)
 * to send PPS 64-byte UDP datagrams per second to this guest's
 * 10.0.2.15:5555 for at most S seconds: virtio-net hardirqs and NET_RX
 * softirqs. Loopback mode: a thread in the guest sends them to
 * 127.0.0.1:5555 instead: NET_RX softirqs only, no device interrupt.
 *
 * Meanwhile a sink on port 5555 drains the datagrams. When CMD ends the load
 * is stopped and a report goes to stderr: packets received, per-CPU deltas
 * of the virtio input interrupts (/proc/interrupts) and of NET_RX
 * (/proc/softirqs), and one line for scripts:
 *   ctxload: packets=N virtio_irqs=N net_rx=N seconds=F
 * Exit status: CMD's; 125 when no packet arrived (a run without load must
 * not pass as one with it) unless --allow-no-load; 126 on setup errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SINK_PORT	5555
#define MAX_CPUS	64

struct snapshot {
	int ncpus;
	unsigned long long irq[MAX_CPUS];	/* virtio input interrupts */
	unsigned long long net_rx[MAX_CPUS];
};

static atomic_ullong received;
static atomic_int stopping;
static unsigned long rate = 1000, seconds = 10;

static void usage(void)
{
	fprintf(stderr,
		"usage: ctxload [--rate PPS] [--seconds S] [--loopback] [--allow-no-load]\n"
		"               [--idle-sink | --late-sink] -- CMD [ARGS...]\n"
		"       ctxload --stop\n"
		"Run CMD while PPS 64-byte UDP datagrams per second arrive (from the host\n"
		"through virtio-net, or with --loopback from this guest), at most S seconds;\n"
		"report packets, virtio interrupts and NET_RX softirqs per CPU on stderr.\n");
	exit(126);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sum per-CPU columns of the lines of FILE that START_WITH and CONTAIN. */
static int read_counts(const char *file, const char *start_with, const char *contain,
		       unsigned long long *out)
{
	char line[4096];
	int ncpus = 0;
	FILE *f = fopen(file, "r");

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		for (char *p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n"))
			ncpus++;
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (start_with && strncmp(p, start_with, strlen(start_with)))
			continue;
		if (contain && !strstr(p, contain))
			continue;
		p = strchr(p, ':');
		if (!p)
			continue;
		p++;
		for (int c = 0; c < ncpus; c++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			out[c] += v;
			p = end;
		}
	}
	fclose(f);
	return ncpus;
}

static void take_snapshot(struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	/* virtio-net's receive queue: "virtio0-input.0" (MSI-X) lines */
	s->ncpus = read_counts("/proc/interrupts", NULL, "-input", s->irq);
	read_counts("/proc/softirqs", "NET_RX:", NULL, s->net_rx);
}

static int udp_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0) {
		perror("ctxload: socket");
		exit(126);
	}
	return fd;
}

/*
 * With --idle-sink the sink runs SCHED_IDLE: at normal priority it
 * preempts the measured command on every batch of datagrams, and the
 * scheduler work of those preemptions is the command's task context (+1.7 %
 * instructions:t on one vCPU). Idle, it drains what is queued when the
 * command sleeps or ends; the interrupts and NET_RX softirqs that deliver
 * the datagrams happen all the same. Not the default: with two busy
 * processes on two vCPUs (arm64, -icount) no NET_RX arrived at all while
 * they ran, which is not yet understood.
 */
static int idle_sink;

/*
 * With --late-sink nothing reads the socket until CMD has ended: the
 * datagrams queue in a receive buffer made large enough for the run and
 * are drained and counted afterwards. No task is woken by the load while
 * CMD runs, so CMD sees only what the packets cost in hardirq and softirq
 * context. Even SCHED_IDLE, the sink is woken for every batch and runs at
 * ticks: 68 to 79 switches out of a 500M-instruction loop on one vCPU
 * (arm64 7.2) at 400 datagrams/s, against 4 to 8 without load, each a few
 * thousand instructions of scheduler code in the loop's task context.
 */
static int late_sink;
#define LATE_SINK_RCVBUF	(16 << 20)

static unsigned long long drain(int fd)
{
	unsigned long long n = 0;
	char buf[2048];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

static void *sink(void *arg)
{
	struct sched_param idle = { .sched_priority = 0 };
	int fd = *(int *)arg;
	char buf[2048];

	if (idle_sink && pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle))
		fprintf(stderr, "ctxload: sink stays SCHED_OTHER\n");
	while (!atomic_load(&stopping)) {
		if (recv(fd, buf, sizeof(buf), 0) > 0)
			atomic_fetch_add(&received, 1);
	}
	return NULL;
}

static void *loopback_sender(void *arg)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(SINK_PORT) };
	char payload[64] = "ctxload";
	double start = now(), t;
	unsigned long long sent = 0, due;
	int fd = udp_socket();

	(void)arg;
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while (!atomic_load(&stopping) && (t = now()) - start < seconds) {
		due = (unsigned long long)((t - start) * rate);
		for (; sent < due; sent++)
			sendto(fd, payload, sizeof(payload), 0, (struct sockaddr *)&dst, sizeof(dst));
		usleep(1000);
	}
	close(fd);
	return NULL;
}

/* One request to the host helper; returns its answer or NULL. */
static const char *host_request(const char *req, char *answer, size_t len)
{
	struct sockaddr_in host = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = 1 };
	const char *addr = getenv("CTX_LOAD_HOST"), *port = getenv("CTX_LOAD_PORT");
	int fd, attempt;
	ssize_t n;

	if (!addr || !port || !atoi(port)) {
		fprintf(stderr, "ctxload: CTX_LOAD_HOST/CTX_LOAD_PORT not set: no host load helper (run under scripts/vm)\n");
		return NULL;
	}
	host.sin_port = htons(atoi(port));
	if (inet_pton(AF_INET, addr, &host.sin_addr) != 1) {
		fprintf(stderr, "ctxload: bad CTX_LOAD_HOST %s\n", addr);
		return NULL;
	}
	fd = udp_socket();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (attempt = 0; attempt < 3; attempt++) {
		sendto(fd, req, strlen(req), 0, (struct sockaddr *)&host, sizeof(host));
		n = recv(fd, answer, len - 1, 0);
		if (n > 0) {
			answer[n] = '\0';
			close(fd);
			return answer;
		}
	}
	close(fd);
	fprintf(stderr, "ctxload: no answer from the host load helper at %s:%s\n", addr, port);
	return NULL;
}

static void report(const struct snapshot *a, const struct snapshot *b, double secs,
		   const char *mode)
{
	unsigned long long irq = 0, net_rx = 0;
	int c;

	fprintf(stderr, "ctxload: %s load, %lu/s requested, %.2f s: %llu packets received\n",
		mode, rate, secs, (unsigned long long)atomic_load(&received));
	fprintf(stderr, "ctxload: virtio input interrupts:");
	for (c = 0; c < b->ncpus; c++) {
		fprintf(stderr, " cpu%d +%llu", c, b->irq[c] - a->irq[c]);
		irq += b->irq[c] - a->irq[c];
	}
	fprintf(stderr, "\nctxload: NET_RX softirqs:");
	for (c = 0; c < b->ncpus; c++) {
		fprintf(stderr, " cpu%d +%llu", c, b->net_rx[c] - a->net_rx[c]);
		net_rx += b->net_rx[c] - a->net_rx[c];
	}
	fprintf(stderr, "\nctxload: packets=%llu virtio_irqs=%llu net_rx=%llu seconds=%.2f\n",
		(unsigned long long)atomic_load(&received), irq, net_rx, secs);
}

static int run_command(char **cmd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("ctxload: fork");
		return 126;
	}
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "ctxload: exec %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(SINK_PORT) };
	struct timeval tv = { .tv_usec = 100000 };
	int loopback = 0, allow_no_load = 0, i, fd, status;
	struct snapshot before, after;
	pthread_t sink_thread, sender_thread;
	char req[64], answer[128];
	double start;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--loopback"))
			loopback = 1;
		else if (!strcmp(argv[i], "--allow-no-load"))
			allow_no_load = 1;
		else if (!strcmp(argv[i], "--idle-sink"))
			idle_sink = 1;
		else if (!strcmp(argv[i], "--late-sink"))
			late_sink = 1;
		else if (!strcmp(argv[i], "--stop"))
			return host_request("stop", answer, sizeof(answer)) ? 0 : 126;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			usage();
	}
	if (i >= argc || !rate || !seconds || (idle_sink && late_sink))
		usage();

	fd = udp_socket();
	any.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&any, sizeof(any)) < 0) {
		fprintf(stderr, "ctxload: bind UDP port %d: %s\n", SINK_PORT, strerror(errno));
		return 126;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (!late_sink)
		pthread_create(&sink_thread, NULL, sink, &fd);
	else if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ LATE_SINK_RCVBUF },
			    sizeof(int)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ LATE_SINK_RCVBUF }, sizeof(int));

	take_snapshot(&before);
	start = now();
	if (loopback) {
		pthread_create(&sender_thread, NULL, loopback_sender, NULL);
	} else {
		snprintf(req, sizeof(req), "start %lu %lu", rate, seconds);
		if (!host_request(req, answer, sizeof(answer)) || strncmp(answer, "ok", 2)) {
			atomic_store(&stopping, 1);
			return 126;
		}
	}

	status = run_command(&argv[i]);

	if (loopback) {
		atomic_store(&stopping, 1);
		pthread_join(sender_thread, NULL);
	} else {
		host_request("stop", answer, sizeof(answer));
	}
	usleep(200000);		/* let the last datagrams in flight land */
	take_snapshot(&after);
	atomic_store(&stopping, 1);
	if (late_sink)
		atomic_store(&received, drain(fd));
	else
		pthread_join(sink_thread, NULL);
	report(&before, &after, now() - start, loopback ? "loopback" : "network");

	if (!atomic_load(&received) && !allow_no_load) {
		fprintf(stderr, "ctxload: FAIL: no packet arrived, the command ran without load\n");
		return 125;
	}
	return status;
}
