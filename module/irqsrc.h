/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_IRQSRC_H
#define _CTXCOUNT_IRQSRC_H

#include <linux/types.h>

void ctx_irqsrc_init(void);
u32 ctx_irqsrc_features(void);
int ctx_irqsrc_get(void);
void ctx_irqsrc_put(void);

#endif /* _CTXCOUNT_IRQSRC_H */
