/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_CPUHP_H
#define _CTXCOUNT_CPUHP_H

struct ctx_session;
struct perf_event;

int ctx_cpuhp_init(void);
void ctx_cpuhp_exit(void);

void ctx_cpuhp_session_init(struct ctx_session *s);
int ctx_cpuhp_add(struct ctx_session *s);
void ctx_cpuhp_remove(struct ctx_session *s);

#endif /* _CTXCOUNT_CPUHP_H */
