/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_hold: a target's perf context mutex held for as long as a test
 * likes (issue 31, findings 3 and 4), for stall.c and soak.c: a thread
 * read()s a perf event of the target into a userfaultfd page that nobody
 * fills, and perf holds ctx->mutex across that copy until the test fills
 * the page. And requests made from threads of their own, so that a test
 * can see one wait (state D) while others go on.
 */
#ifndef CST_HOLD_H
#define CST_HOLD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cst_nl.h"

struct cst_hold {
	int uffd;		/* -1 until cst_hold_setup() */
	void *page;		/* registered for missing-page faults */
	long psz;
	int fd;			/* the perf event being read */
	pthread_t thread;
	ssize_t ret;		/* the holder's read() */
};

/* The userfaultfd page: 0, or -errno (no userfaultfd here). */
int cst_hold_setup(struct cst_hold *h);
/*
 * Start the holder reading perf event @fd into the page; 0 once it waits
 * in the fault (within 5 s), or -errno (-ETIMEDOUT: it did not fault).
 */
int cst_hold_begin(struct cst_hold *h, int fd);
/*
 * Fill the page, join the holder and drop the page again for the next
 * cst_hold_begin(): 0 when its read() returned the count, or -errno.
 */
int cst_hold_end(struct cst_hold *h);
void cst_hold_cleanup(struct cst_hold *h);

/* A request made from a thread of its own, with a socket of its own. */
struct cst_req {
	pthread_t thread;
	int (*fn)(struct cst_req *q);
	struct cst_sock *s;	/* the session's own socket */
	uint32_t id;		/* the session it asks for */
	pid_t pid;		/* the target NEW asks for */
	const struct cst_ev *ev;	/* NEW's one event */
	int proof_fd;		/* NEW's proof, opened before the hold */
	const char *family;	/* GETFAMILY's */
	uint8_t cmd;		/* cst_req_cmd()'s command */
	int ret;
	volatile pid_t tid;
	volatile int done;
};

/* Start @q; wait up to @s seconds for it to finish. True if it did. */
bool cst_req_within(struct cst_req *q, int s);
/* @q's thread in state D (waiting on a mutex) within 5 s. */
bool cst_req_blocked(struct cst_req *q);
/* q->cmd on session q->id through q->s. */
int cst_req_cmd(struct cst_req *q);
/* SESSION_NEW of q->ev on q->pid with the proof q->proof_fd, through q->s. */
int cst_req_new_proof(struct cst_req *q);
/* A generic netlink request of the controller's: look up q->family. */
int cst_req_getfamily(struct cst_req *q);

/* The module's references (/sys/module/ctxcount/refcnt), or -1. */
long cst_module_refs(void);
/* Is a modprobe waiting in genl_register_family() (its kernel stack)? */
bool cst_registration_waits(void);

#endif /* CST_HOLD_H */
