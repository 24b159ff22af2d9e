#!/usr/bin/awk -f
# Tally `scripts/demo --live`: from ctxstat -a -A -I --breakdown -x, rows,
# a line per CPU per interval with the shares of that CPU's counted work
# (the event's full row) that went to the task, the irq entry/exit
# estimate, hardirq (with --irq-sources also the NIC's handlers and the
# timer's alone), softirq (all vectors; NET_RX also alone) and NMI, and
# whether the NIC load ran in it. Fits 100 columns. Writes `datafile` for
# the plot: per interval its end time and per CPU the hardirq, softirq,
# NIC and timer shares.
#
# Input: LIVE,<ctxstat -x, -I -A row>, MARK,<what>,<guest uptime>,
# LOAD,<ctxload summary>, NIC,<device name>. Exit status 1 when there are
# no rows.
BEGIN { FS = "," }

$1 == "MARK" { mark[$2] = $3; next }
$1 == "LOAD" { load = substr($0, 6); next }
$1 == "NIC" { nic[$2] = 1; next }
$1 != "LIVE" { next }

{
	t = $2 + 0; cpu = $3; value = $4; event = $6
	if (value !~ /^-?[0-9.]+$/)	# <not counted>: nothing ran
		next
	if (!(t in seen_t)) {
		seen_t[t] = 1
		times[++nt] = t
	}
	if (!(cpu in seen_cpu)) {
		seen_cpu[cpu] = 1
		cpus[++ncpu] = cpu
	}
	b = index(event, " [")
	if (!b) {
		full[t, cpu] = value
		unit = $5; name = event
		next
	}
	bucket = substr(event, b + 2, length(event) - b - 2)
	if (bucket == "task")
		col = "task"
	else if (bucket == "irq entry/exit estimate")
		col = "est"
	else if (bucket == "hardirq")
		col = "hardirq"
	else if (bucket ~ /^hardirq:/) {	# a source row, inside hardirq's
		sources = 1
		col = source_col(substr(bucket, 9))
		if (col != "")
			part[t, cpu, col] += value
		next
	}
	else if (bucket ~ /^softirq/)
		col = "softirq"
	else if (bucket == "nmi")
		col = "nmi"
	else
		col = "other"
	part[t, cpu, col] += value
	if (bucket == "softirq:NET_RX")
		part[t, cpu, "netrx"] += value
}

# "nic" for the NIC's handlers (named after its device, e.g.
# "24 virtio0-input.0"), "timer" for the tick's ("local_timer" on x86,
# "11 arch_timer" on arm64), else "".
function source_col(src,    name, d) {
	name = src ~ /^[0-9]+ / ? substr(src, index(src, " ") + 1) : src
	for (d in nic)
		if (name == d || index(name, d "-") == 1)
			return "nic"
	if (name == "local_timer" || name == "arch_timer")
		return "timer"
	return ""
}

# A source column's share, or "-" when the capture has no source rows.
function spct(t, cpu, col) {
	return sources ? sprintf("%6.2f%%", pct(t, cpu, col)) : "      -"
}

function pct(t, cpu, col) {
	return full[t, cpu] ? part[t, cpu, col] / full[t, cpu] * 100 : 0
}

# 1 when the interval ending at t lies wholly in the load, 0 wholly outside,
# "~" when it overlaps its start or stop.
function loaded(i,    t, t0) {
	t = times[i]; t0 = i > 1 ? times[i - 1] : 0
	if (lstart == "" || t <= lstart || t0 >= lstop)
		return 0
	return t0 >= lstart && t <= lstop ? 1 : "~"
}

END {
	if (!nt) {
		print "demo: no interval rows from ctxstat" > "/dev/stderr"
		exit 1
	}
	# The command's end is where counting ended (the last interval's
	# time); older captures only mark its start.
	if ("count-end" in mark)
		zero = mark["count-end"] - times[nt]
	else if ("count-start" in mark)
		zero = mark["count-start"]
	if (zero != "" && ("load-start" in mark)) {
		lstart = mark["load-start"] - zero
		lstop = mark["load-stop"] - zero
	}
	printf "\nctxcount live view on %s: %s of each CPU, per interval, every CPU busy\n", target, name
	if (lstart != "")
		printf "NIC load from %.2f s to %.2f s (load: 1 whole interval, ~ part)\n", lstart, lstop
	if (load != "")
		printf "load delivered: %s\n", load
	printf "\n%12s %-5s %10s %7s %7s %7s %7s %7s %7s %7s %7s  %s\n", "time (s)", "CPU",
		"counted", "task", "est.", "hardirq", "NIC", "timer", "softirq", "NET_RX",
		"nmi", "load"
	for (i = 1; i <= nt; i++) {
		t = times[i]
		for (c = 1; c <= ncpu; c++) {
			cpu = cpus[c]
			if (!((t, cpu) in full))
				continue
			printf "%12.3f %-5s %7.2f %-2s %6.2f%% %6.2f%% %6.2f%% %s %s %6.2f%% %6.2f%% %6.2f%%  %s\n",
				t, cpu, full[t, cpu], unit == "msec" ? "ms" : "",
				pct(t, cpu, "task"), pct(t, cpu, "est"), pct(t, cpu, "hardirq"),
				spct(t, cpu, "nic"), spct(t, cpu, "timer"),
				pct(t, cpu, "softirq"), pct(t, cpu, "netrx"), pct(t, cpu, "nmi"),
				loaded(i) == 1 ? "1" : loaded(i) == "~" ? "~" : ""
		}
	}
	printf "\nshares of the CPU's full %s row; est.: the irq entry/exit estimate (ctxstat(1))\n", name
	if (sources)
		printf "NIC, timer: their handlers' part of hardirq (ctxstat --irq-sources)\n"
	if (!datafile)
		exit 0
	printf("# event: %s\n# cpus: %d\n# sources: %d\n", name, ncpu, sources) > datafile
	if (lstart != "")
		printf("# load: %.2f %.2f\n", lstart, lstop) > datafile
	hdr = "# time"
	for (c = 1; c <= ncpu; c++)
		hdr = hdr " " cpus[c] "-hardirq% " cpus[c] "-softirq% " \
			cpus[c] "-nic% " cpus[c] "-timer%"
	print hdr " loaded" > datafile
	for (i = 1; i <= nt; i++) {
		t = times[i]
		line = sprintf("%.3f", t)
		for (c = 1; c <= ncpu; c++)
			line = line sprintf(" %.3f %.3f %s %s", pct(t, cpus[c], "hardirq"),
					    pct(t, cpus[c], "softirq"),
					    sources ? sprintf("%.3f", pct(t, cpus[c], "nic")) : "NaN",
					    sources ? sprintf("%.3f", pct(t, cpus[c], "timer")) : "NaN")
		print line " " loaded(i) > datafile
	}
}
