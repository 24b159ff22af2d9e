# shellcheck shell=bash
# TAP counting shared by scripts/check and scripts/check-debug (sourced).
# A run prints TAP per part, `tally`s each part's TAP file into the totals
# and ends with `tap_finish`: exactly one line
#
#   N passed, N failed, N skipped
#
# and exit status 1 when anything failed.

total_pass=0
total_fail=0
total_skip=0
# Every part's failing lines, "NAME: not ok ...", repeated by tap_finish
# so that the last lines of a long run's log name what failed.
failures=()

# A section's header; the one before it ends here, with a line
# "# time: NAME: N s" (section_end). An untimed section (section_untimed:
# one that only prints what ran before) ends the one before too.
section_name=
section_start=0
section_end() {
	[ -z "$section_name" ] || echo "# time: $section_name: $((SECONDS - section_start)) s"
	section_name=
}
section() {
	section_end
	section_name=$*
	section_start=$SECONDS
	printf '\n# ==== %s ====\n' "$*"
}
section_untimed() {
	section_end
	printf '\n# ==== %s ====\n' "$*"
}

# Count a TAP stream in FILE: ^ok N (passed), ^ok N ... # SKIP (skipped),
# ^not ok (failed), leading whitespace allowed. Prints "pass fail skip".
count_tap() {
	awk '
	/^[ \t]*not ok/ { f++; next }
	/^[ \t]*ok [0-9]+.*# *[Ss][Kk][Ii][Pp]/ { s++; next }
	/^[ \t]*ok [0-9]+/ { p++; next }
	/^[ \t]*ok - .*# *[Ss][Kk][Ii][Pp]/ { s++; next }
	/^[ \t]*ok - / { p++; next }
	END { printf "%d %d %d\n", p, f, s }' "$1"
}

# FILE's "not ok" lines as "NAME: not ok ...", each followed by the
# kselftest harness's first two "Expected" lines of that test (its reason).
failed_lines() {
	awk -v name="$1" '
	/^#  *RUN / { n = 0; next }
	/^# [^ ]*\.c:[0-9]+:[^ ]*:Expected / { if (n < 2) why[n++] = $0; next }
	/^[ \t]*not ok/ {
		sub(/^[ \t]*/, "")
		print name ": " $0
		for (i = 0; i < n; i++)
			print "    " why[i]
		n = 0
	}' "$2"
}

# Add FILE's TAP to the totals and print "# NAME: x passed, y failed, z skipped".
tally() {
	local name=$1 file=$2 p f s
	read -r p f s < <(count_tap "$file")
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	echo "# $name: $p passed, $f failed, $s skipped"
	[ "$f" = 0 ] || mapfile -t -O "${#failures[@]}" failures < <(failed_lines "$name" "$file")
}

# The total section and line; exits 1 when anything failed, else 0.
tap_finish() {
	if [ "${#failures[@]}" -gt 0 ]; then
		section_untimed "failed (details in the part's section above)"
		printf '%s\n' "${failures[@]}"
	fi
	section_untimed "total ($((SECONDS / 60))m $((SECONDS % 60))s)"
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
	[ "$total_fail" = 0 ] || exit 1
	exit 0
}
