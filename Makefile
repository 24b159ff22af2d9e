# SPDX-License-Identifier: GPL-2.0
#
# ctxcount: task-context-only performance counting.
#
#   make                 module for the running kernel + ctxstat
#   make KDIR=... ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-   cross build
#   make check           host unit tests + selftests in every guest target
#   make check-kernels   selftests on the kernels make check leaves out
#                        (release candidates, more PREEMPT_RT)
#   make check-debug     selftests + kmemleak on the KASAN/lockdep debug kernel
#   make check-scale     system-wide selftests on 64 (x86_64) and 128 (arm64) vCPUs
#   make check-fresh     make demo on a pristine Debian 12 root (chroot)
#   make check-packages  the Debian packages (make deb) from apt install to
#                        purge in the x86_64 6.1 and 6.12 guests
#   make demo            the task-only vs full experiment in a guest;
#                        DEMO_TARGET=T on another target (scripts/vm --list)
#   make style           checkpatch on the module sources; scripts/layers
#   make install         module (modules_install), ctxstat (and the script
#                        ctxstat quiesce runs), UAPI header, man pages, bash
#                        completion; PREFIX, DESTDIR, KDIR,
#                        INSTALL_MODULE=0 (userspace only); make uninstall
#   make dkms-install    module through DKMS (rebuilt on kernel upgrades);
#                        make dkms-uninstall
#   make deb             Debian packages ctxcount-dkms and ctxstat (debian/),
#                        built and lintian-checked in a clean Debian 12 root
#                        (scripts/deb); they land in .cache/debs-out/

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Where modules_install puts ctxcount.ko below /lib/modules/<release>/
# (kbuild's default differs: extra in 6.1, updates in 6.12).
INSTALL_MOD_DIR ?= extra
# 0: leave the module out of install/uninstall (userspace-only packages).
INSTALL_MODULE ?= 1

# The one version, dkms.conf's PACKAGE_VERSION.
PACKAGE_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$$/\1/p' dkms.conf)
DKMS_SRC = $(DESTDIR)/usr/src/ctxcount-$(PACKAGE_VERSION)
# ctxstat(1) and a page per subcommand.
MAN_PAGES = $(wildcard userspace/*.1)
# Where make -C userspace leaves it (its default O).
CTXSTAT_BIN = userspace/build/ctxstat
# The module's sources, not kbuild's generated *.mod.c.
MODULE_SRCS = $(filter-out %.mod.c,$(wildcard module/*.[ch]))

all: modules userspace

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# kbuild's name for it; M=$(CURDIR) would install module/ctxcount.ko as
# extra/module/ctxcount.ko.
modules_install: install-module

userspace:
	$(MAKE) -C userspace

# ctxstat's, and the module's plain-C parts'.
unit-test:
	$(MAKE) -C userspace test
	$(MAKE) -C module/tests test

style:
	scripts/style

check:
	scripts/check

check-kernels:
	scripts/check --kernels

check-debug:
	scripts/check-debug

check-scale:
	scripts/check-scale

check-fresh:
	scripts/check-fresh

check-packages:
	scripts/check-packages

DEMO_TARGET ?=

demo:
	scripts/demo $(if $(DEMO_TARGET),--target $(DEMO_TARGET))

# ------------------------------------------------------------- install --

# The kernel release KDIR builds for, as modules_install names its directory:
# UTS_RELEASE (Debian's include/config/kernel.release says 6.1.192 where
# the kernel and its modules say 6.1.0-57-amd64).
KRELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
INSTALLED_KO = $(DESTDIR)/lib/modules/$(KRELEASE)/$(INSTALL_MOD_DIR)/ctxcount.ko

install: install-userspace $(if $(filter 1,$(INSTALL_MODULE)),install-module)

uninstall: uninstall-userspace $(if $(filter 1,$(INSTALL_MODULE)),uninstall-module)

# depmod ourselves: kbuild skips it without a System.map, which header
# packages lack. Into a DESTDIR (a package being built) it is the package's
# job.
install-module: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) DEPMOD=true modules_install
	$(if $(DESTDIR),,depmod -a $(KRELEASE))

uninstall-module:
	@test -n "$(KRELEASE)" || { echo "uninstall: no kernel release in $(KDIR) (set KDIR)" >&2; exit 1; }
	rm -f $(INSTALLED_KO) $(INSTALLED_KO).gz $(INSTALLED_KO).xz $(INSTALLED_KO).zst
	$(if $(DESTDIR),,depmod -a $(KRELEASE))

install-userspace: userspace
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/linux \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(CTXSTAT_BIN) $(DESTDIR)$(BINDIR)/ctxstat
	install -D -m 0755 scripts/quiesce $(DESTDIR)$(LIBEXECDIR)/ctxstat/quiesce
	install -m 0644 include/uapi/linux/ctxcount.h $(DESTDIR)$(INCLUDEDIR)/linux/ctxcount.h
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 userspace/completion/ctxstat.bash $(DESTDIR)$(BASHCOMPDIR)/ctxstat

uninstall-userspace:
	rm -f $(DESTDIR)$(BINDIR)/ctxstat \
		$(DESTDIR)$(LIBEXECDIR)/ctxstat/quiesce \
		$(DESTDIR)$(INCLUDEDIR)/linux/ctxcount.h \
		$(MAN_PAGES:userspace/%=$(DESTDIR)$(MANDIR)/man1/%) \
		$(DESTDIR)$(BASHCOMPDIR)/ctxstat
	-rmdir $(DESTDIR)$(LIBEXECDIR)/ctxstat 2>/dev/null

# DKMS: the sources dkms builds from, then add, build and install for the
# running kernel (AUTOINSTALL builds it for every kernel installed later).
dkms-src:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/module $(DKMS_SRC)/include/uapi/linux
	install -m 0644 dkms.conf Makefile Kbuild $(DKMS_SRC)/
	install -m 0644 module/Kbuild $(MODULE_SRCS) $(DKMS_SRC)/module/
	install -m 0644 include/uapi/linux/ctxcount.h $(DKMS_SRC)/include/uapi/linux/

# Installing again replaces what an earlier dkms-install of this version
# left (new sources, same version).
dkms-install: dkms-uninstall
	$(MAKE) dkms-src
	dkms add ctxcount/$(PACKAGE_VERSION)
	dkms install ctxcount/$(PACKAGE_VERSION)

dkms-uninstall:
	if dkms status ctxcount/$(PACKAGE_VERSION) | grep -q .; then \
		dkms remove ctxcount/$(PACKAGE_VERSION) --all; fi
	rm -rf $(DKMS_SRC)

# Not in make check: it downloads a build root (once) and builds both
# packages from the tree's tracked files.
deb:
	scripts/deb

# Not kbuild's "M=$(CURDIR) clean": that deletes every *.ko below M=,
# including the guest kernels' modules cached in .cache/.
clean: module-clean
	$(MAKE) -C userspace clean
	$(MAKE) -C module/tests clean
	$(MAKE) -C selftests clean

# The module's build products only (dkms.conf's CLEAN: its build tree has
# no userspace/).
module-clean:
	$(RM) module/*.o module/*.ko module/*.mod module/*.mod.c \
		module/.*.cmd module/modules.order module/Module.symvers \
		.*.cmd modules.order Module.symvers

.PHONY: all modules modules_install userspace unit-test style check check-kernels check-debug \
	check-scale check-fresh check-packages demo clean \
	module-clean install uninstall install-module uninstall-module \
	install-userspace uninstall-userspace dkms-src dkms-install dkms-uninstall deb
