// SPDX-License-Identifier: GPL-2.0
/*
 * The LSM hook perf applies at every read(): security_perf_event_read().
 * A policy that lets a user open a perf event but not read it stops
 * `perf stat` from counting; it must stop that user's READ of a session
 * the same way, on the events the module made for it.
 *
 * The policy is a BPF LSM program on the hook (lsm/perf_event_read) that
 * refuses uid 65534, loaded through bpf(2) with no libbpf: seven
 * instructions, the hook's BTF id looked up in /sys/kernel/btf/vmlinux.
 * The oracle is perf itself: uid 65534's read() of its own perf event
 * fails under the policy. Skipped, saying why, where the kernel has no
 * BPF syscall or BTF (the debug kernel), or "bpf" is not an active LSM.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY 65534
#define HOOK "bpf_lsm_perf_event_read"

static const struct cst_ev ev_clock = CST_EV_SW(TASK_CLOCK, 0, "task-clock");

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Bytes after struct btf_type that a type of @kind with @vlen carries. */
static long btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return 12L * vlen;
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
		return 8L * vlen;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

/* The kernel's BTF, read whole (sysfs cannot map it before 6.15). */
static void *btf_read(size_t *len)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	size_t cap = 1 << 22, n = 0;
	char *buf = NULL, *more;
	ssize_t got;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || n == cap) {
			more = realloc(buf, cap *= 2);
			if (!more)
				break;
			buf = more;
		}
		got = read(fd, buf + n, cap - n);
		if (got <= 0)
			break;
		n += got;
	}
	close(fd);
	*len = n;
	return buf;
}

/* The BTF id of the function @name in the kernel's BTF; 0 when absent. */
static unsigned int btf_func_id(const char *name, const char **why)
{
	const struct btf_header *h;
	const char *types, *strs, *p;
	unsigned int id = 1, found = 0;
	size_t len = 0;
	void *map = btf_read(&len);

	if (!map || len < sizeof(*h)) {
		*why = "no /sys/kernel/btf/vmlinux (a kernel without BTF)";
		free(map);
		return 0;
	}
	h = map;
	types = (const char *)map + h->hdr_len + h->type_off;
	strs = (const char *)map + h->hdr_len + h->str_off;
	for (p = types; p < types + h->type_len; id++) {
		const struct btf_type *t = (const void *)p;
		long extra = btf_extra(BTF_INFO_KIND(t->info),
				       BTF_INFO_VLEN(t->info));

		if (extra < 0) {
			*why = "a BTF kind this test does not know";
			break;
		}
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    !strcmp(strs + t->name_off, name)) {
			found = id;
			break;
		}
		p += sizeof(*t) + extra;
	}
	if (!found && p >= types + h->type_len)
		*why = "the kernel's BTF has no " HOOK;
	free(map);
	return found;
}

/*
 * Attach the policy: perf_event_read returns -EACCES for uid @uid.
 * Returns the link's fd (closing it detaches), or -1 with @why set.
 */
static int policy_attach(unsigned int uid, const char **why)
{
	struct bpf_insn insn[] = {
		/* r0 = bpf_get_current_uid_gid() & 0xffffffff */
		{ .code = BPF_JMP | BPF_CALL,
		  .imm = BPF_FUNC_get_current_uid_gid },
		{ .code = BPF_ALU | BPF_MOV | BPF_X },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .off = 2, .imm = uid },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = -EACCES },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	static char log[4096];
	union bpf_attr a;
	unsigned int id;
	int prog, link;

	id = btf_func_id(HOOK, why);
	if (!id)
		return -1;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_LSM;
	a.expected_attach_type = BPF_LSM_MAC;
	a.attach_btf_id = id;
	a.insns = (unsigned long)insn;
	a.insn_cnt = sizeof(insn) / sizeof(insn[0]);
	a.license = (unsigned long)"GPL";
	a.log_buf = (unsigned long)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	prog = bpf(BPF_PROG_LOAD, &a);
	if (prog < 0) {
		*why = errno == ENOSYS ? "a kernel without the bpf() system call" :
			"BPF_PROG_LOAD of the LSM program failed";
		if (errno != ENOSYS)
			fprintf(stderr, "# BPF_PROG_LOAD: %s\n# %s\n",
				strerror(errno), log);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = prog;
	link = bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (link < 0) {
		fprintf(stderr, "# attaching the LSM program: %s\n",
			strerror(errno));
		*why = "cannot attach the BPF LSM program";
	}
	close(prog);
	return link;
}

/* What uid 65534 saw, step by step (shared with the parent). */
struct steps {
	int made;		/* SESSION_NEW, START: 0 or -errno */
	int read_before;	/* READ before the policy */
	int perf_read;		/* read() of its own perf event under it */
	int read_under;		/* READ under the policy */
	int read_after;		/* READ once it is gone */
	char msg[512];		/* READ's extack under the policy */
};

static void step_signal(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(3);
}

static void step_wait(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(4);
}

/* A perf read() of a perf_event_open() of the same event: 0 or -errno. */
static int perf_read_own(void)
{
	uint64_t v;
	int fd = cst_proof_open(getpid(), 0, &ev_clock), err = 0;

	if (fd < 0)
		return fd;
	if (read(fd, &v, sizeof(v)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The user's side: a session, and READs before, under and after. */
static void as_nobody(struct steps *st, int to_parent, int from_parent)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_ack ack = {};
	struct cst_sock s;
	uint32_t id;

	if (!r || cst_become(NOBODY, NOBODY))
		_exit(2);
	st->made = cst_open(&s) ?: cst_new(&s, getpid(), 0, &ev_clock, 1, r,
					   NULL);
	id = r->id;
	if (!st->made)
		st->made = cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, id, NULL,
				   NULL);
	st->read_before = cst_read(&s, id, 0, r, NULL);
	step_signal(to_parent);
	step_wait(from_parent);
	st->perf_read = perf_read_own();
	st->read_under = cst_read(&s, id, 0, r, &ack);
	snprintf(st->msg, sizeof(st->msg), "%s", ack.msg);
	step_signal(to_parent);
	step_wait(from_parent);
	st->read_after = cst_read(&s, id, 0, r, NULL);
	cst_close(&s);
	_exit(0);
}

FIXTURE(lsm) {
	long saved_paranoid;
	struct steps *st;
	int kmsg;
};

FIXTURE_SETUP(lsm)
{
	self->kmsg = cst_kmsg_open();
	self->st = mmap(NULL, sizeof(*self->st), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->st);
	ASSERT_EQ(0, cst_paranoid_get(&self->saved_paranoid));
	/* At 1 perf gives a user its own processes' events. */
	ASSERT_EQ(0, cst_paranoid_set(1));
}

FIXTURE_TEARDOWN(lsm)
{
	EXPECT_EQ(0, cst_paranoid_set(self->saved_paranoid));
	munmap(self->st, sizeof(*self->st));
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/*
 * A session made before the policy came reads until it comes, is refused
 * while it is there, as perf's read() of the same event is, and reads
 * again once it is gone: the hook is applied at each READ, with the
 * reader's credentials, as perf applies it at each read().
 */
TEST_F(lsm, read_refused_while_perf_read_is)
{
	struct steps *st = self->st;
	int up[2], down[2], link = -1, status;
	const char *why = NULL;
	pid_t pid;

	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(up[0]);
		close(down[1]);
		as_nobody(st, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	step_wait(up[0]);
	link = policy_attach(NOBODY, &why);
	step_signal(down[1]);
	step_wait(up[0]);
	if (link >= 0)
		close(link);
	step_signal(down[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("the user's side failed: status %#x", status);
	ASSERT_EQ(0, st->made);
	EXPECT_EQ(0, st->read_before);
	EXPECT_EQ(0, st->read_after);
	if (link < 0)
		SKIP(return, "%s", why);
	if (!st->perf_read)
		SKIP(return, "the BPF LSM program is attached but perf's read() still succeeds: \"bpf\" is not an active LSM (lsm= on the command line)");
	ASSERT_EQ(-EACCES, st->perf_read);
	EXPECT_EQ(-EACCES, st->read_under)
		TH_LOG("READ under a policy that refuses perf's read(): %d (%s)",
		       st->read_under, strerror(-st->read_under));
	EXPECT_NE(0, st->msg[0]) TH_LOG("the refusal has no extack message");
	TH_LOG("READ refused as perf's read() is: \"%s\"", st->msg);
}

/* One tool's answer as uid 65534 under the policy. */
struct answer {
	bool counted;		/* exit 0 and a number for the event */
	int exit;		/* exit status, -1 when killed */
};

static void ask(struct cst_run *run, bool perf, struct answer *a)
{
	char *argv[16];
	struct cst_csv_row row;
	int n = cst_stat_argv(argv, perf, "task-clock");

	if (!perf)
		argv[n++] = "--";
	argv[n++] = "/bin/true";
	argv[n] = NULL;
	cst_run_as(run, argv, 120, NOBODY, NOBODY);
	a->exit = WIFEXITED(run->status) ? WEXITSTATUS(run->status) : -1;
	a->counted = !a->exit && !cst_csv_find(run->err, ',', "task-clock",
					       &row) && row.numeric;
	fprintf(stderr, "# %s: exit %d, stderr: %.400s\n",
		perf ? "perf stat" : "ctxstat", a->exit, run->err);
}

/*
 * Under the policy perf stat as uid 65534 counts nothing; ctxstat, asked
 * the same, counts nothing either and says why.
 */
TEST_F(lsm, ctxstat_refused_as_perf_stat)
{
	struct cst_run *run = malloc(sizeof(*run));
	struct answer perf, ctx;
	const char *why = NULL;
	int link;

	ASSERT_NE(NULL, run);
	if (!cst_perf_path())
		SKIP(free(run); return, "no perf binary in the guest");
	link = policy_attach(NOBODY, &why);
	if (link < 0)
		SKIP(free(run); return, "%s", why);
	ask(run, true, &perf);
	ask(run, false, &ctx);
	close(link);
	if (perf.counted)
		SKIP(free(run); return, "the BPF LSM program is attached but perf stat still counts: \"bpf\" is not an active LSM");
	EXPECT_FALSE(ctx.counted) TH_LOG("ctxstat counted what perf stat could not");
	EXPECT_NE(0, ctx.exit);
	EXPECT_NE(NULL, strstr(run->err, "security module"))
		TH_LOG("ctxstat does not say why it cannot count");
	free(run);
}

CST_TEST_MAIN
