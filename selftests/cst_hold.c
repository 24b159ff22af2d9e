// SPDX-License-Identifier: GPL-2.0
/*
 * cst_hold: a target's perf mutex held on request, and requests from
 * threads of their own (see cst_hold.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/userfaultfd.h>

#include "cst_hold.h"
#include "cst_sys.h"

int cst_hold_setup(struct cst_hold *h)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { };

	h->page = MAP_FAILED;
	h->fd = -1;
	h->uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (h->uffd < 0)
		return -errno;
	if (ioctl(h->uffd, UFFDIO_API, &api))
		return -errno;
	h->psz = sysconf(_SC_PAGESIZE);
	h->page = mmap(NULL, h->psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->page == MAP_FAILED)
		return -errno;
	reg.range.start = (unsigned long)h->page;
	reg.range.len = h->psz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(h->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	return 0;
}

/* The holder: reads the event into the page, so it waits holding ctx->mutex. */
static void *holder_thread(void *arg)
{
	struct cst_hold *h = arg;

	h->ret = read(h->fd, h->page, sizeof(uint64_t));
	return NULL;
}

int cst_hold_begin(struct cst_hold *h, int fd)
{
	struct pollfd pfd = { .fd = h->uffd, .events = POLLIN };
	struct uffd_msg msg;
	int err;

	h->fd = fd;
	h->ret = -1;
	err = pthread_create(&h->thread, NULL, holder_thread, h);
	if (err)
		return -err;
	if (poll(&pfd, 1, 5000) != 1)
		return -ETIMEDOUT;
	if (read(h->uffd, &msg, sizeof(msg)) != sizeof(msg))
		return -EIO;
	return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : -EPROTO;
}

int cst_hold_end(struct cst_hold *h)
{
	struct uffdio_zeropage zero = { };
	int err = 0;

	zero.range.start = (unsigned long)h->page;
	zero.range.len = h->psz;
	if (ioctl(h->uffd, UFFDIO_ZEROPAGE, &zero))
		err = -errno;
	pthread_join(h->thread, NULL);
	/* Missing again: the next holder faults as this one did. */
	if (madvise(h->page, h->psz, MADV_DONTNEED) && !err)
		err = -errno;
	if (!err && h->ret != sizeof(uint64_t))
		err = h->ret < 0 ? -EIO : -ENODATA;
	return err;
}

void cst_hold_cleanup(struct cst_hold *h)
{
	if (h->page != MAP_FAILED)
		munmap(h->page, h->psz);
	if (h->uffd >= 0)
		close(h->uffd);
	h->page = MAP_FAILED;
	h->uffd = -1;
}

static void *req_thread(void *arg)
{
	struct cst_req *q = arg;

	q->tid = syscall(SYS_gettid);
	q->ret = q->fn(q);
	q->done = 1;
	return NULL;
}

bool cst_req_within(struct cst_req *q, int s)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	if (pthread_create(&q->thread, NULL, req_thread, q))
		return false;
	for (i = 0; i < s * 100 && !q->done; i++)
		nanosleep(&ts, NULL);
	return q->done;
}

bool cst_req_blocked(struct cst_req *q)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64], buf[256], *p;
	int i, fd;
	ssize_t n;

	for (i = 0; i < 500 && !q->tid; i++)
		nanosleep(&ts, NULL);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", q->tid);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'D')
				return true;
		}
		nanosleep(&ts, NULL);
	}
	return false;
}

int cst_req_cmd(struct cst_req *q)
{
	return cst_cmd(q->s, q->cmd, q->id, NULL, NULL);
}

int cst_req_new_proof(struct cst_req *q)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = cst_new_proof(q->s, q->pid, 0, q->ev, q->proof_fd, r, NULL);
	free(r);
	return ret;
}

int cst_req_getfamily(struct cst_req *q)
{
	struct nl_sock *sk = nl_socket_alloc();
	int ret;

	if (!sk)
		return -ENOMEM;
	ret = genl_connect(sk);
	if (!ret)
		ret = genl_ctrl_resolve(sk, q->family);
	nl_socket_free(sk);
	return ret;
}

long cst_module_refs(void)
{
	FILE *f = fopen("/sys/module/ctxcount/refcnt", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* /proc/@pid/@file into @buf, as cst_read_text(). */
static ssize_t proc_read(const char *pid, const char *file, char *buf,
			 size_t len)
{
	char path[300];

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, file);
	return cst_read_text(path, buf, len);
}

bool cst_registration_waits(void)
{
	char buf[4096];
	struct dirent *d;
	bool found = false;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!found && (d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		if (proc_read(d->d_name, "comm", buf, sizeof(buf)) <= 0 ||
		    strncmp(buf, "modprobe\n", 9))
			continue;
		if (proc_read(d->d_name, "stack", buf, sizeof(buf)) < 0)
			continue;
		found = strstr(buf, "genl_register_family");
	}
	closedir(proc);
	return found;
}
