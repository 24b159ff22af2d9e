// SPDX-License-Identifier: GPL-2.0
/* Shared helpers of the ctxcount selftests; see ctx_lib.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <netlink/genl/genl.h>

#include "ctx_lib.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#define CTX_NLMSGERR_ATTR_MSG 1
#define CTX_NLMSGERR_ATTR_OFFS 2
#define CTX_NLMSGERR_ATTR_MISS_TYPE 5
#define CTX_NLMSGERR_ATTR_MAX 8

/* ---- netlink client ---------------------------------------------------- */

int ctx_fd(struct ctx_sock *s)
{
	return nl_socket_get_fd(s->sk);
}

static void parse_ack(struct nlmsghdr *nlh, struct ctx_ack *ack)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	struct nlattr *tb[CTX_NLMSGERR_ATTR_MAX + 1];
	size_t off, len;

	ack->err = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	off = NLMSG_ALIGN(off);
	if (NLMSG_HDRLEN + off >= nlh->nlmsg_len)
		return;
	len = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CTX_NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off), len, NULL))
		return;
	if (tb[CTX_NLMSGERR_ATTR_MSG]) {
		ack->has_msg = true;
		snprintf(ack->msg, sizeof(ack->msg), "%.*s",
			 nla_len(tb[CTX_NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[CTX_NLMSGERR_ATTR_MSG]));
		/* an empty string is not a message */
		if (!ack->msg[0])
			ack->has_msg = false;
	}
	if (tb[CTX_NLMSGERR_ATTR_OFFS]) {
		ack->has_off = true;
		ack->off = nla_get_u32(tb[CTX_NLMSGERR_ATTR_OFFS]);
	}
	if (tb[CTX_NLMSGERR_ATTR_MISS_TYPE]) {
		ack->has_miss = true;
		ack->miss_type = nla_get_u32(tb[CTX_NLMSGERR_ATTR_MISS_TYPE]);
	}
}

static void parse_event(struct nlattr *nest, struct ctx_ev_res *r)
{
	struct nlattr *tb[CTXCOUNT_EVENT_A_MAX + 1];
	struct nlattr *b;
	int rem;

	memset(r, 0, sizeof(*r));
	memset(tb, 0, sizeof(tb));
	if (nla_parse_nested(tb, CTXCOUNT_EVENT_A_MAX, nest, NULL))
		return;
	if (tb[CTXCOUNT_EVENT_A_INDEX]) {
		r->has_index = true;
		r->index = nla_get_u32(tb[CTXCOUNT_EVENT_A_INDEX]);
	}
	if (tb[CTXCOUNT_EVENT_A_ERROR]) {
		r->has_error = true;
		r->error = nla_get_s32(tb[CTXCOUNT_EVENT_A_ERROR]);
	}
	if (tb[CTXCOUNT_EVENT_A_FULL]) {
		r->has_full = true;
		r->full = nla_get_u64(tb[CTXCOUNT_EVENT_A_FULL]);
	}
	if (tb[CTXCOUNT_EVENT_A_TIME_ENABLED]) {
		r->has_enabled = true;
		r->enabled = nla_get_u64(tb[CTXCOUNT_EVENT_A_TIME_ENABLED]);
	}
	if (tb[CTXCOUNT_EVENT_A_TIME_RUNNING]) {
		r->has_running = true;
		r->running = nla_get_u64(tb[CTXCOUNT_EVENT_A_TIME_RUNNING]);
	}
	if (!tb[CTXCOUNT_EVENT_A_BUCKETS])
		return;
	r->has_buckets = true;
	nla_for_each_nested(b, tb[CTXCOUNT_EVENT_A_BUCKETS], rem) {
		int t = nla_type(b);

		r->nbuckets++;
		if (t <= CTXCOUNT_BUCKET_UNSPEC || t > CTXCOUNT_BUCKET_MAX ||
		    nla_len(b) != 8) {
			r->bad_buckets++;
			continue;
		}
		if (r->has_b[t])
			r->dup_buckets++;
		r->has_b[t] = true;
		r->b[t] = nla_get_u64(b);
	}
}

static void parse_reply(struct nlmsghdr *nlh, struct ctx_res *res)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nlattr *ev;
	int rem;

	res->replied = true;
	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CTXCOUNT_A_MAX, genlmsg_attrdata(g, 0),
		      genlmsg_attrlen(g, 0), NULL))
		return;
	if (tb[CTXCOUNT_A_SESSION_ID]) {
		res->has_id = true;
		res->id = nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]);
	}
	if (tb[CTXCOUNT_A_TASKS_SEEN]) {
		res->has_seen = true;
		res->tasks_seen = nla_get_u64(tb[CTXCOUNT_A_TASKS_SEEN]);
	}
	if (tb[CTXCOUNT_A_TASKS_LOST]) {
		res->has_lost = true;
		res->tasks_lost = nla_get_u64(tb[CTXCOUNT_A_TASKS_LOST]);
	}
	if (tb[CTXCOUNT_A_STATS_SESSIONS]) {
		res->has_sessions = true;
		res->sessions = nla_get_u32(tb[CTXCOUNT_A_STATS_SESSIONS]);
	}
	if (tb[CTXCOUNT_A_STATS_FEATURES]) {
		res->has_features = true;
		res->features = nla_get_u32(tb[CTXCOUNT_A_STATS_FEATURES]);
	}
	if (!tb[CTXCOUNT_A_EVENTS])
		return;
	nla_for_each_nested(ev, tb[CTXCOUNT_A_EVENTS], rem) {
		if (nla_type(ev) != CTXCOUNT_EVENTS_A_EVENT)
			continue;
		if (res->nev >= (int)(sizeof(res->ev) / sizeof(res->ev[0])))
			break;
		parse_event(ev, &res->ev[res->nev++]);
	}
}

/* Generic request/ack on any genl family; ctrl replies go to ctrl_cb. */
static int xfer(struct nl_sock *sk, struct nl_msg *msg, int family,
		struct ctx_res *res, struct ctx_ack *ack,
		void (*ctrl_cb)(struct nlmsghdr *, void *), void *cb_arg)
{
	struct ctx_ack local;
	uint32_t seq;
	int ret;

	if (!ack)
		ack = &local;
	memset(ack, 0, sizeof(*ack));
	if (res)
		memset(res, 0, sizeof(*res));
	ret = nl_send_auto(sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (ret < 0) {
		ack->err = -EIO;
		return ack->err;
	}
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len, done = 0;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			ack->err = len == -NLE_AGAIN ? -ETIMEDOUT : -EIO;
			return ack->err;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				parse_ack(nlh, ack);
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == family) {
				if (ctrl_cb)
					ctrl_cb(nlh, cb_arg);
				else if (res)
					parse_reply(nlh, res);
			}
		}
		free(buf);
		if (done)
			return ack->err;
	}
}

struct family_info {
	bool found;
	int id;
	unsigned int version, maxattr;
};

static void family_cb(struct nlmsghdr *nlh, void *arg)
{
	struct family_info *fi = arg;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CTRL_ATTR_MAX, genlmsg_attrdata(g, 0),
		      genlmsg_attrlen(g, 0), NULL))
		return;
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return;
	fi->found = true;
	fi->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		fi->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (tb[CTRL_ATTR_MAXATTR])
		fi->maxattr = nla_get_u32(tb[CTRL_ATTR_MAXATTR]);
}

int ctx_open(struct ctx_sock *s)
{
	struct family_info fi = { 0 };
	struct timeval tv = { .tv_sec = 20 };
	struct nl_msg *m;
	int one = 1, ret;

	memset(s, 0, sizeof(*s));
	s->sk = nl_socket_alloc();
	if (!s->sk)
		return -ENOMEM;
	if (genl_connect(s->sk)) {
		nl_socket_free(s->sk);
		s->sk = NULL;
		return -EIO;
	}
	nl_socket_enable_msg_peek(s->sk);
	nl_socket_set_msg_buf_size(s->sk, 65536);
	setsockopt(ctx_fd(s), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(ctx_fd(s), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(ctx_fd(s), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	m = nlmsg_alloc();
	if (!m) {
		ctx_close(s);
		return -ENOMEM;
	}
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
		    NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	nla_put_string(m, CTRL_ATTR_FAMILY_NAME, CTXCOUNT_GENL_NAME);
	ret = xfer(s->sk, m, GENL_ID_CTRL, NULL, NULL, family_cb, &fi);
	if (ret || !fi.found) {
		ctx_close(s);
		return ret ? ret : -ENOENT;
	}
	s->family = fi.id;
	s->version = fi.version;
	s->maxattr = fi.maxattr;
	return 0;
}

void ctx_close(struct ctx_sock *s)
{
	if (s->sk)
		nl_socket_free(s->sk);
	s->sk = NULL;
}

struct nl_msg *ctx_msg(struct ctx_sock *s, uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc_size(32768);

	if (!m)
		return NULL;
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, s->family, 0,
		    NLM_F_REQUEST | NLM_F_ACK, cmd, CTXCOUNT_GENL_VERSION);
	return m;
}

int ctx_put_target(struct nl_msg *m, int pid, uint32_t flags)
{
	struct nlattr *t = nla_nest_start(m, CTXCOUNT_A_TARGET | NLA_F_NESTED);

	if (!t)
		return -EMSGSIZE;
	if (pid >= 0 && nla_put_u32(m, CTXCOUNT_TARGET_A_PID, pid))
		return -EMSGSIZE;
	if (nla_put_u32(m, CTXCOUNT_TARGET_A_FLAGS, flags))
		return -EMSGSIZE;
	nla_nest_end(m, t);
	return 0;
}

int ctx_put_events(struct nl_msg *m, const struct ctx_ev *ev, int n)
{
	struct nlattr *all = nla_nest_start(m, CTXCOUNT_A_EVENTS | NLA_F_NESTED);
	int i;

	if (!all)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		struct nlattr *e = nla_nest_start(m, CTXCOUNT_EVENTS_A_EVENT |
						     NLA_F_NESTED);

		if (!e || nla_put_u32(m, CTXCOUNT_EVENT_A_TYPE, ev[i].type) ||
		    nla_put_u64(m, CTXCOUNT_EVENT_A_CONFIG, ev[i].config) ||
		    nla_put_u32(m, CTXCOUNT_EVENT_A_FLAGS, ev[i].flags))
			return -EMSGSIZE;
		nla_nest_end(m, e);
	}
	/* libnl drops an empty nest; n == 0 must send one */
	nla_nest_end_keep_empty(m, all);
	return 0;
}

int ctx_xfer(struct ctx_sock *s, struct nl_msg *msg, struct ctx_res *res,
	     struct ctx_ack *ack)
{
	return xfer(s->sk, msg, s->family, res, ack, NULL, NULL);
}

int ctx_new(struct ctx_sock *s, int pid, uint32_t tflags,
	    const struct ctx_ev *ev, int n, struct ctx_res *res,
	    struct ctx_ack *ack)
{
	struct nl_msg *m = ctx_msg(s, CTXCOUNT_CMD_SESSION_NEW);

	if (!m)
		return -ENOMEM;
	if (ctx_put_target(m, pid, tflags) || ctx_put_events(m, ev, n)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return ctx_xfer(s, m, res, ack);
}

int ctx_cmd(struct ctx_sock *s, uint8_t cmd, uint32_t id,
	    struct ctx_res *res, struct ctx_ack *ack)
{
	struct nl_msg *m = ctx_msg(s, cmd);

	if (!m)
		return -ENOMEM;
	if (cmd != CTXCOUNT_CMD_STATS &&
	    nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return ctx_xfer(s, m, res, ack);
}

long ctx_live_sessions(void)
{
	struct ctx_sock s;
	struct ctx_res *res = calloc(1, sizeof(*res));
	long ret;

	if (!res)
		return -ENOMEM;
	ret = ctx_open(&s);
	if (!ret) {
		ret = ctx_cmd(&s, CTXCOUNT_CMD_STATS, 0, res, NULL);
		if (!ret)
			ret = res->has_sessions ? (long)res->sessions : -EPROTO;
		ctx_close(&s);
	}
	free(res);
	return ret;
}

long ctx_wait_live_sessions(long want, int ms)
{
	long live = ctx_live_sessions();

	while (live != want && ms > 0) {
		usleep(20000);
		ms -= 20;
		live = ctx_live_sessions();
	}
	return live;
}

int ctx_cpu_is_online(int cpu)
{
	char path[128], c = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

int ctx_cpu_set_online(int cpu, int on)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

long ctx_tracepoint_id(const char *event)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	char path[256];
	unsigned int i;
	long id = -1;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/id", roots[i], event);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
	}
	return id;
}

uint64_t ctx_bucket_sum(const struct ctx_ev_res *e)
{
	uint64_t sum = 0;
	int b;

	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum += e->b[b];
	return sum;
}

uint64_t ctx_softirq_sum(const struct ctx_ev_res *e)
{
	uint64_t sum = 0;
	int b;

	for (b = CTXCOUNT_BUCKET_SOFTIRQ_FIRST; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum += e->b[b];
	return sum;
}

const char *ctx_bucket_name(int b)
{
	static const char *const names[] = {
		[CTXCOUNT_BUCKET_TASK] = "task",
		[CTXCOUNT_BUCKET_HARDIRQ] = "hardirq",
		[CTXCOUNT_BUCKET_NMI] = "nmi",
		[CTXCOUNT_BUCKET_SOFTIRQ_HI] = "HI",
		[CTXCOUNT_BUCKET_SOFTIRQ_TIMER] = "TIMER",
		[CTXCOUNT_BUCKET_SOFTIRQ_NET_TX] = "NET_TX",
		[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX] = "NET_RX",
		[CTXCOUNT_BUCKET_SOFTIRQ_BLOCK] = "BLOCK",
		[CTXCOUNT_BUCKET_SOFTIRQ_IRQ_POLL] = "IRQ_POLL",
		[CTXCOUNT_BUCKET_SOFTIRQ_TASKLET] = "TASKLET",
		[CTXCOUNT_BUCKET_SOFTIRQ_SCHED] = "SCHED",
		[CTXCOUNT_BUCKET_SOFTIRQ_HRTIMER] = "HRTIMER",
		[CTXCOUNT_BUCKET_SOFTIRQ_RCU] = "RCU",
	};

	if (b <= 0 || b > CTXCOUNT_BUCKET_MAX)
		return "?";
	return names[b];
}

void ctx_fmt_event(const struct ctx_ev_res *e, char *buf, size_t len)
{
	size_t n;
	int b;

	n = snprintf(buf, len, "err=%d full=%llu sum=%llu en=%llu run=%llu",
		     e->error, (unsigned long long)e->full,
		     (unsigned long long)ctx_bucket_sum(e),
		     (unsigned long long)e->enabled,
		     (unsigned long long)e->running);
	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX && n < len; b++)
		if (e->b[b])
			n += snprintf(buf + n, len - n, " %s=%llu",
				      ctx_bucket_name(b),
				      (unsigned long long)e->b[b]);
}

/* ---- module and environment -------------------------------------------- */

bool ctx_module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/ctxcount", &st) == 0;
}

int ctx_param_get(const char *name, long *val)
{
	char path[256], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/ctxcount/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*val = strtol(buf, NULL, 0);
	return 0;
}

int ctx_param_set(const char *name, long val)
{
	char path[256];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "/sys/module/ctxcount/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%ld\n", val) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

const char *ctx_ko_path(void)
{
	const char *p = getenv("CTXCOUNT_KO");

	return p && *p ? p : "/ctx/module/ctxcount.ko";
}

const char *ctx_ctxstat_path(void)
{
	const char *p = getenv("CTXSTAT");

	return p && *p ? p : "/ctx/bin/ctxstat";
}

const char *ctx_ctxload_path(void)
{
	const char *p = getenv("CTXLOAD");

	return p && *p ? p : "/ctx/bin/ctxload";
}

const char *ctx_self_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = 0;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return dir;
}

const char *ctx_workload_path(void)
{
	static char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/ctx_workload", ctx_self_dir());
	return path;
}

static int ctx_copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			err = -EIO;
			break;
		}
	}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

const char *ctx_workload_copy(void)
{
	char dir[] = "/tmp/ctx_workload.XXXXXX";
	static char path[sizeof(dir) + 16];
	int err;

	if (!mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof(path), "%s/ctx_workload", dir);
	err = ctx_copy_file(ctx_workload_path(), path, 0755);
	if (err) {
		unlink(path);
		rmdir(dir);
		errno = -err;
		return NULL;
	}
	return path;
}

void ctx_workload_copy_remove(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	if (!path)
		return;
	unlink(path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		rmdir(dir);
	}
}

int ctx_rmmod(void)
{
	int i;

	/* A session's last reference may be dropped by RCU; retry briefly. */
	for (i = 0; i < 50; i++) {
		if (!syscall(SYS_delete_module, "ctxcount", O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		usleep(100000);
	}
	return -errno;
}

int ctx_insmod(const char *params)
{
	int fd = open(ctx_ko_path(), O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		ret = -errno;
	close(fd);
	return ret;
}

void ctx_current_params(char *buf, size_t len)
{
	static const char *const names[] = {
		"max_sessions", "max_sessions_per_socket", "paranoid",
	};
	size_t n = 0;
	unsigned int i;
	long v;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && n < len; i++)
		if (!ctx_param_get(names[i], &v))
			n += snprintf(buf + n, len - n, "%s%s=%ld",
				      n ? " " : "", names[i], v);
}

const char *ctx_cannot_run(void)
{
	struct ctx_sock s;
	int ret;

	if (geteuid() != 0)
		return "must run as root\n";
	if (!ctx_module_loaded())
		return "ctxcount module not loaded (insmod ctxcount.ko first)\n";
	ret = ctx_open(&s);
	if (ret == -ENOENT)
		return "ctxcount module loaded but its genl family is missing\n";
	if (ret)
		return "cannot open a generic netlink socket\n";
	ctx_close(&s);
	return NULL;
}

int ctx_event_error(const struct ctx_ev *ev)
{
	struct ctx_sock s;
	struct ctx_res *res = calloc(1, sizeof(*res));
	int ret;

	if (!res)
		return -ENOMEM;
	ret = ctx_open(&s);
	if (ret) {
		free(res);
		return ret;
	}
	ret = ctx_new(&s, getpid(), 0, ev, 1, res, NULL);
	if (!ret) {
		if (res->nev == 1 && res->ev[0].has_error)
			ret = res->ev[0].error;
		else
			ret = -EPROTO;
		ctx_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, res->id, NULL, NULL);
	}
	ctx_close(&s);
	free(res);
	return ret;
}

long long ctx_perf_count(uint32_t type, uint64_t config, uint32_t flags,
			 void (*fn)(void *), void *arg)
{
	struct perf_event_attr pa;
	long long count;
	int fd;

	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = type;
	pa.config = config;
	pa.disabled = 1;
	pa.exclude_user = !!(flags & CTXCOUNT_EVENT_F_EXCLUDE_USER);
	pa.exclude_kernel = !!(flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL);
	pa.exclude_hv = !!(flags & CTXCOUNT_EVENT_F_EXCLUDE_HV);
	fd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	fn(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -EIO;
	close(fd);
	return count;
}

const char *ctx_perf_path(void)
{
	/*
	 * A versioned binary first: where /usr/bin/perf is Debian's wrapper
	 * it looks for perf_$(running kernel), which may not be installed.
	 */
	static const char *const cands[] = {
		"/usr/bin/perf_6.1", "/usr/bin/perf_6.12", "/usr/bin/perf",
		"/usr/local/bin/perf", "/usr/sbin/perf",
	};
	const char *env = getenv("PERF");
	unsigned int i;

	if (env && *env && !access(env, X_OK))
		return env;
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (!access(cands[i], X_OK))
			return cands[i];
	return NULL;
}

/* ---- forked workloads -------------------------------------------------- */

int ctx_child_fork(struct ctx_child *c, void (*fn)(void *), void *arg)
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

int ctx_child_go(struct ctx_child *c)
{
	int ret = write(c->go_fd, "g", 1) == 1 ? 0 : -errno;

	close(c->go_fd);
	c->go_fd = -1;
	return ret;
}

int ctx_child_wait(struct ctx_child *c)
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

/* ---- running programs -------------------------------------------------- */

int ctx_run_as(struct ctx_run *r, char *const argv[], int timeout_s,
	       int uid, int gid)
{
	int po[2], pe[2];
	size_t no = 0, ne = 0;
	double end = ctx_now() + timeout_s;
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
		if (uid >= 0) {
			if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
			    setresuid(uid, uid, uid))
				_exit(126);
		}
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
		int left = (int)((end - ctx_now()) * 1000), n;

		if (fds[0].fd < 0 && fds[1].fd < 0)
			break;
		if (left <= 0) {
			r->timed_out = true;
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

int ctx_run(struct ctx_run *r, char *const argv[], int timeout_s)
{
	return ctx_run_as(r, argv, timeout_s, -1, -1);
}

/* ---- perf stat / ctxstat CSV output ------------------------------------ */

int ctx_csv_find(const char *text, char sep, const char *event,
		 struct ctx_csv_row *row)
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

/* ---- kernel log -------------------------------------------------------- */

int ctx_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	lseek(fd, 0, SEEK_END);
	return fd;
}

int ctx_kmsg_reports(int fd, char *first, size_t len)
{
	static const char *const pats[] = {
		"WARNING:", "BUG:", "Oops", "kernel BUG", "general protection",
		"Call trace:", "Call Trace:", "UBSAN:", "KASAN:",
		"possible circular locking", "possible recursive locking",
		"suspicious RCU usage", "inconsistent lock state",
		"scheduling while atomic", "sleeping function called",
		"refcount_t:", "list_add corruption", "list_del corruption",
		"kmemleak:", "INFO: task",
	};
	char rec[8192];
	int found = 0;
	unsigned int i;

	if (first && len)
		first[0] = 0;
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;
		}
		if (n == 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			if (strstr(msg, pats[i])) {
				if (!found && first && len)
					snprintf(first, len, "%s", msg);
				found++;
				break;
			}
		}
	}
	return found;
}

unsigned long long ctx_total_interrupts(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	unsigned long long total = 0;
	char line[4096];
	int ncpu = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		char *p = line;

		while ((p = strstr(p, "CPU"))) {
			ncpu++;
			p += 3;
		}
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');
		int i;

		if (!p)
			continue;
		/* ERR: and MIS: are not per-CPU counts of delivered irqs */
		if (strstr(line, "ERR:") || strstr(line, "MIS:"))
			continue;
		p++;
		for (i = 0; i < ncpu; i++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			total += v;
			p = end;
		}
	}
	fclose(f);
	return total;
}

unsigned long long ctx_softirq_total(const char *name)
{
	FILE *f = fopen("/proc/softirqs", "r");
	unsigned long long total = 0;
	char line[4096];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *colon = strchr(line, ':');

		while (*p == ' ')
			p++;
		if (!colon || strncmp(p, name, strlen(name)) ||
		    p + strlen(name) != colon)
			continue;
		p = colon + 1;
		for (;;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			total += v;
			p = end;
		}
	}
	fclose(f);
	return total;
}

void ctx_loop_fn(void *iters)
{
	ctx_loop(*(uint64_t *)iters);
}

/*
 * Whether the hardware instruction counter counts here: the module's answer
 * first, then the kernel's own perf_event_open on a known loop.
 */
const char *ctx_no_insn_reason(char *buf, size_t len)
{
	static const struct ctx_ev insn = CTX_EV_HW(INSTRUCTIONS, 0, "instructions");
	uint64_t n = 100000;
	long long c;
	int err = ctx_event_error(&insn);

	if (err) {
		snprintf(buf, len, "no hardware PMU (instructions: %s)",
			 strerror(-err));
		return buf;
	}
	c = ctx_perf_count(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0,
			   ctx_loop_fn, &n);
	if (c <= 0) {
		snprintf(buf, len,
			 "no hardware PMU (perf_event_open instructions: %lld)", c);
		return buf;
	}
	return NULL;
}

bool ctx_kernel_is_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/*
 * Whether the running kernel has a function of this name: /proc/kallsyms
 * lists names even where kptr_restrict hides the addresses.
 */
bool ctx_kernel_has_symbol(const char *name)
{
	char line[512], sym[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, name);
	fclose(f);
	return found;
}

/* The pids (up to max) of the processes whose comm starts with prefix. */
static int find_comm_prefix(const char *prefix, pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			pids[n++] = atoi(de->d_name);
		fclose(f);
	}
	closedir(d);
	return n;
}

int ctx_irq_threads(const char *name, pid_t *pids, int max)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096], prefix[32];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9' || !strstr(line, name))
			continue;
		/* comm is "irq/N-<name>", cut to 15 characters */
		snprintf(prefix, sizeof(prefix), "irq/%d-", atoi(p));
		n += find_comm_prefix(prefix, pids + n, max - n);
	}
	fclose(f);
	return n;
}
