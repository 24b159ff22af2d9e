#!/usr/bin/awk -f
# Tally scripts/demo's raw runs: for every event that has a :t twin, mean and
# perf's "+- %" (standard deviation of the mean, relative) of full and :t,
# quiet and loaded, how far load moved each mean, how much :t shrinks the
# spread, and the share of the full count that hardirq and softirq took. Also writes the per-run
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

function cell(phase, event) {
	# Clock events come in msec: keep perf's two decimals for them.
	return sprintf(unit[event] == "msec" ? "%14.2f +- %5.2f%%" : "%14.0f +- %5.2f%%",
		       mean(phase, event), rel_stddev(phase, event))
}

function has_twin(event) {
	return n["quiet", event] && n["load", event] && \
	       n["quiet", event ":t"] && n["load", event ":t"]
}

END {
	printf "\nctxcount demo on %s: '%s', %d quiet and %d loaded runs, alternating\n",
		target, workload, runs, loaded_runs
	if (loaded_runs && load["seconds"] > 0)
		printf "load delivered: %.0f packets/s, %.0f NIC interrupts/s, %.0f NET_RX softirqs/s\n",
			load["packets"] / load["seconds"], load["virtio_irqs"] / load["seconds"],
			load["net_rx"] / load["seconds"]
	if (target ~ /^arm64/)
		printf "(per guest second: under -icount the guest's clock follows its instruction count)\n"
	printf "+- is perf's (stddev of the mean, relative); shift: loaded mean against quiet mean;\n"
	printf "spread: full's +- over :t's under load; hardirq, softirq: their share of full under load\n\n"
	printf "%-16s %-24s %-24s %-24s %-24s %8s %8s %7s %8s %8s\n", "event",
		"quiet full", "quiet :t", "load full", "load :t", "shift", "shift",
		"spread", "hardirq", "softirq"
	printf "%-16s %-24s %-24s %-24s %-24s %8s %8s %7s %8s %8s\n", "", "", "", "",
		"", "full", ":t", "full/:t", "load", "load"
	for (i = 1; i <= nevents; i++) {
		e = order[i]
		if (!has_twin(e))
			continue
		t = rel_stddev("load", e ":t")
		printf "%-16s %s %s %s %s %+7.2f%% %+7.2f%% %6.1fx %7.2f%% %7.2f%%\n", e,
			cell("quiet", e), cell("quiet", e ":t"),
			cell("load", e), cell("load", e ":t"),
			shift(e), shift(e ":t"),
			(t > 0 ? rel_stddev("load", e) / t : 0),
			share("load", e, "hardirq"), share("load", e, "softirq")
		if (!focus || e == "instructions")
			focus = e
	}
	if (!focus) {
		print "demo: no event has both a full and a :t count" > "/dev/stderr"
		exit 1
	}
	printf("# focus: %s\n# run quiet-full quiet-t load-full load-t\n", focus) > datafile
	for (r = 1; r <= runs; r++)
		printf("%d %s %s %s %s\n", r, val["quiet", focus, r],
		       val["quiet", focus ":t", r], val["load", focus, r],
		       val["load", focus ":t", r]) > datafile
}
