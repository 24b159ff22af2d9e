# SPDX-License-Identifier: GPL-2.0
# bash completion for ctxstat(1) and its subcommands.
#
# The subcommands, their options, which options take a value, and event
# names come from ctxstat itself (--help of ctxstat and of each subcommand
# it lists, --list), so they follow the installed version. Completes: the
# subcommands; options; event names after -e/--event/--repeat-event (also
# --event=, after a comma, and the modifiers t/u/k/h after a colon); files
# after -o/--output/--save; pids after -p/--pid; the command after the
# options or "--" (compare: command A, and command B after "---"), then
# that command's own completion when the bash-completion package provides
# it (files otherwise); report's saved *.json files.
# Self-contained: needs nothing from bash-completion.

# The option column of SUB's --help (SUB empty: ctxstat's own). record
# takes every option of ctxstat's beside its own.
_ctxstat_option_column()
{
	{
		"$1" ${2:+"$2"} --help 2>/dev/null
		[ "$2" != record ] || "$1" --help 2>/dev/null
	} | sed -n 's/^ \{2,\}\(-.*\)$/\1/p' | sed 's/ \{2,\}.*//'
}

# The options of SUB's --help, one per line.
_ctxstat_options()
{
	_ctxstat_option_column "$1" "$2" |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-' | sort -u
}

# The options of SUB's --help that take a value ("-e, --event <event>").
_ctxstat_value_options()
{
	_ctxstat_option_column "$1" "$2" | grep '<' |
		grep -o -- '--\?[A-Za-z0-9][A-Za-z0-9-]*' | grep '^-'
}

# The event names --list prints, one per line.
_ctxstat_events()
{
	"$1" --list 2>/dev/null | sed -n 's/^  \([A-Za-z0-9][A-Za-z0-9_-]*\)\( .*\)\?$/\1/p'
}

# Candidates for WORD, a (partial) -e value: "a,b,cyc" or "cycles:t".
_ctxstat_event_words()
{
	local cmd=$1 word=$2 head last name mods m
	case $word in
	*,*) head=${word%,*},; last=${word##*,} ;;
	*) head=; last=$word ;;
	esac
	case $last in
	*:*)
		# name:mods: offer each modifier not given yet.
		name=${last%%:*}
		mods=${last#*:}
		[[ $mods =~ ^[tukh]*$ ]] || return
		[ -z "$mods" ] || printf '%s\n' "$head$last"
		for m in t u k h; do
			[[ $mods == *$m* ]] || printf '%s\n' "$head$last$m"
		done
		;;
	*)
		_ctxstat_events "$cmd" | while read -r name; do
			[[ $name == "$last"* ]] && printf '%s\n' "$head$name"
		done
		;;
	esac
}

# The index in COMP_WORDS (bash's words, split at ':' and '=' too) of the
# word that starts at character OFF of COMP_LINE.
_ctxstat_comp_index()
{
	local off=$1 pos=0 j w before
	for ((j = 0; j < ${#COMP_WORDS[@]}; j++)); do
		w=${COMP_WORDS[j]}
		before=${COMP_LINE:pos}
		before=${before%%"$w"*}
		pos=$((pos + ${#before}))
		((pos >= off)) && break
		pos=$((pos + ${#w}))
	done
	echo "$j"
}

# The subcommands --help lists under "Subcommands", one per line.
_ctxstat_subcommands()
{
	"$1" --help 2>/dev/null | sed -n '/^Subcommands/,/^$/s/^ \{2,\}\([a-z][a-z-]*\) .*/\1/p'
}

# Commands for the word at INDEX starting with CUR: ctxstat's own
# subcommands come first when it is the first word.
_ctxstat_commands()
{
	local cmd=$1 index=$2 cur=$3
	COMPREPLY=()
	((index == 1)) && mapfile -t COMPREPLY < <(compgen -W "$(_ctxstat_subcommands "$cmd")" -- "$cur")
	mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -c -- "$cur")
}

# Whether the word ARG, an option, leaves the next word as its value:
# a long option of VALUED, or short ones whose last letter is one.
_ctxstat_wants_value()
{
	local arg=$1 k v; shift
	case $arg in
	--*=*) return 1 ;;
	--*)
		for v; do [ "$v" = "$arg" ] && return 0; done
		return 1 ;;
	esac
	for ((k = 1; k < ${#arg}; k++)); do
		for v; do
			[ "$v" = "-${arg:k:1}" ] || continue
			# the rest of the word, if any, is its value
			((k == ${#arg} - 1))
			return
		done
	done
	return 1
}

# Saved results for report: *.json files and directories to look in.
_ctxstat_json_files()
{
	local cur=$1
	mapfile -t COMPREPLY < <(compgen -d -S / -- "$cur"; compgen -f -X '!*.json' -- "$cur")
	[[ ${COMPREPLY[*]} == */* ]] && compopt -o nospace 2>/dev/null
	return 0
}

_ctxstat()
{
	local cmd=$1 cur=$2 line word prev opt i nwords arg value=0 cmd_at=-1
	local sub='' first=1
	local -a words replies valued
	COMPREPLY=()

	# The words before the cursor as the user typed them: bash's own
	# COMP_WORDS splits at ':' and '=', which event names contain.
	line=${COMP_LINE:0:COMP_POINT}
	read -r -a words <<<"$line"
	[[ -z $line || $line == *[[:space:]] ]] && words+=("")
	nwords=${#words[@]}
	word=${words[nwords - 1]}
	prev=
	((nwords >= 2)) && prev=${words[nwords - 2]}
	if ((nwords > 2)) && grep -qxF -- "${words[1]}" <<<"$(_ctxstat_subcommands "$cmd")"; then
		sub=${words[1]}
		first=2
	fi
	mapfile -t valued < <(_ctxstat_value_options "$cmd" "$sub")

	# Where the command starts: the first non-option, or after "--";
	# compare's command B after "---". report has files, not a command.
	for ((i = first; i < nwords - 1; i++)); do
		arg=${words[i]}
		if ((value)); then
			value=0
			continue
		fi
		case $arg in
		--) cmd_at=$((i + 1)); break ;;
		-?*) _ctxstat_wants_value "$arg" "${valued[@]}" && value=1 ;;
		*) [ "$sub" = report ] || { cmd_at=$i; break; } ;;
		esac
	done
	if [ "$sub" = compare ] && ((cmd_at >= 0)); then
		for ((i = cmd_at; i < nwords - 1; i++)); do
			[ "${words[i]}" = --- ] && cmd_at=$((i + 1))
		done
	fi
	if ((cmd_at == nwords - 1)); then
		_ctxstat_commands "$cmd" "$cmd_at" "$cur"
		return 0
	elif ((cmd_at >= 0)); then
		if declare -F _command_offset >/dev/null; then
			# bash-completion's, with the command's index in
			# COMP_WORDS: where it starts in the line.
			local start
			line=${COMP_LINE%%"${words[0]}"*}
			start=${#line}
			for ((i = 0; i < cmd_at; i++)); do
				start=$((start + ${#words[i]}))
				line=${COMP_LINE:start}
				line=${line%%"${words[i + 1]}"*}
				start=$((start + ${#line}))
			done
			_command_offset "$(_ctxstat_comp_index "$start")"
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		return 0
	fi

	# The option whose value is being typed: -e, --event, or -ve's e.
	opt=
	if ((value)); then
		case $prev in
		--*) opt=$prev ;;
		*) opt=-${prev: -1} ;;
		esac
	fi
	case $opt in
	-e | --event | --repeat-event)
		mapfile -t replies < <(_ctxstat_event_words "$cmd" "$word") ;;
	-o | --output | --save)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0 ;;
	-p | --pid)
		mapfile -t COMPREPLY < <(cd /proc 2>/dev/null && compgen -G "${cur}[0-9]*" | grep -x '[0-9]*')
		return 0 ;;
	-?*)
		return 0 ;;
	*)
		case $word in
		--event=* | --repeat-event=*)
			mapfile -t replies < <(_ctxstat_event_words "$cmd" "${word#*=}")
			replies=("${replies[@]/#/${word%%=*}=}") ;;
		--output=* | --save=*)
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return 0 ;;
		-*)
			mapfile -t replies < <(_ctxstat_options "$cmd" "$sub" | grep -e "^$word") ;;
		*)
			if [ "$sub" = report ]; then
				_ctxstat_json_files "$cur"
			else
				_ctxstat_commands "$cmd" "$((nwords - 1))" "$cur"
			fi
			return 0 ;;
		esac
		;;
	esac

	# Readline replaces only the text after the last word-break character
	# (':' and '=' by default), which bash passes as $2: drop what comes
	# before it from the candidates.
	local skip=$((${#word} - ${#cur}))
	((skip >= 0)) || skip=0
	for i in "${!replies[@]}"; do
		COMPREPLY+=("${replies[i]:skip}")
	done
	# More to type after a name with modifiers or a partial list: no space.
	if [[ ${#COMPREPLY[@]} -gt 1 || $word == *[:,]* ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}

complete -F _ctxstat ctxstat
