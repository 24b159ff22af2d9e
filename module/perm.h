/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_PERM_H
#define _CTXCOUNT_PERM_H

#include <linux/types.h>

struct ctx_event_req;
struct ctx_target;
struct file;
struct netlink_ext_ack;
struct perf_event;
struct sk_buff;
struct task_struct;

int ctx_perm_get_proofs(const struct ctx_target *target,
			const struct ctx_event_req *req, unsigned int nr,
			struct file **proof, struct netlink_ext_ack *extack);
int ctx_perm_check_proofs(struct task_struct *task,
			  const struct ctx_event_req *req, struct file **proof,
			  unsigned int nr, struct netlink_ext_ack *extack);
void ctx_perm_put_proofs(struct file **proof, unsigned int nr);
int ctx_perm_check_read(struct file **proof, unsigned int nr,
			struct netlink_ext_ack *extack);
int ctx_perm_check_counter(struct file *proof, struct perf_event *counter,
			   const struct ctx_event_req *req,
			   struct netlink_ext_ack *extack);
int ctx_perm_lock_target(struct task_struct *task);
void ctx_perm_unlock_target(struct task_struct *task);
bool ctx_perm_same_access(const struct task_struct *proven,
			  const struct task_struct *t);
bool ctx_perm_privileged(const struct sk_buff *skb);

#endif /* _CTXCOUNT_PERM_H */
