#!/bin/sh
# The measuring half of scripts/demo. Runs where the module is (a guest, or
# this machine with --host): RUNS runs of the workload under ctxstat's
# default events (each with its :t twin) and --breakdown, alternately
# quiet and under load. Every CSV row is printed prefixed "DEMO,<phase>,<run>," and
# every load report "LOAD,<run>,<ctxload's summary>", for the host to tally.
#
#   runs.sh CTXSTAT RUNS LOADWRAP WORKLOAD...
#
# LOADWRAP is a command prefix that runs its arguments under load and prints
# a "packets=N virtio_irqs=N net_rx=N seconds=F" line on stderr (ctxload).
set -eu

ctxstat=$1 runs=$2 loadwrap=$3
shift 3

one_run() {	# phase run [wrapper...]
	phase=$1 run=$2
	shift 2
	if ! "$@" "$ctxstat" -x, --breakdown -o /tmp/demo.csv -- \
		"$WORKLOAD_SHELL" -c "$WORKLOAD >/dev/null" 2>/tmp/demo.err; then
		cat /tmp/demo.err >&2
		echo "demo: run $run ($phase) failed" >&2
		exit 1
	fi
	grep -v '^#' /tmp/demo.csv | grep -v '^$' | sed "s/^/DEMO,$phase,$run,/"
	sed -n "s/^ctxload: \(packets=.*\)/LOAD,$run,\1/p" /tmp/demo.err
}

WORKLOAD=$*
WORKLOAD_SHELL=/bin/sh
export WORKLOAD WORKLOAD_SHELL

# Quiet and loaded runs alternate, so slow drift (caches, timers, the host)
# lands on both sides alike.
i=1
while [ "$i" -le "$runs" ]; do
	one_run quiet "$i"
	# shellcheck disable=SC2086 # LOADWRAP is a word list by design
	one_run load "$i" $loadwrap
	echo "demo: run $i/$runs done (quiet and loaded)" >&2
	i=$((i + 1))
done
