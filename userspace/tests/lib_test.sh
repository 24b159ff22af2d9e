#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libctxcount as a program outside the tree sees it (TAP): its archive
# defines no global name outside its prefix ctxc_ (a static library has
# no export list: any other global would be the linking program's
# problem), its header compiles alone, without libnl's, and what
# make install-lib installs builds and links a client through pkg-config.
# LIBCTXCOUNT_O: the build directory (make's O); CC: the compiler.
set -u
here=$(cd "$(dirname "$0")" && pwd)
o=${LIBCTXCOUNT_O:-$here/../build}
cc=${CC:-gcc}
n=0
failed=0
tmp=$(mktemp -d /tmp/libctxcount-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; failed=1; }

others=$(nm -g --defined-only "$o/libctxcount.a" |
	awk 'NF == 3 && $3 !~ /^ctxc_/ { print $3 }')
if [ -s "$o/libctxcount.a" ] && [ -z "$others" ]; then
	ok "libctxcount.a: every global symbol is ctxc_*"
else
	not_ok "libctxcount.a: globals outside ctxc_: ${others:-no archive}"
fi

# Only the UAPI header beside it: libnl's are the library's business.
if echo '#include <ctxcount/ctxcount.h>' |
   "$cc" -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -x c \
	-I"$here/../lib/include" -I"$here/../../include/uapi" - 2>"$tmp/err"; then
	ok "ctxcount.h compiles alone, without libnl's headers"
else
	not_ok "ctxcount.h does not compile alone: $(head -n 3 "$tmp/err")"
fi

cat >"$tmp/client.c" <<'C'
#include <stdio.h>
#include <ctxcount/ctxcount.h>

int main(void)
{
	struct ctxc_sock nl;
	int err = ctxc_open(&nl);

	/* No module on a build host: -ENOENT; either way it ran. */
	if (!err)
		ctxc_close(&nl);
	printf("%d\n", err);
	return 0;
}
C
if make -s -C "$here/.." O="$o" DESTDIR="$tmp/root" PREFIX=/usr \
	install-lib >"$tmp/err" 2>&1 &&
   flags=$(PKG_CONFIG_PATH="$tmp/root/usr/lib/pkgconfig" \
	PKG_CONFIG_SYSROOT_DIR="$tmp/root" \
	pkg-config --cflags --libs libctxcount 2>"$tmp/err") &&
   "$cc" -o "$tmp/client" "$tmp/client.c" $flags 2>"$tmp/err" &&
   "$tmp/client" >"$tmp/out" 2>"$tmp/err"; then
	ok "make install-lib: a client builds with pkg-config's flags and runs (ctxc_open: $(cat "$tmp/out"))"
else
	not_ok "make install-lib, pkg-config, a client: $(head -n 3 "$tmp/err")"
fi

echo "1..$n"
exit "$failed"
