/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calibration's measuring: at load (calib.c) and at a privileged
 * client's request (calib_user.c). The figures it measures and the
 * estimate made of them are calib_est.h's.
 */
#ifndef _CTXCOUNT_CALIB_H
#define _CTXCOUNT_CALIB_H

#include <linux/types.h>

void ctx_calib_init(void);
void ctx_calib_exit(void);

void ctx_calib_user_init(void);
int ctx_calib_user_begin(const void *owner, bool storm);
int ctx_calib_user_end(const void *owner);
void ctx_calib_user_exit(void);

#endif /* _CTXCOUNT_CALIB_H */
