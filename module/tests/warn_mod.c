// SPDX-License-Identifier: GPL-2.0
/*
 * Test-bed self test: a module whose load triggers a kernel WARNING, so
 * scripts/check can prove that scripts/vm fails a run with one.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init warn_mod_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit warn_mod_exit(void)
{
}

module_init(warn_mod_init);
module_exit(warn_mod_exit);
MODULE_DESCRIPTION("ctxcount test bed: WARN_ON(1) on load");
MODULE_LICENSE("GPL");
