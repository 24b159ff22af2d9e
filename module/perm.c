// SPDX-License-Identifier: GPL-2.0
/*
 * Who may count what: the kernel's own perf rules, applied by the kernel.
 *
 * The checks perf_event_open(2) makes (kernel.perf_event_paranoid,
 * CAP_PERFMON/CAP_SYS_ADMIN, ptrace access under exec_update_lock, the LSM
 * hook security_perf_event_open(), seccomp on the syscall, the PMU
 * driver's checks of the config against the caller, exclude_kernel) are
 * not exported to modules in a usable form. So the requester proves each
 * event: it opens the same event itself with perf_event_open() on the same
 * target (a task: that thread, cpu -1, the session's inherit; system-wide:
 * pid -1 and any CPU), disabled, and passes the fd with SESSION_NEW. The
 * generic netlink handler runs in the sender's context, so the fd is
 * resolved in the sender's file table: only what perf gave this sender
 * proves anything. Root proves its events too (perf applies LSM and
 * seccomp to root as well). One CPU event proves a system-wide session
 * on every CPU of its CPU list: perf_event_open()'s checks of a CPU
 * event (perf_allow_cpu(), security_perf_event_open()) do not depend on
 * which CPU, only that it is online, which SESSION_NEW checks for each
 * listed CPU (netlink.c).
 *
 * Exec and exit: where perf detaches a task's events (perf_event_exit_task(),
 * called at exit and at an exec of an image that is not SUID_DUMP_USER),
 * the task leaves every per-task session (ctx_session_perf_exit()): the
 * kernel's own call site applies perf's rule. Proofs detached that way
 * are refused (ctx_perm_check_target()).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/ctxcount.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "perm.h"
#include "session.h"

/*
 * Is @file a perf event? perf_fops is static in kernel/events/core.c. Its
 * files are anonymous-inode files named "[perf_event]", and in 6.1 only
 * core.c creates a file of that name; but anonymous-inode files are named
 * by their creator, and 6.12's bcachefs (a module in Debian) names them
 * after the caller's comm (fs/bcachefs/thread_with_file.c), which a user
 * sets. So the release method must also be the perf core's perf_release():
 * no module (f_op->owner), and kallsyms names it (text symbols are in
 * kallsyms without CONFIG_KALLSYMS_ALL). The name test runs first: it
 * keeps other files away from the lookup.
 */
static bool ctx_perm_is_perf_file(struct file *file)
{
	static const char want[] = "perf_release+0x0/";
	const struct file_operations *fop = file->f_op;
	bool ok;
	char *sym;

	if (file_inode(file)->i_sb->s_magic != ANON_INODE_FS_MAGIC ||
	    strcmp(file->f_path.dentry->d_name.name, "[perf_event]") ||
	    !fop || fop->owner || !fop->release)
		return false;
	sym = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!sym)
		return false;
	sprint_symbol(sym, (unsigned long)fop->release);
	/* "perf_release+0x0/0x20", and no " [module]" after it. */
	ok = !strncmp(sym, want, sizeof(want) - 1) && !strchr(sym, ' ');
	kfree(sym);
	return ok;
}

/* The exclude bits of @attr as enum ctxcount_event_flag bits. */
static u32 ctx_perm_exclude_flags(const struct perf_event_attr *attr)
{
	return (attr->exclude_user ? CTXCOUNT_EVENT_F_EXCLUDE_USER : 0) |
	       (attr->exclude_kernel ? CTXCOUNT_EVENT_F_EXCLUDE_KERNEL : 0) |
	       (attr->exclude_hv ? CTXCOUNT_EVENT_F_EXCLUDE_HV : 0);
}

/*
 * The perf core may rewrite a request's type and config before a PMU
 * accepts it (6.12 gives cpu-clock and task-clock PMU types of their own
 * and masks the PMU type out of an extended hardware config); the
 * counters ctxcount creates go through the same rewriting, and
 * ctx_perm_check_counter() compares them with the proof. Here only the
 * type's family: the request's own type, or the PMU the core picked.
 */
static bool ctx_perm_type_may_match(const struct perf_event *event,
				    const struct ctx_event_spec *spec)
{
	return event->attr.type == spec->type ||
	       (spec->type < PERF_TYPE_MAX &&
		event->attr.type == event->pmu->type);
}

/*
 * The config: the request's, or for a hardware or cache event the same
 * without the PMU type the core masks out of an extended config (6.12).
 * Every other type's config names its event whole: a tracepoint's is the
 * tracepoint's id, a PMU's its encoding.
 */
static bool ctx_perm_config_matches(const struct perf_event_attr *attr,
				    const struct ctx_event_spec *spec)
{
	if (attr->config == spec->config)
		return true;
	return (spec->type == PERF_TYPE_HARDWARE ||
		spec->type == PERF_TYPE_HW_CACHE) &&
	       attr->config == (spec->config & PERF_HW_EVENT_MASK);
}

/*
 * The proof's extack: each message is a literal, NL_SET_ERR_MSG_ATTR()
 * keeps a pointer to it.
 */
#define CTX_PERM_REFUSE(extack, attr, msg) ({		\
	NL_SET_ERR_MSG_ATTR(extack, attr, msg);		\
	-EACCES;					\
})

/* Does @event ask for @req's event, with nothing a ctxcount counter lacks? */
static int ctx_perm_check_attr(const struct perf_event *event,
			       const struct ctx_event_req *req,
			       u32 target_flags,
			       struct netlink_ext_ack *extack)
{
	const struct perf_event_attr *attr = &event->attr;
	const struct ctx_event_spec *spec = &req->spec;
	bool inherit = target_flags & CTXCOUNT_TARGET_F_INHERIT;

	if (!ctx_perm_type_may_match(event, spec))
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event has another type");
	if (!ctx_perm_config_matches(attr, spec))
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event has another config");
	/* The counters are created with these 0: breakpoint, probe PMUs. */
	if (attr->config1 || attr->config2 || attr->bp_type)
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event has config1, config2 or bp_type set");
	if (ctx_perm_exclude_flags(attr) != spec->flags)
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event has other exclude_user/kernel/hv bits");
	if (!(target_flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) &&
	    attr->inherit != inherit)
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event's inherit differs from the target's INHERIT");
	return 0;
}

/* Is @event attached where the session will count? */
static int ctx_perm_check_target(const struct perf_event *event,
				 struct task_struct *task,
				 const struct ctx_event_req *req,
				 struct netlink_ext_ack *extack)
{
	enum perf_event_state state = READ_ONCE(event->state);

	if (event->parent)
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event is an inherited child");
	if (!task) {
		if (event->hw.target || event->cpu < 0)
			return CTX_PERM_REFUSE(extack, req->fd_attr,
					       "system-wide target needs a proof perf event opened on a CPU (pid -1)");
		return 0;
	}
	if (event->hw.target != task || event->cpu != -1)
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event is not on the target thread (pid = target, cpu = -1)");
	/*
	 * perf_event_exit_task() detached it: the task exited, or exec'd an
	 * image that is not SUID_DUMP_USER. The caller holds the task's
	 * exec_update_lock, so no exec is half-way through that.
	 */
	if (state == PERF_EVENT_STATE_EXIT || state == PERF_EVENT_STATE_DEAD)
		return CTX_PERM_REFUSE(extack, req->fd_attr,
				       "proof perf event was detached from the target (exit, or exec of a setuid or unreadable program)");
	return 0;
}

static int ctx_perm_get_proof(const struct ctx_target *target,
			      const struct ctx_event_req *req,
			      struct file **proof,
			      struct netlink_ext_ack *extack)
{
	struct file *file;
	int err;

	if (req->perf_fd < 0)
		return CTX_PERM_REFUSE(extack, req->attr,
				       "event has no proof: CTXCOUNT_EVENT_A_PERF_FD, a perf_event_open() fd of the same event on the same target");
	file = fget(req->perf_fd);
	if (!file) {
		NL_SET_ERR_MSG_ATTR(extack, req->fd_attr,
				    "proof is not an open file descriptor of the sender");
		return -EBADF;
	}
	if (!ctx_perm_is_perf_file(file)) {
		err = CTX_PERM_REFUSE(extack, req->fd_attr,
				      "proof is not a perf event");
		goto err_put;
	}
	err = ctx_perm_check_attr(file->private_data, req, target->flags,
				  extack);
	if (err)
		goto err_put;
	*proof = file;
	return 0;

err_put:
	fput(file);
	return err;
}

/**
 * ctx_perm_get_proofs() - take the proof of every requested event
 * @target: the request's target
 * @req: the events, with the sender's proof fds
 * @nr: number of events
 * @proof: filled with a reference to each proof's file, for
 *	ctx_perm_check_proofs() and ctx_perm_check_counter(); release with
 *	ctx_perm_put_proofs()
 * @extack: names the event whose proof is missing or does not match
 *
 * Each proof must be a perf event of the sender's with the requested
 * attributes. Where it is attached is checked by ctx_perm_check_proofs(),
 * under the target's exec_update_lock.
 *
 * Context: the sender's process context (its file table), may sleep.
 * Return: 0, or -EACCES / -EBADF with nothing held.
 */
int ctx_perm_get_proofs(const struct ctx_target *target,
			const struct ctx_event_req *req, unsigned int nr,
			struct file **proof, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		err = ctx_perm_get_proof(target, &req[i], &proof[i], extack);
		if (err) {
			ctx_perm_put_proofs(proof, i);
			return err;
		}
	}
	return 0;
}

/**
 * ctx_perm_check_proofs() - are the proofs attached where the session counts
 * @task: the target task, its exec_update_lock held for reading
 *	(ctx_perm_lock_target()); NULL for a system-wide target
 * @req: the events, for the error messages
 * @proof: their proofs (ctx_perm_get_proofs())
 * @nr: number of events
 * @extack: names the event whose proof is elsewhere
 *
 * Context: process context (any task's: only the proofs are read).
 * Return: 0 or -EACCES.
 */
int ctx_perm_check_proofs(struct task_struct *task,
			  const struct ctx_event_req *req, struct file **proof,
			  unsigned int nr, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		err = ctx_perm_check_target(proof[i]->private_data, task,
					    &req[i], extack);
		if (err)
			return err;
	}
	return 0;
}

/**
 * ctx_perm_put_proofs() - release what ctx_perm_get_proofs() took
 * @proof: the proofs' files (NULL ones are skipped); each is set to NULL
 * @nr: how many
 */
void ctx_perm_put_proofs(struct file **proof, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (proof[i])
			fput(proof[i]);
		proof[i] = NULL;
	}
}

/*
 * What a read() of @proof checks before it reads anything: vfs_read()'s
 * rw_verify_area() (the LSM's file hook), then perf_read()'s LSM hook
 * security_perf_event_read(), neither of which perf exports otherwise.
 * With no room for a value, perf_read() stops right after its hook with
 * -ENOSPC (or 0 for an event in error state): nothing is read, nothing is
 * copied (the buffer is never touched).
 */
static int ctx_perm_read_hooks(struct file *proof)
{
	loff_t pos = 0;
	ssize_t ret;

	if (!(proof->f_mode & FMODE_READ))
		return -EBADF;
	ret = rw_verify_area(READ, proof, &pos, 0);
	if (!ret)
		ret = proof->f_op->read(proof, NULL, 0, &pos);
	return ret == -ENOSPC || ret >= 0 ? 0 : ret;
}

/**
 * ctx_perm_check_read() - may the current task read these events, as perf
 * @proof: the session's proofs (ctx_perm_get_proofs()), kept by the session
 * @nr: how many
 * @extack: says that the LSM refused
 *
 * perf applies its LSM hook at every read() of an event, with the
 * reader's credentials: a policy may let a user open an event and not
 * read it, or change between two reads. So each READ of a session asks
 * the same hooks of each proof, the same event the user's perf stat would
 * read, with the credentials of the READ's sender.
 *
 * Context: process context with the sender's credentials, may sleep: the
 * proof's perf context mutex is taken (the target's, for a task).
 * Return: 0, or the hook's error (-EACCES, -EPERM).
 */
int ctx_perm_check_read(struct file **proof, unsigned int nr,
			struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		err = ctx_perm_read_hooks(proof[i]);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "a security module refuses this reader the read() of an event, as it would refuse perf stat's");
			return err;
		}
	}
	return 0;
}

/**
 * ctx_perm_check_counter() - is @counter the event @proof proves
 * @proof: the proof's file (ctx_perm_get_proofs())
 * @counter: a counter created for the same request, or NULL when none
 *	could be created (the event then counts nothing)
 * @req: the event, for the error message
 * @extack: for the error message
 *
 * After the perf core's rewriting (see ctx_perm_type_may_match()) both
 * must name the same PMU type and config.
 *
 * Return: 0 or -EACCES.
 */
int ctx_perm_check_counter(struct file *proof, struct perf_event *counter,
			   const struct ctx_event_req *req,
			   struct netlink_ext_ack *extack)
{
	const struct perf_event *event = proof->private_data;

	if (!counter || (event->attr.type == counter->attr.type &&
			 event->attr.config == counter->attr.config))
		return 0;
	return CTX_PERM_REFUSE(extack, req->fd_attr,
			       "proof perf event is another event than the one requested");
}

/**
 * ctx_perm_lock_target() - hold off @task's exec while it is checked
 * @task: the target
 *
 * exec takes exec_update_lock for writing from exec_mmap() until its new
 * credentials are committed and perf has detached the events of a
 * non-dumpable image; perf_event_open() checks under it for reading.
 * SESSION_NEW holds it for reading from the proof checks until the
 * target's threads are in the session, where the exec hook finds them.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINTR when the caller is killed while waiting.
 */
int ctx_perm_lock_target(struct task_struct *task)
{
	return down_read_killable(&task->signal->exec_update_lock);
}

/**
 * ctx_perm_unlock_target() - release ctx_perm_lock_target()
 * @task: the target
 */
void ctx_perm_unlock_target(struct task_struct *task)
{
	up_read(&task->signal->exec_update_lock);
}

/**
 * ctx_perm_same_access() - does @proven's proof cover thread @t
 * @proven: the thread the proofs were opened on
 * @t: another thread of the same process
 *
 * perf stat -p opens an event on each thread, and each open checks
 * ptrace access to that thread: its ids and capabilities. A thread whose
 * credentials differ in what that check reads is not covered.
 *
 * Context: RCU read side.
 * Return: true if @t may be counted with @proven's proofs.
 */
bool ctx_perm_same_access(const struct task_struct *proven,
			  const struct task_struct *t)
{
	const struct cred *a = __task_cred(proven);
	const struct cred *b = __task_cred(t);

	if (a == b)
		return true;
	return uid_eq(a->uid, b->uid) && uid_eq(a->euid, b->euid) &&
	       uid_eq(a->suid, b->suid) && gid_eq(a->gid, b->gid) &&
	       gid_eq(a->egid, b->egid) && gid_eq(a->sgid, b->sgid) &&
	       a->user_ns == b->user_ns &&
	       cap_issubset(b->cap_permitted, a->cap_permitted);
}

/**
 * ctx_perm_privileged() - may the sender of @skb go beyond per-user limits
 * @skb: a request
 *
 * CAP_PERFMON or CAP_SYS_ADMIN both of the socket's opener and of the
 * sender: a privileged program writing to a socket an unprivileged one
 * opened (or the other way round) is not privileged.
 *
 * Context: the sender's process context.
 * Return: true if both have one of them.
 */
bool ctx_perm_privileged(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}
