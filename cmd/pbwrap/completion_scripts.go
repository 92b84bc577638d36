package main

// The completion scripts, fixed text; at each completion they load the
// tables cmd_completion.go writes (pbwrap completion tables SHELL) from
// the pbwrap on the line. Each script walks the words before the
// cursor as pbwrap reads them: its flags (skipping a flag's value), then
// -- or the first other word, which is one of pbwrap's commands or the
// command to wrap. After one of pbwrap's commands it offers the command's
// flags, and asks pbwrap (pbwrap completion words) for the rest: its
// arguments, a flag's values. From a wrapped command on, the shell's own
// completion for it takes over, on the words from it on.

const bashHead = `# bash completion for pbwrap, printed by pbwrap completion bash.
# Load it in ~/.bashrc: source <(pbwrap completion bash)

`

const bashBody = `# _pbwrap_tables: load pbwrap's commands and flags, and the functions
# that say a flag's values, a command's flags and whether it takes a file,
# from the pbwrap being completed, as it has them now.
_pbwrap_tables() {
	eval "$("${COMP_WORDS[0]}" completion tables bash 2>/dev/null)"
}

# _pbwrap_has WORD LIST...: whether WORD is one of LIST.
_pbwrap_has() {
	local word=$1 x
	shift
	for x; do [[ $x == "$word" ]] && return 0; done
	return 1
}

# _pbwrap_match CUR WORD...: add the WORDs that start with CUR to the
# reply.
_pbwrap_match() {
	local cur=$1 word
	shift
	for word; do [[ $word == "$cur"* ]] && COMPREPLY+=("$word"); done
}

# _pbwrap_compgen ARGS...: add what compgen ARGS... prints to the reply,
# one word a line. IFS is set here alone: a completion pbwrap hands over
# to must see the user's.
_pbwrap_compgen() {
	local IFS=$'\n'
	COMPREPLY+=($(compgen "$@"))
}

# _pbwrap_value FLAG CUR: complete the value of one of pbwrap's flags.
_pbwrap_value() {
	if _pbwrap_has "$1" "${_pbwrap_dir_flags[@]}"; then
		_pbwrap_compgen -d -- "$2"
	elif _pbwrap_has "$1" "${_pbwrap_file_flags[@]}"; then
		_pbwrap_compgen -f -- "$2"
	else
		_pbwrap_flag_values "$1"
		_pbwrap_match "$2" "${_pbwrap_words[@]}"
	fi
}

# _pbwrap_ask: set _pbwrap_words to what pbwrap says may come next on the
# line: it is given the words before the cursor, a --flag=value that bash
# split at the = joined again.
_pbwrap_ask() {
	local -a line=()
	local j word
	for (( j = 1; j < COMP_CWORD; j++ )); do
		word=${COMP_WORDS[j]}
		if (( ${#line[@]} > 0 )) && [[ $word == = || ${COMP_WORDS[j-1]} == = ]]; then
			line[${#line[@]}-1]+=$word
		else
			line+=("$word")
		fi
	done
	local IFS=$'\n'
	_pbwrap_words=($("${COMP_WORDS[0]}" completion words "${line[@]}" 2>/dev/null))
}

# _pbwrap_trim_line: remove the blanks at the start of COMP_LINE.
_pbwrap_trim_line() {
	local blanks=${COMP_LINE%%[![:blank:]]*}
	COMP_LINE=${COMP_LINE:${#blanks}}
	(( COMP_POINT -= ${#blanks} ))
}

# _pbwrap_delegate N: complete as the command in word N would, as if the
# command line started there: with bash-completion's _command_offset when
# it is loaded, else with what complete -p says for the command.
_pbwrap_delegate() {
	if declare -F _comp_command_offset >/dev/null; then
		_comp_command_offset "$1"
		return
	fi
	if declare -F _command_offset >/dev/null; then
		_command_offset "$1"
		return
	fi
	local n=$1 i cmd=${COMP_WORDS[$1]} spec opts cur
	for (( i = 0; i < n; i++ )); do
		_pbwrap_trim_line
		COMP_LINE=${COMP_LINE:${#COMP_WORDS[i]}}
		(( COMP_POINT -= ${#COMP_WORDS[i]} ))
	done
	_pbwrap_trim_line
	COMP_WORDS=("${COMP_WORDS[@]:n}")
	(( COMP_CWORD -= n ))
	cur=${COMP_WORDS[COMP_CWORD]}
	spec=$(complete -p -- "$cmd" 2>/dev/null)
	if [[ $spec =~ \ -F\ ([^ ]+)\  ]]; then
		"${BASH_REMATCH[1]}" "$cmd" "$cur" "${COMP_WORDS[COMP_CWORD-1]}"
	elif [[ -n $spec ]]; then
		# complete -W '...' CMD is compgen -W '...' CUR.
		opts=${spec#complete }
		opts=${opts% *}
		local IFS=$'\n'
		COMPREPLY=($(IFS=$' \t\n'; eval "compgen $opts -- \"\$cur\"" 2>/dev/null))
	else
		_pbwrap_compgen -f -- "$cur"
	fi
}

_pbwrap() {
	local cur=${COMP_WORDS[COMP_CWORD]} word i=1 dashdash=0
	COMPREPLY=()
	_pbwrap_tables
	while (( i < COMP_CWORD )); do
		word=${COMP_WORDS[i]}
		if [[ $word == -- ]]; then
			dashdash=1
			(( i++ ))
			break
		fi
		[[ $word == -* ]] || break
		if [[ ${COMP_WORDS[i+1]} == = ]]; then
			# --flag=value, which bash splits at the =.
			(( i + 1 == COMP_CWORD )) && return
			if (( i + 2 == COMP_CWORD )); then
				_pbwrap_value "$word" "$cur"
				return
			fi
			(( i += 3 ))
			continue
		fi
		if _pbwrap_has "$word" "${_pbwrap_value_flags[@]}"; then
			if (( i + 1 == COMP_CWORD )); then
				_pbwrap_value "$word" "$cur"
				return
			fi
			(( i++ ))
		fi
		(( i++ ))
	done
	if (( i == COMP_CWORD )); then
		if [[ $cur == -* ]] && (( ! dashdash )); then
			_pbwrap_match "$cur" "${_pbwrap_flags[@]}"
			return
		fi
		(( dashdash )) || _pbwrap_match "$cur" "${_pbwrap_commands[@]}"
		_pbwrap_compgen -c -- "$cur"
		return
	fi
	word=${COMP_WORDS[i]}
	if (( ! dashdash )) && _pbwrap_has "$word" "${_pbwrap_commands[@]}"; then
		if [[ $cur == -* ]]; then
			_pbwrap_command_flags "$word"
			_pbwrap_match "$cur" "${_pbwrap_words[@]}"
			return
		fi
		_pbwrap_ask
		_pbwrap_match "$cur" "${_pbwrap_words[@]}"
		if _pbwrap_command_files "$word"; then
			_pbwrap_compgen -f -- "$cur"
		fi
		return
	fi
	_pbwrap_delegate "$i"
}

complete -o bashdefault -o default -F _pbwrap pbwrap
`

const zshHead = `#compdef pbwrap
# zsh completion for pbwrap, printed by pbwrap completion zsh.
# Load it in ~/.zshrc, after compinit: source <(pbwrap completion zsh)
# or save it as _pbwrap in a directory of $fpath.

`

const zshBody = `# _pbwrap_tables: load pbwrap's commands and flags, and the functions
# that complete a flag's values and a command's flags, from the pbwrap
# being completed, as it has them now.
_pbwrap_tables() {
	eval "$($words[1] completion tables zsh 2>/dev/null)"
	_pbwrap_command_names=(${_pbwrap_commands%%:*})
}

# _pbwrap_value FLAG: complete the value of one of pbwrap's flags.
_pbwrap_value() {
	if (( ${_pbwrap_dir_flags[(Ie)$1]} )); then
		_files -/
	elif (( ${_pbwrap_file_flags[(Ie)$1]} )); then
		_files
	else
		_pbwrap_flag_values $1
	fi
}

_pbwrap() {
	local i=2 word dashdash=0 flag
	_pbwrap_tables
	while (( i < CURRENT )); do
		word=$words[i]
		if [[ $word == -- ]]; then
			dashdash=1
			(( i++ ))
			break
		fi
		[[ $word == -* ]] || break
		if [[ $word != *=* ]] && (( ${_pbwrap_value_flags[(Ie)$word]} )); then
			if (( i + 1 == CURRENT )); then
				_pbwrap_value $word
				return
			fi
			(( i++ ))
		fi
		(( i++ ))
	done
	if (( i == CURRENT )); then
		if [[ $PREFIX == -* ]] && (( ! dashdash )); then
			if [[ $PREFIX == --*=* ]]; then
				flag=${PREFIX%%=*}
				compset -P '*='
				_pbwrap_value $flag
				return
			fi
			_describe -t pbwrap-flags 'pbwrap flag' _pbwrap_flags
			return
		fi
		(( dashdash )) || _describe -t pbwrap-commands 'pbwrap command' _pbwrap_commands
		_command_names -e
		return
	fi
	if (( ! dashdash )) && (( ${_pbwrap_command_names[(Ie)$words[i]]} )); then
		_pbwrap_command $words[i]
		return
	fi
	# The wrapped command: complete as if its command line started there.
	words=("${(@)words[i,-1]}")
	(( CURRENT -= i - 1 ))
	_normal
}

if [[ $funcstack[1] == _pbwrap ]]; then
	_pbwrap "$@"
else
	compdef _pbwrap pbwrap
fi
`

const fishHead = `# fish completion for pbwrap, printed by pbwrap completion fish.
# Save it: pbwrap completion fish > ~/.config/fish/completions/pbwrap.fish

`

const fishBody = `# __pbwrap_tables: load pbwrap's commands and flags, and the functions
# that say a flag's values and a command's flags, from the pbwrap being
# completed, as it has them now.
function __pbwrap_tables
	set -l tokens (commandline -opc)
	$tokens[1] completion tables fish 2>/dev/null | source
end

# __pbwrap_value FLAG CUR: complete the value of one of pbwrap's flags.
function __pbwrap_value --argument-names flag cur
	if contains -- $flag $__pbwrap_dir_flags
		__fish_complete_directories $cur
	else if contains -- $flag $__pbwrap_file_flags
		__fish_complete_path $cur
	else
		__pbwrap_flag_values $flag
	end
end

function __pbwrap_complete
	__pbwrap_tables
	set -l tokens (commandline -opc)
	set -l cur (commandline -ct)
	set -l n (count $tokens)
	set -l i 2
	set -l dashdash 0
	while test $i -le $n
		set -l word $tokens[$i]
		if test "$word" = --
			set dashdash 1
			set i (math $i + 1)
			break
		end
		string match -q -- '-*' $word; or break
		if not string match -q -- '*=*' $word; and contains -- $word $__pbwrap_value_flags
			if test $i -eq $n
				__pbwrap_value $word $cur
				return
			end
			set i (math $i + 1)
		end
		set i (math $i + 1)
	end
	if test $i -gt $n
		if test $dashdash = 0; and string match -q -- '-*' $cur
			if string match -q -- '--*=*' $cur
				set -l flag (string replace -r '=.*' '' -- $cur)
				__pbwrap_value $flag (string replace -r '^[^=]*=' '' -- $cur) | string replace -r '^' -- "$flag="
				return
			end
			printf '%s\n' $__pbwrap_flags
			return
		end
		test $dashdash = 0; and printf '%s\n' $__pbwrap_commands
		__fish_complete_command
		return
	end
	if test $dashdash = 0; and contains -- $tokens[$i] $__pbwrap_command_names
		__pbwrap_command $tokens[$i]
		return
	end
	# The wrapped command: complete as if its command line started there.
	complete -C (string join ' ' -- (string escape -- $tokens[$i..-1]) $cur)
end

complete -c pbwrap -f -a '(__pbwrap_complete)'
`
