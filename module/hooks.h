/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_HOOKS_H
#define _CTXCOUNT_HOOKS_H

#include <linux/errno.h>
#include <linux/types.h>

int ctx_hooks_register(void);
void ctx_hooks_unregister(void);
u32 ctx_hooks_features(void);

void ctx_hook_nmi_enter(void);
void ctx_hook_nmi_exit(void);

#ifdef CONFIG_X86
int ctx_nmi_hooks_register(void);
void ctx_nmi_hooks_unregister(void);
#else
/* No traceable NMI entry/exit: NMI counts fold into the interrupted context. */
static inline int ctx_nmi_hooks_register(void)
{
	return -EOPNOTSUPP;
}

static inline void ctx_nmi_hooks_unregister(void)
{
}
#endif /* CONFIG_X86 */

#endif /* _CTXCOUNT_HOOKS_H */
