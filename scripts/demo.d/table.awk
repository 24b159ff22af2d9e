#!/usr/bin/awk -f
# Tally scripts/demo's raw runs: for every event that has a :t twin, mean and
# perf's "+- %" (standard deviation of the mean, relative) of full and :t,
# quiet and loaded, how much :t shrinks the spread, and the share of the
# full count that hardirq, softirq and NMI took. Also writes the per-run
# values of one focus event to `datafile` for the plot.
#
# Input: DEMO,<phase>,<run>,<ctxstat -x, row>  and  LOAD,<run>,<ctxload summary>
BEGIN { FS = "," }

$1 == "DEMO" {
	phase = $2; run = $3 + 0; value = $4; event = $6
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

# Share of the full count that went to interrupt contexts (breakdown rows).
function irq_share(phase, event,    e, total, full) {
	full = mean(phase, event)
	if (full == 0)
		return 0
	for (e in seen)
		if (index(e, event " [") == 1 && e != event " [task]")
			total += mean(phase, e)
	return total / full * 100
}

function cell(phase, event) {
	return sprintf("%14.0f +- %5.2f%%", mean(phase, event), rel_stddev(phase, event))
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
	printf "(+- is perf's: stddev of the mean, relative; spread = full's +- over :t's)\n\n"
	printf "%-22s %-24s %-24s %-24s %-24s %8s %8s %8s\n", "event",
		"quiet full", "quiet :t", "load full", "load :t",
		"spread", "irq%", "irq%"
	printf "%-22s %-24s %-24s %-24s %-24s %8s %8s %8s\n", "", "", "", "", "",
		"load", "quiet", "load"
	for (i = 1; i <= nevents; i++) {
		e = order[i]
		if (!has_twin(e))
			continue
		t = rel_stddev("load", e ":t")
		printf "%-22s %s %s %s %s %7.1fx %7.2f%% %7.2f%%\n", e,
			cell("quiet", e), cell("quiet", e ":t"),
			cell("load", e), cell("load", e ":t"),
			(t > 0 ? rel_stddev("load", e) / t : 0),
			irq_share("quiet", e), irq_share("load", e)
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
