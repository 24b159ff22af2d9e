#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/quiesce against a fake sysfs/procfs tree (CTX_SYSFS_ROOT,
# CTX_PROCFS_ROOT): what it sets while the command runs, that every
# setting it changed is back afterwards (normal exit, failing command,
# SIGINT and SIGTERM mid-command), what it reports for settings that are
# absent or cannot be written, and --cpus. TAP on stdout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
quiesce=${QUIESCE:-$here/../../scripts/quiesce}
tmp=$(mktemp -d /tmp/quiesce-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

cpu=devices/system/cpu
# A laptop's noisy settings: what quiesce must change and put back.
make_tree() {
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/sys/$cpu/cpu0/cpufreq" "$tmp/t/sys/$cpu/cpu1/cpufreq" \
		"$tmp/t/sys/$cpu/intel_pstate" "$tmp/t/sys/$cpu/cpufreq" \
		"$tmp/t/proc/sys/kernel"
	echo powersave >"$tmp/t/sys/$cpu/cpu0/cpufreq/scaling_governor"
	echo schedutil >"$tmp/t/sys/$cpu/cpu1/cpufreq/scaling_governor"
	echo 0 >"$tmp/t/sys/$cpu/intel_pstate/no_turbo"
	echo 30 >"$tmp/t/sys/$cpu/intel_pstate/min_perf_pct"
	echo 1 >"$tmp/t/sys/$cpu/cpufreq/boost"
	echo 1 >"$tmp/t/proc/sys/kernel/nmi_watchdog"
	echo 2 >"$tmp/t/proc/sys/kernel/randomize_va_space"
	echo 100000 >"$tmp/t/proc/sys/kernel/perf_event_max_sample_rate"
}

# The five settings, one line each, in a fixed order.
snapshot() {
	local f
	for f in "sys/$cpu/cpu0/cpufreq/scaling_governor" \
		 "sys/$cpu/cpu1/cpufreq/scaling_governor" \
		 "sys/$cpu/intel_pstate/no_turbo" \
		 "sys/$cpu/intel_pstate/min_perf_pct" \
		 "sys/$cpu/cpufreq/boost" "proc/sys/kernel/nmi_watchdog" \
		 "proc/sys/kernel/randomize_va_space" \
		 "proc/sys/kernel/perf_event_max_sample_rate"; do
		if [ -f "$tmp/t/$f" ]; then cat "$tmp/t/$f"; else echo "-"; fi
	done | paste -sd' '
}

run_q() {
	CTX_SYSFS_ROOT=$tmp/t/sys CTX_PROCFS_ROOT=$tmp/t/proc "$quiesce" "$@"
}

noisy="powersave schedutil 0 30 1 1 2 100000"
quiet="performance performance 1 100 0 0 0 1"

echo "TAP version 13"
echo "1..16"

# 1-4: set while running, restored after, exit status passed through
make_tree
{ declare -f snapshot; echo "cpu=$cpu tmp=$tmp"; echo 'snapshot >"$tmp/during"; exit 3'; } >"$tmp/cmd"
run_q -- bash "$tmp/cmd" 2>"$tmp/err"
rc=$?
check "quiet settings while the command runs ($(cat "$tmp/during"))" [ "$(cat "$tmp/during")" = "$quiet" ]
check "every setting restored after the command ($(snapshot))" [ "$(snapshot)" = "$noisy" ]
check "the command's exit status (3) is quiesce's ($rc)" [ "$rc" = 3 ]
check "each change reported" grep -q "nmi_watchdog: 1 -> 0" "$tmp/err"

# 5-6: a VM: nothing there, each setting reported absent, command still runs
rm -rf "$tmp/t"; mkdir -p "$tmp/t/sys" "$tmp/t/proc"
run_q -- true 2>"$tmp/err"
rc=$?
check "absent settings: command runs (exit $rc)" [ "$rc" = 0 ]
check "absent settings: each reported ($(grep -c 'not changed' "$tmp/err") lines)" \
	[ "$(grep -c 'not changed: .*: absent' "$tmp/err")" = 7 ]

# 7-8: a setting that cannot be written (a directory here: "Is a directory";
# on a real machine "Permission denied" or "Read-only file system")
make_tree
rm "$tmp/t/proc/sys/kernel/nmi_watchdog"
mkdir "$tmp/t/proc/sys/kernel/nmi_watchdog"
run_q -- true 2>"$tmp/err"
check "unwritable setting reported with its reason" \
	grep -q "not changed: .*nmi_watchdog: cannot read: Is a directory" "$tmp/err"
check "the others restored ($(snapshot))" [ "$(snapshot)" = "powersave schedutil 0 30 1 - 2 100000" ]

# 9-12: Ctrl-C / kill mid-command: restored, 128 + signal. A background
# job of this script starts with SIGINT ignored (and bash cannot trap a
# signal ignored on entry), so env gives quiesce the default disposition
# a terminal's foreground job has.
wait_quiet() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(snapshot)" = "$quiet" ] && return 0
		sleep 0.1
	done
	return 1
}
for sig in INT TERM; do
	make_tree
	CTX_SYSFS_ROOT=$tmp/t/sys CTX_PROCFS_ROOT=$tmp/t/proc \
		env --default-signal=INT "$quiesce" -- sleep 30 2>"$tmp/err" &
	pid=$!
	if ! wait_quiet; then
		not_ok "SIG$sig: quiesce never set the quiet values"
		kill "$pid"; wait "$pid"
		continue
	fi
	start=$SECONDS
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	want=$((128 + $(kill -l "$sig")))
	check "SIG$sig mid-command: every setting restored ($(snapshot))" [ "$(snapshot)" = "$noisy" ]
	check "SIG$sig mid-command: exit $want ($rc), command ended at once ($((SECONDS - start)) s)" \
		[ "$rc" = "$want" -a $((SECONDS - start)) -lt 10 ]
done

# 13: SIGINT at every moment around the command's start (right after the
# last setting, then later and later): the command never outlives quiesce
# (a signal between the traps and the command's pid once left it running,
# and quiesce waited for it).
orphans=0 slow=0
for ((i = 0; i < 30; i++)); do
	make_tree
	mark=30.$$$i
	CTX_SYSFS_ROOT=$tmp/t/sys CTX_PROCFS_ROOT=$tmp/t/proc \
		env --default-signal=INT "$quiesce" -- sleep "$mark" 2>/dev/null &
	pid=$!
	until [ "$(cat "$tmp/t/proc/sys/kernel/perf_event_max_sample_rate")" = 1 ] ||
		! kill -0 "$pid" 2>/dev/null; do :; done
	for ((j = 0; j < i * 20; j++)); do :; done
	start=$SECONDS
	kill -s INT "$pid"
	wait "$pid"
	[ $((SECONDS - start)) -lt 10 ] || slow=$((slow + 1))
	if pgrep -f "sleep $mark" >/dev/null; then
		orphans=$((orphans + 1))
		pkill -f "sleep $mark"
	fi
done
check "SIGINT around the command's start: no command left running ($orphans of 30), none waited for ($slow)" \
	[ "$orphans" = 0 -a "$slow" = 0 ]

# 14: already quiet: nothing changed, nothing restored
make_tree
for f in "$cpu/cpu0/cpufreq/scaling_governor" "$cpu/cpu1/cpufreq/scaling_governor"; do
	echo performance >"$tmp/t/sys/$f"
done
echo 1 >"$tmp/t/sys/$cpu/intel_pstate/no_turbo"
echo 100 >"$tmp/t/sys/$cpu/intel_pstate/min_perf_pct"
echo 0 >"$tmp/t/sys/$cpu/cpufreq/boost"
echo 0 >"$tmp/t/proc/sys/kernel/nmi_watchdog"
echo 0 >"$tmp/t/proc/sys/kernel/randomize_va_space"
echo 1 >"$tmp/t/proc/sys/kernel/perf_event_max_sample_rate"
run_q -- true 2>"$tmp/err"
check "already quiet: nothing restored" [ "$(grep -c restored "$tmp/err")" = 0 -a "$(snapshot)" = "$quiet" ]

# 15: a command that cannot run: settings still restored, 127
make_tree
run_q -- /nonexistent/command 2>"$tmp/err"
rc=$?
check "command not found: restored, exit 127 ($rc)" [ "$(snapshot)" = "$noisy" -a "$rc" = 127 ]

# 16: --cpus pins the command
make_tree
aff=$(run_q --cpus 0 -- grep Cpus_allowed_list /proc/self/status 2>/dev/null | awk '{print $2}')
check "--cpus 0 pins the command (Cpus_allowed_list $aff)" [ "$aff" = 0 ]

# 17: usage
run_q 2>/dev/null
rc=$?
check "no command: usage, exit 129 ($rc)" [ "$rc" = 129 ]

echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
