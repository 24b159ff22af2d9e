/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_CALIB_H
#define _CTXCOUNT_CALIB_H

#include "account.h"
#include "counters.h"

void ctx_calib_session(struct ctx_acct *a, const struct ctx_event_spec *spec);
int ctx_calib_user_begin(struct ctx_acct *a, const struct ctx_event_spec *spec,
			 bool storm);
int ctx_calib_user_end(struct ctx_acct *a, const struct ctx_event_spec *spec);
void ctx_calib_user_abort(struct ctx_acct *a);
void ctx_calib_exit(void);

#endif /* _CTXCOUNT_CALIB_H */
