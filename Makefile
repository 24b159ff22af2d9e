# SPDX-License-Identifier: GPL-2.0
#
# ctxcount: task-context-only performance counting.
#
#   make                 module for the running kernel + ctxstat
#   make KDIR=... ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-   cross build
#   make check           host unit tests + selftests in every guest target
#   make check-debug     selftests + kmemleak on the KASAN/lockdep debug kernel
#   make demo            the task-only vs full experiment in a guest
#   make style           checkpatch on the module sources

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=

all: modules userspace

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

userspace:
	$(MAKE) -C userspace

unit-test:
	$(MAKE) -C userspace test

style:
	scripts/style

check:
	scripts/check

check-debug:
	scripts/check-debug

demo:
	scripts/demo

# Not kbuild's "M=$(CURDIR) clean": that deletes every *.ko below M=,
# including the guest kernels' modules cached in .cache/.
clean:
	$(RM) module/*.o module/*.ko module/*.mod module/*.mod.c \
		module/.*.cmd module/modules.order module/Module.symvers \
		.*.cmd modules.order Module.symvers
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean

.PHONY: all modules modules_install userspace unit-test style check check-debug demo clean
