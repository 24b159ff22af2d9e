#!/bin/bash
# The man pages against the program, one page per command: ctxstat.1 for
# ctxstat, ctxstat-<sub>.1 for each subcommand `ctxstat --help` lists.
# Every option a command's --help lists has an entry in its page's OPTIONS
# and every entry there is an option its --help lists (both directions,
# one TAP line per option, saying which side lacks it); every event name
# and modifier `ctxstat --list` knows is in ctxstat.1; each page has its
# sections and passes mandoc's and groff's lint.
#
#   CTXSTAT=path/to/ctxstat tests/man_test.sh [path/to/man/dir]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ctxstat=${CTXSTAT:-$here/../ctxstat}
mandir=${1:-$here/..}
man=$mandir/ctxstat.1
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n man: $*"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n man: $*"; }
skip() { n=$((n + 1)); echo "ok $n man: $1 # SKIP $2"; }

echo "TAP version 13"
if ! help=$("$ctxstat" --help); then
	not_ok "$ctxstat --help failed"
	echo "1..$n"
	exit 1
fi

# Options in a --help text: the option column of lines that start with
# blanks and a dash ("    -e, --event <event>   ..." or "        --list ...").
help_options() {
	sed -n 's/^ \{2,\}\(-.*\)$/\1/p' <<<"$1" |
		sed 's/ \{2,\}.*//' |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-' | sort -u
}

# Options in a man page: the tag line after each .TP in the OPTIONS
# section (".BI "\-e, \-\-event " event", ".B \-\-list").
man_options() {
	awk '
	/^\.SH / { in_opts = ($2 == "OPTIONS") ; next }
	in_opts && /^\.TP/ { tag = 1; next }
	in_opts && tag { print; tag = 0 }' "$1" |
		sed 's/\\-/-/g; s/\\f[BIRP]//g' |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-' | sort -u
}

# check_options WHAT HELP PAGE MIN: both directions, WHAT naming the command.
check_options() {
	local what=$1 text=$2 page=$3 min=$4 opt in_help in_man
	local -a from_help from_man
	mapfile -t from_help < <(help_options "$text")
	mapfile -t from_man < <(man_options "$page")
	if [ "${#from_help[@]}" -lt "$min" ]; then
		not_ok "found only ${#from_help[@]} options in $what --help (${from_help[*]}): the parser no longer matches its layout"
	fi
	if [ "${#from_man[@]}" -lt "$min" ]; then
		not_ok "found only ${#from_man[@]} options in $(basename "$page")'s OPTIONS (${from_man[*]}): the parser no longer matches its layout"
	fi
	while read -r opt; do
		in_help=0 in_man=0
		# Here-strings, not pipes: with pipefail, grep -q exiting at the
		# first match can kill the writer with SIGPIPE and fail the pipeline.
		grep -qxF -- "$opt" <<<"$(printf '%s\n' "${from_help[@]}")" && in_help=1
		grep -qxF -- "$opt" <<<"$(printf '%s\n' "${from_man[@]}")" && in_man=1
		if [ "$in_help" = 1 ] && [ "$in_man" = 1 ]; then
			ok "option $opt: in $what --help and in $(basename "$page")"
		elif [ "$in_help" = 1 ]; then
			not_ok "option $opt is in $what --help but missing from $(basename "$page") (add a .TP entry under OPTIONS)"
		else
			not_ok "option $opt is in $(basename "$page") OPTIONS but not in $what --help (document it in the usage text, or drop it from the page)"
		fi
	done < <(printf '%s\n' "${from_help[@]}" "${from_man[@]}" | sort -u)
}

# check_page PAGE SECTION...: the sections, and both lints.
check_page() {
	local page=$1 name sec out; shift
	name=$(basename "$page")
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" "SEE ALSO" "$@"; do
		if grep -qx "\.SH $sec\|\.SH \"$sec\"" "$page"; then
			ok "$name: section $sec"
		else
			not_ok "$name: section $sec missing"
		fi
	done
	if command -v mandoc >/dev/null; then
		if out=$(mandoc -T lint -W warning "$page" 2>&1) && [ -z "$out" ]; then
			ok "$name: mandoc -T lint -W warning: clean"
		else
			not_ok "$name: mandoc -T lint -W warning:"
			sed 's/^/# /' <<<"$out"
		fi
	else
		skip "$name: mandoc -T lint" "mandoc not installed (scripts/setup installs it)"
	fi
	if command -v groff >/dev/null; then
		if out=$(groff -man -ww -z "$page" 2>&1) && [ -z "$out" ]; then
			ok "$name: groff -man -ww: no warnings"
		else
			not_ok "$name: groff -man -ww:"
			sed 's/^/# /' <<<"$out"
		fi
	else
		skip "$name: groff -man -ww" "groff not installed"
	fi
}

check_options ctxstat "$help" "$man" 10

# Every named event and modifier of --list appears in the page.
list=$("$ctxstat" --list)
plain=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man")
missing=()
for ev in $(sed -n 's/^  \([a-z][a-z_-]*\) *\[\(Hardware\|Software\|Tool\) event\]$/\1/p' <<<"$list"); do
	grep -qw -- "$ev" <<<"$plain" || missing+=("$ev")
done
nev=$(grep -c 'event\]$' <<<"$list")
if [ "$nev" -lt 20 ]; then
	not_ok "ctxstat --list named only $nev hardware/software/tool events: its layout changed"
elif [ "${#missing[@]}" = 0 ]; then
	ok "all $nev hardware, software and tool event names of ctxstat --list are in EVENTS"
else
	not_ok "event names of ctxstat --list missing from ctxstat.1: ${missing[*]}"
fi
mods=$(sed -n 's/^Modifiers: name:\(.*\)  .*/\1/p' <<<"$list" | tr -d '[]')
missing=()
for ((i = 0; i < ${#mods}; i++)); do
	m=${mods:i:1}
	grep -qx "\.B :$m" <<<"$(grep -A1 '^\.TP' "$man")" || missing+=(":$m")
done
if [ -z "$mods" ]; then
	not_ok "no 'Modifiers: name:[t]...' line in ctxstat --list"
elif [ "${#missing[@]}" = 0 ]; then
	ok "modifiers $(sed 's/./:& /g' <<<"$mods")each have an entry in EVENTS"
else
	not_ok "modifiers missing an entry in ctxstat.1 EVENTS: ${missing[*]}"
fi

# The default events: --help's "Without -e:" list, word for word.
defaults=$(sed -n '/^Without -e:/,/^$/p' <<<"$help" | tr '\n' ' ' |
	sed 's/^Without -e: *//; s/\. *$//; s/  */ /g')
plain_flat=$(tr '\n' ' ' <<<"$plain" | sed 's/  */ /g')
if [ -z "$defaults" ]; then
	not_ok "no 'Without -e:' list of default events in ctxstat --help"
elif grep -qF -- "$defaults" <<<"$plain_flat"; then
	ok "default events as in --help: $defaults"
else
	not_ok "ctxstat.1 does not list the default events as --help does: '$defaults'"
fi

check_page "$man" EVENTS BUCKETS OUTPUT ENVIRONMENT EXAMPLES

# Each subcommand --help lists: its own page, its options, named in
# ctxstat.1 (DESCRIPTION and SEE ALSO).
mapfile -t subs < <(sed -n '/^Subcommands/,/^$/s/^ \{2,\}\([a-z][a-z-]*\) .*/\1/p' <<<"$help")
if [ "${#subs[@]}" -lt 3 ]; then
	not_ok "ctxstat --help lists ${#subs[@]} subcommands (${subs[*]}): its Subcommands list changed"
fi
for sub in "${subs[@]}"; do
	page=$mandir/ctxstat-$sub.1
	if [ ! -f "$page" ]; then
		not_ok "subcommand $sub has no page ctxstat-$sub.1"
		continue
	fi
	if ! sub_help=$("$ctxstat" "$sub" --help); then
		not_ok "ctxstat $sub --help failed"
		continue
	fi
	check_options "ctxstat $sub" "$sub_help" "$page" 3
	check_page "$page"
	if grep -q "^\.BR ctxstat\\\\-$sub (1)" <<<"$(sed -n '/^\.SH "\{0,1\}SEE ALSO/,$p' "$man")"; then
		ok "ctxstat.1 SEE ALSO names ctxstat-$sub(1)"
	else
		not_ok "ctxstat.1 SEE ALSO does not name ctxstat-$sub(1)"
	fi
done
echo "1..$n"
exit "$failed"
