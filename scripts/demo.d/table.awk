#!/usr/bin/awk -f
# Tally scripts/demo's raw runs: for every event that has a :t twin, a quiet
# and a load row with the mean and perf's "+- %" (standard deviation of the
# mean, relative) of full and :t, how far load moved each mean, and the
# share of the full count that hardirq and softirq took; then how much :t
# shrinks the spread under load. Fits 100 columns. Also writes the per-run
# values of one focus event to `datafile` for the plot.
#
# Input: DEMO,<phase>,<run>,<ctxstat -x, row>  and  LOAD,<run>,<ctxload summary>
BEGIN { FS = "," }

$1 == "DEMO" {
	phase = $2; run = $3 + 0; value = $4; event = $6
	unit[event] = $5
	if (value !~ /^[0-9.]+$/)	# <not supported>, <not counted>
		next
	val[phase, event, run] = value
	n[phase, event]++
	sum[phase, event] += value
	if (run > runs)
		runs = run
	if (!(event in seen)) {
		seen[event] = 1
		order[++nevents] = event
	}
	next
}

$1 == "LOAD" {
	nf = split($3, kv, " ")
	for (i = 1; i <= nf; i++) {
		split(kv[i], p, "=")
		load[p[1]] += p[2]
	}
	loaded_runs++
}

function mean(phase, event) {
	return n[phase, event] ? sum[phase, event] / n[phase, event] : 0
}

# perf stat's "+- x%": stddev of the mean over the mean, in percent.
function rel_stddev(phase, event,    m, r, d, ss) {
	m = mean(phase, event)
	if (n[phase, event] < 2 || m == 0)
		return 0
	for (r = 1; r <= runs; r++)
		if ((phase, event, r) in val) {
			d = val[phase, event, r] - m
			ss += d * d
		}
	return sqrt(ss / (n[phase, event] - 1)) / sqrt(n[phase, event]) / m * 100
}

# Share of the full count that went to contexts named like @prefix in the
# breakdown rows ("hardirq", "softirq", "nmi").
function share(phase, event, prefix,    e, total, full) {
	full = mean(phase, event)
	if (full == 0)
		return 0
	for (e in seen)
		if (index(e, event " [" prefix) == 1)
			total += mean(phase, e)
	return total / full * 100
}

# How far loading moved the mean, in percent of the quiet mean.
function shift(event,    q) {
	q = mean("quiet", event)
	return q ? (mean("load", event) - q) / q * 100 : 0
}

# Mean and perf's "+-" of one phase; clock events come in msec, with perf's
# two decimals.
function cells(phase, event) {
	return sprintf(unit[event] == "msec" ? "%12.2f %6.2f%%" : "%12.0f %6.2f%%",
		       mean(phase, event), rel_stddev(phase, event))
}

# One row per phase: full count, :t count, how far load moved each, and the
# hardirq and softirq shares of the full count. 99 columns.
function row(label, phase, event,    moved_full, moved_t) {
	moved_full = phase == "load" ? sprintf("%+8.2f%%", shift(event)) : ""
	moved_t = phase == "load" ? sprintf("%+8.2f%%", shift(event ":t")) : ""
	printf "%-13s %-5s %s %9s  %s %9s  %6.2f%% %6.2f%%\n", label, phase,
		cells(phase, event), moved_full, cells(phase, event ":t"), moved_t,
		share(phase, event, "hardirq"), share(phase, event, "softirq")
}

function has_twin(event) {
	return n["quiet", event] && n["load", event] && \
	       n["quiet", event ":t"] && n["load", event ":t"]
}

END {
	printf "\nctxcount demo on %s: '%s', %d quiet and %d loaded runs, alternating\n",
		target, workload, runs, loaded_runs
	if (loaded_runs && load["seconds"] > 0) {
		rate = load["packets"] / load["seconds"]
		printf "load delivered: %.0f packets/s, %.0f NIC interrupts/s, %.0f NET_RX softirqs/s\n",
			rate, load["virtio_irqs"] / load["seconds"], load["net_rx"] / load["seconds"]
	}
	if (target ~ /^arm64/)
		printf "(per guest second: under -icount the guest's clock follows its instruction count)\n"
	printf "\n%-20s%-32s%-32s%s\n", "", "full count (as perf stat)",
		"task only (:t)", "share of full"
	printf "%-13s %-5s %12s %7s %9s  %12s %7s %9s  %7s %7s\n", "event", "runs",
		"mean", "+-", "by load", "mean", "+-", "by load", "hardirq", "softirq"
	for (i = 1; i <= nevents; i++) {
		e = order[i]
		if (!has_twin(e))
			continue
		row(e, "quiet", e)
		row("", "load", e)
		t = rel_stddev("load", e ":t")
		spread[++nspread] = sprintf("%s %.1fx", e,
					    (t > 0 ? rel_stddev("load", e) / t : 0))
		if (!focus || e == "instructions")
			focus = e
	}
	if (!focus) {
		print "demo: no event has both a full and a :t count" > "/dev/stderr"
		exit 1
	}
	printf "\n+-: perf's (stddev of the mean, relative). by load: how far load moved the mean.\n"
	line = "Under load, full's +- over :t's:"
	for (i = 1; i <= nspread; i++) {
		if (length(line) + length(spread[i]) + 2 > 99) {
			print line
			line = " "
		}
		line = line " " spread[i] (i < nspread ? "," : ".")
	}
	print line
	printf("# focus: %s%s\n", focus, unit[focus] == "msec" ? " (msec)" : "") > datafile
	if (rate)
		printf("# load: %.0f packets/s\n", rate) > datafile
	printf("# run quiet-full quiet-t load-full load-t\n") > datafile
	for (r = 1; r <= runs; r++)
		printf("%d %s %s %s %s\n", r, val["quiet", focus, r],
		       val["quiet", focus ":t", r], val["load", focus, r],
		       val["load", focus ":t", r]) > datafile
}
