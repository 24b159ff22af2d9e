#!/bin/bash
# The bash completion (completion/ctxstat.bash) driven as bash drives it:
# COMP_LINE/COMP_POINT set, $2 the text readline would replace (after the
# last COMP_WORDBREAKS character), then COMPREPLY compared with what a user
# must be offered. Uses the built ctxstat for --help and --list.
#
#   CTXSTAT=path/to/ctxstat tests/completion_test.sh
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ctxstat=${CTXSTAT:-$here/../ctxstat}
PATH=$(cd "$(dirname "$ctxstat")" && pwd):$PATH
n=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
# shellcheck source=../completion/ctxstat.bash
. "$here/../completion/ctxstat.bash"

# complete LINE: COMPREPLY for the cursor at the end of LINE, sorted, one
# per line in $got.
complete_line() {
	local line=$1 breaks=$' \t\n"\'@><=;|&(:' cur prev
	COMP_LINE=$line
	COMP_POINT=${#line}
	cur=${line##*[$breaks]}
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	prev=${COMP_WORDS[COMP_CWORD - 1]:-}
	COMPREPLY=()
	_ctxstat ctxstat "$cur" "$prev"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort)
}

# exactly LINE WANT...: the completions are exactly WANT.
exactly() {
	local line=$1 want; shift
	complete_line "$line"
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort)
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n completion: '$line' -> $(echo $got)"
	else
		failed=1
		echo "not ok $n completion: '$line' -> '$(echo $got)', expected '$(echo $want)'"
	fi
}

# has LINE WANT...: the completions include every WANT.
has() {
	local line=$1 w missing=(); shift
	complete_line "$line"
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" || missing+=("$w")
	done
	n=$((n + 1))
	if [ "${#missing[@]}" = 0 ]; then
		echo "ok $n completion: '$line' offers $*"
	else
		failed=1
		echo "not ok $n completion: '$line' does not offer ${missing[*]} (got: $(echo $got | head -c 300))"
	fi
}

# lacks LINE BAD...: none of BAD is offered.
lacks() {
	local line=$1 w found=(); shift
	complete_line "$line"
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" && found+=("$w")
	done
	n=$((n + 1))
	if [ "${#found[@]}" = 0 ]; then
		echo "ok $n completion: '$line' does not offer $*"
	else
		failed=1
		echo "not ok $n completion: '$line' offers ${found[*]}"
	fi
}

n=$((n + 1))
if grep -q -- '-F _ctxstat ctxstat$' <<<"$(complete -p ctxstat 2>/dev/null)"; then
	echo "ok $n completion: sourcing registers _ctxstat for ctxstat"
else
	failed=1
	echo "not ok $n completion: sourcing did not register a completion for ctxstat"
fi

# Options.
exactly "ctxstat --br" --breakdown
exactly "ctxstat --li" --list
exactly "ctxstat --irq" --irq-sources
exactly "ctxstat --per-t" --per-thread
exactly "ctxstat --per-c" --per-core --per-cluster --per-cache
exactly "ctxstat -e cycles --re" --repeat --repeat-event --repeat-until
has "ctxstat -" -e --event -r --repeat -n --null -x --field-separator -j \
	--json-output -o --output -p --pid -a --all-cpus -v --verbose --breakdown \
	--list -h --help

# Event names after -e, --event, --event=, in lists; modifiers after ':'.
exactly "ctxstat -e cyc" cycles
exactly "ctxstat --event instr" instructions
exactly "ctxstat -ve task-c" task-clock
exactly "ctxstat -e L1-dcache-load" L1-dcache-loads L1-dcache-load-misses
has "ctxstat -e " cycles instructions task-clock context-switches cs \
	LLC-load-misses dTLB-store-misses branch-loads
# readline replaces the text after '=' and ':' only.
exactly "ctxstat -e durat" duration_time
exactly "ctxstat --event=instr" instructions
exactly "ctxstat -e cycles,instr" cycles,instructions
exactly "ctxstat -e cycles:" t u k h
exactly "ctxstat -e cycles:t" t tu tk th
exactly "ctxstat -e cycles:tu" tu tuk tuh
exactly "ctxstat -e cycles:t,instr" t,instructions
exactly "ctxstat -e cycles:x"
exactly "ctxstat -e nosuchevent"

# Values that are not events.
touch "$tmp/out.txt" "$tmp/other"
exactly "ctxstat -o $tmp/ou" "$tmp/out.txt"
exactly "ctxstat --output $tmp/ot" "$tmp/other"
exactly "ctxstat -r "
exactly "ctxstat -x "
has "ctxstat -p ${$:0:2}" "$$"

# The command, after the options or "--", and its arguments.
has "ctxstat -e cycles -- tru" true
has "ctxstat -r 3 tru" true
# --per-thread takes no value: the command follows.
has "ctxstat -p 1 --per-thread tru" true
# --irq-sources takes its value after '=' only: the command follows.
has "ctxstat --irq-sources tru" true
# So does --per-cache.
has "ctxstat -a --per-cache tru" true
lacks "ctxstat -r 3 tru" --repeat
has "ctxstat comp" compare
has "ctxstat rep" report
has "ctxstat qui" quiesce
lacks "ctxstat -e cycles rep" report
exactly "ctxstat --repeat-event instr" instructions
exactly "ctxstat --save $tmp/ou" "$tmp/out.txt"
exactly "ctxstat --repeat-until "
has "ctxstat -e cycles:t -- ls $tmp/ou" "$tmp/out.txt"
lacks "ctxstat -e cycles true --he" --help
lacks "ctxstat -- -" --help -e

# Subcommands: each one's options come from its own --help, all of them.
for sub in compare report quiesce; do
	mapfile -t sub_opts < <("$ctxstat" "$sub" --help |
		sed -n 's/^ \{2,\}\(-.*\)$/\1/p' | sed 's/ \{2,\}.*//' |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-' | sort -u)
	if [ "${#sub_opts[@]}" -lt 3 ]; then
		n=$((n + 1)) failed=1
		echo "not ok $n completion: ctxstat $sub --help lists only ${#sub_opts[@]} options"
	fi
	has "ctxstat $sub -" "${sub_opts[@]}"
done
lacks "ctxstat compare -" -p --pid -a --all-cpus --breakdown --list -n
# record takes every option of ctxstat's beside its own -o
has "ctxstat record -" -o --output -e --event -r --repeat -a --per-thread
exactly "ctxstat record -e instr" instructions
has "ctxstat record -e cycles -- tru" true
lacks "ctxstat report -" -e -r --repeat --save
exactly "ctxstat compare --rep" --repeat --repeat-event --repeat-until
exactly "ctxstat compare -e instr" instructions
exactly "ctxstat compare -e cycles:t,instr" t,instructions
exactly "ctxstat compare --repeat-event cyc" cycles
exactly "ctxstat compare -r "
exactly "ctxstat compare --label "
exactly "ctxstat compare --save $tmp/ou" "$tmp/out.txt"
has "ctxstat compare -r 3 tru" true
has "ctxstat compare -e cycles -- tru" true
lacks "ctxstat compare tru" compare report
has "ctxstat compare true --- fal" false
exactly "ctxstat quiesce --c" --cpus
exactly "ctxstat quiesce --cpus "
has "ctxstat quiesce --cpus 0-1 tru" true
exactly "ctxstat report --mark" --markdown
exactly "ctxstat report -x "
exactly "ctxstat report -o $tmp/ou" "$tmp/out.txt"
touch "$tmp/a.json" "$tmp/b.json"
mkdir "$tmp/dir"
exactly "ctxstat report $tmp/" "$tmp/a.json" "$tmp/b.json" "$tmp/dir/"
exactly "ctxstat report -x, $tmp/a.json $tmp/b" "$tmp/b.json"

# With bash-completion loaded, the command's own completion takes over:
# _command_offset gets the command's index in COMP_WORDS as bash splits
# them (at ':' and '=' too), whatever came before.
bash_words() {
	local line=$1 c i word='' kind=''
	COMP_WORDS=()
	for ((i = 0; i < ${#line}; i++)); do
		c=${line:i:1}
		if [[ $c == [[:space:]] ]]; then
			[ -n "$word" ] && COMP_WORDS+=("$word")
			word='' kind=''
		elif [[ $c == [=:] ]]; then
			[ "$kind" = w ] && COMP_WORDS+=("$word") && word=
			word+=$c kind=b
		else
			[ "$kind" = b ] && COMP_WORDS+=("$word") && word=
			word+=$c kind=w
		fi
	done
	[[ -n $word || $line == *' ' ]] && COMP_WORDS+=("$word")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
}
_command_offset() { offset=$1; }
for line in "ctxstat -e cycles:t -- git che" "ctxstat --event=cycles:tu,instructions:k -r 3 make -j" \
	"ctxstat -x: -e task-clock:t  ls -" "ctxstat -- env LC_ALL=C " \
	"ctxstat compare -r 3 git che" "ctxstat compare -e cycles:t true --- make -j"; do
	COMP_LINE=$line
	COMP_POINT=${#line}
	bash_words "$line"
	cur=${line##*[$' \t\n"\'@><=;|&(:']}
	offset=-1
	_ctxstat ctxstat "$cur" "${COMP_WORDS[COMP_CWORD - 1]}"
	case $line in
	*git*) want="git" ;; *make*) want="make" ;; *ls*) want="ls" ;; *env*) want="env" ;;
	esac
	n=$((n + 1))
	if [ "$offset" -ge 0 ] && [ "${COMP_WORDS[offset]}" = "$want" ]; then
		echo "ok $n completion: '$line': _command_offset $offset -> COMP_WORDS[$offset] = $want"
	else
		failed=1
		echo "not ok $n completion: '$line': _command_offset '$offset' -> '${COMP_WORDS[offset]:-}', expected the index of $want in (${COMP_WORDS[*]})"
	fi
done
unset -f _command_offset

echo "1..$n"
exit "$failed"
