#!/bin/sh
# The measuring half of `scripts/demo --live`, run in the guest with the
# module loaded: ctxstat -a -A -I for SECONDS while every CPU runs a niced
# spinner, and the NIC load (ctxload, host sender) during the middle third.
# Prints ctxstat's CSV rows prefixed "LIVE,", the load's start and stop as
# "MARK,count-start|load-start|load-stop|count-end,<guest uptime>" and
# ctxload's summary as "LOAD,<summary>" and the NIC's device name (whose
# irqs /proc/interrupts names after it) as "NIC,<name>", for
# scripts/demo.d/live.awk.
#
#   live.sh CTXSTAT CTXLOAD SECONDS INTERVAL-MS RATE EVENT [CTXSTAT-OPTION...]
#
# Why spinners: -a counts every task but the idle tasks, so an interrupt
# that wakes an idle CPU counts nowhere; with a spinner (nice 19, so that
# ctxstat, ctxload and ksoftirqd still run at once) on each CPU, every
# interrupt lands in counted work and a CPU's shares are shares of its time.
set -eu

ctxstat=$1 ctxload=$2 seconds=$3 interval=$4 rate=$5 event=$6
shift 6
third=$((seconds / 3))
[ "$third" -ge 1 ] || { echo "live: --seconds must be 3 or more" >&2; exit 2; }

uptime_s() { cut -d' ' -f1 /proc/uptime; }

spinners=
cpu=0
while [ -d "/sys/devices/system/cpu/cpu$cpu" ]; do
	nice -n 19 taskset -c "$cpu" sh -c 'while :; do :; done' &
	spinners="$spinners $!"
	cpu=$((cpu + 1))
done
trap 'kill $spinners 2>/dev/null || true' EXIT

# The command's first and last acts mark its start and end in the guest's
# uptime. Its end is the better anchor for ctxstat's time column: counting
# stops as soon as the command exits, while between counting's start and
# the command's first act lie a fork and an exec on busy CPUs.
"$ctxstat" -a -A -I "$interval" --breakdown "$@" -e "$event" -x, -o /tmp/live.csv -- \
	sh -c "cut -d' ' -f1 /proc/uptime >/tmp/live.t0; sleep $seconds
		cut -d' ' -f1 /proc/uptime >/tmp/live.t1" &
stat_pid=$!
while [ ! -s /tmp/live.t0 ]; do sleep 0.1; done
t0=$(cat /tmp/live.t0)

sleep "$third"
start=$(uptime_s)
# ctxload's own limit is a safety net; its command ends the load.
"$ctxload" --idle-sink --rate "$rate" --seconds $((third + 30)) -- sleep "$third" \
	2>/tmp/live.load || { cat /tmp/live.load >&2; echo "live: the load failed" >&2; exit 1; }
stop=$(uptime_s)
grep -v '^ctxload: packets=' /tmp/live.load >&2 || true
wait "$stat_pid" || { echo "live: ctxstat failed" >&2; exit 1; }

# Guest uptimes; the host subtracts (the guest has no awk).
printf 'MARK,count-start,%s\nMARK,load-start,%s\nMARK,load-stop,%s\nMARK,count-end,%s\n' \
	"$t0" "$start" "$stop" "$(cat /tmp/live.t1)"
sed -n 's/^ctxload: \(packets=.*\)/LOAD,\1/p' /tmp/live.load
for nic in /sys/class/net/*/device; do
	[ -e "$nic" ] && echo "NIC,$(basename "$(readlink "$nic")")"
done
grep -v '^#' /tmp/live.csv | grep -v '^$' | sed 's/^/LIVE,/'
