#!/bin/bash
# ctxstat(1) against the program: every option `ctxstat --help` lists has
# an entry in the man page's OPTIONS and every entry there is an option
# --help lists (both directions, one TAP line per option, saying which side
# lacks it); every event name and modifier `ctxstat --list` knows is in the
# man page; the page has its sections and passes mandoc's and groff's lint.
#
#   CTXSTAT=path/to/ctxstat tests/man_test.sh [path/to/ctxstat.1]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ctxstat=${CTXSTAT:-$here/../ctxstat}
man=${1:-$here/../ctxstat.1}
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

# Options in --help: the option column of lines that start with blanks and
# a dash ("    -e, --event <event>   ..." or "        --list    ...").
help_options() {
	sed -n 's/^ \{2,\}\(-.*\)$/\1/p' <<<"$help" |
		sed 's/ \{2,\}.*//' |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-' | sort -u
}

# Options in the man page: the tag line after each .TP in the OPTIONS
# section (".BI "\-e, \-\-event " event", ".B \-\-list").
man_options() {
	awk '
	/^\.SH / { in_opts = ($2 == "OPTIONS") ; next }
	in_opts && /^\.TP/ { tag = 1; next }
	in_opts && tag { print; tag = 0 }' "$man" |
		sed 's/\\-/-/g; s/\\f[BIRP]//g' |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-' | sort -u
}

mapfile -t from_help < <(help_options)
mapfile -t from_man < <(man_options)
if [ "${#from_help[@]}" -lt 10 ]; then
	not_ok "found only ${#from_help[@]} options in ctxstat --help (${from_help[*]}): the parser no longer matches its layout"
fi
if [ "${#from_man[@]}" -lt 10 ]; then
	not_ok "found only ${#from_man[@]} options in ctxstat.1's OPTIONS (${from_man[*]}): the parser no longer matches its layout"
fi
while read -r opt; do
	in_help=0 in_man=0
	# Here-strings, not pipes: with pipefail, grep -q exiting at the first
	# match can kill the writer with SIGPIPE and fail the pipeline.
	grep -qxF -- "$opt" <<<"$(printf '%s\n' "${from_help[@]}")" && in_help=1
	grep -qxF -- "$opt" <<<"$(printf '%s\n' "${from_man[@]}")" && in_man=1
	if [ "$in_help" = 1 ] && [ "$in_man" = 1 ]; then
		ok "option $opt: in ctxstat --help and in ctxstat.1"
	elif [ "$in_help" = 1 ]; then
		not_ok "option $opt is in ctxstat --help but missing from ctxstat.1 (add a .TP entry under OPTIONS)"
	else
		not_ok "option $opt is in ctxstat.1 OPTIONS but not in ctxstat --help (document it in args.c's usage, or drop it from the man page)"
	fi
done < <(printf '%s\n' "${from_help[@]}" "${from_man[@]}" | sort -u)

# Every named event and modifier of --list appears in the page.
list=$("$ctxstat" --list)
plain=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man")
missing=()
for ev in $(sed -n 's/^  \([a-z][a-z-]*\) *\[\(Hardware\|Software\) event\]$/\1/p' <<<"$list"); do
	grep -qw -- "$ev" <<<"$plain" || missing+=("$ev")
done
nev=$(grep -c 'event\]$' <<<"$list")
if [ "$nev" -lt 20 ]; then
	not_ok "ctxstat --list named only $nev hardware/software events: its layout changed"
elif [ "${#missing[@]}" = 0 ]; then
	ok "all $nev hardware and software event names of ctxstat --list are in EVENTS"
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

for sec in NAME SYNOPSIS DESCRIPTION OPTIONS EVENTS BUCKETS OUTPUT "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
	if grep -qx "\.SH $sec\|\.SH \"$sec\"" "$man"; then
		ok "section $sec"
	else
		not_ok "section $sec missing"
	fi
done

if command -v mandoc >/dev/null; then
	if out=$(mandoc -T lint -W warning "$man" 2>&1) && [ -z "$out" ]; then
		ok "mandoc -T lint -W warning: clean"
	else
		not_ok "mandoc -T lint -W warning:"
		sed 's/^/# /' <<<"$out"
	fi
else
	skip "mandoc -T lint" "mandoc not installed (scripts/setup installs it)"
fi
if command -v groff >/dev/null; then
	if out=$(groff -man -ww -z "$man" 2>&1) && [ -z "$out" ]; then
		ok "groff -man -ww: no warnings"
	else
		not_ok "groff -man -ww:"
		sed 's/^/# /' <<<"$out"
	fi
else
	skip "groff -man -ww" "groff not installed"
fi
echo "1..$n"
exit "$failed"
