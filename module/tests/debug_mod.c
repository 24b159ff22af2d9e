// SPDX-License-Identifier: GPL-2.0
/*
 * Test-bed self test for the debug kernel: on load, commit the bug named by
 * bug= (kasan, lockdep, atomic_sleep, leak), so scripts/check-debug can
 * prove that each of the debug kernel's reports fails a run. On other
 * kernels only some of them report anything.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "kasan, lockdep, atomic_sleep or leak");

static DEFINE_MUTEX(debug_mod_a);
static DEFINE_MUTEX(debug_mod_b);
static DEFINE_SPINLOCK(debug_mod_lock);

/* A one-byte read past an 8-byte object: KASAN slab-out-of-bounds. */
static noinline void debug_mod_kasan(void)
{
	char *p = kmalloc(8, GFP_KERNEL);

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(p);
	pr_info("debug_mod: read %d\n", READ_ONCE(p[8]));
	kfree(p);
}

/* A then B, later B then A: lockdep's circular dependency, no deadlock. */
static noinline void debug_mod_lockdep(void)
{
	mutex_lock(&debug_mod_a);
	mutex_lock(&debug_mod_b);
	mutex_unlock(&debug_mod_b);
	mutex_unlock(&debug_mod_a);

	mutex_lock(&debug_mod_b);
	mutex_lock(&debug_mod_a);
	mutex_unlock(&debug_mod_a);
	mutex_unlock(&debug_mod_b);
}

/* The check every sleeping function makes, under a spinlock. */
static noinline void debug_mod_atomic_sleep(void)
{
	spin_lock(&debug_mod_lock);
	might_sleep();
	spin_unlock(&debug_mod_lock);
}

/* 64 bytes nobody points to any more: kmemleak's next scans report them. */
static noinline void debug_mod_leak(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	memset(p, 0x5a, 64);
	OPTIMIZER_HIDE_VAR(p);
}

static int __init debug_mod_init(void)
{
	if (!strcmp(bug, "kasan"))
		debug_mod_kasan();
	else if (!strcmp(bug, "lockdep"))
		debug_mod_lockdep();
	else if (!strcmp(bug, "atomic_sleep"))
		debug_mod_atomic_sleep();
	else if (!strcmp(bug, "leak"))
		debug_mod_leak();
	else
		return -EINVAL;
	return 0;
}

static void __exit debug_mod_exit(void)
{
}

module_init(debug_mod_init);
module_exit(debug_mod_exit);
MODULE_DESCRIPTION("ctxcount test bed: commit the bug named by bug= on load");
MODULE_LICENSE("GPL");
