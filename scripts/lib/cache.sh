# shellcheck shell=bash
# Where the test bed keeps things (sourced). Two places:
#
#   $shared (CTX_CACHE_DIR, default ${XDG_CACHE_HOME:-~/.cache}/ctxcount):
#     what comes from Debian's archive or is built from it alone, the same
#     for every clone on the machine: kernel packages and their trees
#     (scripts/vm), headers, guest roots, the sid build root
#     (scripts/sid-root), the debug kernel (scripts/debug-kernel). Each is
#     named or stamped with what it is made from (a kernel version, a
#     recipe, a hash), so a second clone reuses it, a changed recipe
#     rebuilds it, and a fresh machine builds all of it from nothing.
#   $top/.cache (per clone): what this clone's sources make (per-target
#     builds, initramfs images, run directories, packages) and what
#     only the package tests use (scripts/deb, scripts/check-packages).
#
# Whatever two clones (or two targets of one `make check`) may make at
# once is made under a lock in $shared/locks (shared_lock).

# shellcheck disable=SC2034  # used by the scripts that source this
shared=${CTX_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/ctxcount}

# shared_lock FD NAME: take $shared/locks/NAME on FD, waiting for it.
shared_lock() {
	mkdir -p "$shared/locks"
	eval "exec $1>\"\$shared/locks/\$2\""
	flock "$1"
}
