// SPDX-License-Identifier: GPL-2.0
/*
 * cst_run: processes the selftests start (see cst_run.h): forked
 * functions held until released, and programs run with their output
 * captured and a timeout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "cst_run.h"

int cst_child_fork(struct cst_child *c, void (*fn)(void *), void *arg)
{
	int p[2];
	char ch;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	if (c->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (c->pid == 0) {
		close(p[1]);
		if (read(p[0], &ch, 1) != 1)
			_exit(3);
		close(p[0]);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	c->go_fd = p[1];
	return 0;
}

int cst_child_go(struct cst_child *c)
{
	int ret = write(c->go_fd, "g", 1) == 1 ? 0 : -errno;

	close(c->go_fd);
	c->go_fd = -1;
	return ret;
}

int cst_child_wait(struct cst_child *c)
{
	int status;

	if (c->go_fd >= 0) {
		close(c->go_fd);
		c->go_fd = -1;
	}
	if (waitpid(c->pid, &status, 0) != c->pid)
		return -1;
	return status;
}

int cst_become(int uid, int gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	/* changing credentials cleared it; a user's own process has it */
	prctl(PR_SET_DUMPABLE, 1);
	return 0;
}

/* One line of a /proc/PID file, or "?". */
static void proc_line(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "r");
	if (!f || !fgets(buf, len, f))
		snprintf(buf, len, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

void cst_report_hung(const char *who, pid_t pgid)
{
	char stat[512], wchan[128], line[256], path[64], *end;
	struct dirent *d;
	DIR *dir = opendir("/proc");
	FILE *f;
	pid_t pid;

	while (dir && (d = readdir(dir))) {
		pid = atoi(d->d_name);
		if (pid <= 0 || getpgid(pid) != pgid)
			continue;
		proc_line(pid, "stat", stat, sizeof(stat));
		proc_line(pid, "wchan", wchan, sizeof(wchan));
		/* "pid (comm) S", the rest is numbers */
		end = strrchr(stat, ')');
		if (end && end[1] && end[2])
			end[3] = '\0';
		printf("# %s: hung run: %s, wchan %s\n", who, stat, wchan);
		snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			printf("# %s:   %s", who, line);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	fflush(stdout);
}

int cst_run_as(struct cst_run *r, char *const argv[], int timeout_s,
	       int uid, int gid)
{
	int po[2], pe[2];
	size_t no = 0, ne = 0;
	double end = cst_now() + timeout_s;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		setpgid(0, 0);
		if (uid >= 0 && cst_become(uid, gid))
			_exit(126);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	for (;;) {
		struct pollfd fds[2] = {
			{ .fd = po[0], .events = POLLIN },
			{ .fd = pe[0], .events = POLLIN },
		};
		int left = (int)((end - cst_now()) * 1000), n;

		if (fds[0].fd < 0 && fds[1].fd < 0)
			break;
		if (left <= 0) {
			r->timed_out = true;
			cst_report_hung(argv[0], pid);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		if (po[0] < 0)
			fds[0].fd = -1;
		if (pe[0] < 0)
			fds[1].fd = -1;
		n = poll(fds, 2, left);
		if (n < 0 && errno != EINTR)
			break;
		if (fds[0].revents) {
			ssize_t k = read(po[0], r->out + no,
					 sizeof(r->out) - 1 - no);
			if (k <= 0) {
				close(po[0]);
				po[0] = -1;
			} else {
				no += k;
			}
		}
		if (fds[1].revents) {
			ssize_t k = read(pe[0], r->err + ne,
					 sizeof(r->err) - 1 - ne);
			if (k <= 0) {
				close(pe[0]);
				pe[0] = -1;
			} else {
				ne += k;
			}
		}
		if (po[0] < 0 && pe[0] < 0)
			break;
	}
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	r->out[no] = 0;
	r->err[ne] = 0;
	if (waitpid(pid, &r->status, 0) != pid)
		r->status = -1;
	return 0;
}

int cst_run(struct cst_run *r, char *const argv[], int timeout_s)
{
	return cst_run_as(r, argv, timeout_s, -1, -1);
}

int cst_call_as(int uid, int gid, int (*fn)(void *), void *arg)
{
	pid_t pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (cst_become(uid, gid))
			_exit(126);
		_exit(fn(arg) & 0x7f);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status))
		return -ECHILD;
	if (WEXITSTATUS(status) == 126)
		return -EPERM;
	return WEXITSTATUS(status);
}

int cst_csv_find(const char *text, char sep, const char *event,
		 struct cst_csv_row *row)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *p = line;
		int n = 0;

		memset(row, 0, sizeof(*row));
		while (p <= line + len && n < 12) {
			const char *q = memchr(p, sep, line + len - p);
			size_t fl = q ? (size_t)(q - p) : (size_t)(line + len - p);

			snprintf(row->f[n++], sizeof(row->f[0]), "%.*s", (int)fl, p);
			if (!q)
				break;
			p = q + 1;
		}
		row->nfields = n;
		if (n >= 3 && !strcmp(row->f[2], event)) {
			char *e;

			row->value = strtod(row->f[0], &e);
			row->numeric = e != row->f[0] && !*e;
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	memset(row, 0, sizeof(*row));
	return -ENOENT;
}

void cst_loop_fn(void *iters)
{
	cst_loop(*(uint64_t *)iters);
}

void cst_dd_fn(void *arg)
{
	execl("/bin/dd", "dd", "if=/dev/zero", "of=/dev/null", "bs=16M",
	      "count=64", "status=none", (char *)NULL);
	_exit(127);
}
