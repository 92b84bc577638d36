# complete.zsh SCRIPT SETUP OUT LINE...: for each LINE, types LINE and a
# Tab into an interactive zsh that has compinit, SCRIPT and SETUP loaded,
# and appends to OUT a line "== LINE" and then each match the completion
# offered, one a line; "== end" last. zsh completes only inside its line
# editor, so the shell runs on a pseudo-terminal (zsh/zpty), and a compadd
# of its own records each match as completion functions add it. Keys are
# typed only at the prompt, once the line editor reads them (before, the
# terminal would take the Ctrl-U that empties the line for its own). The
# caller bounds how long this may take.
zmodload zsh/zpty || exit 1
script=$1 setup=$2 out=$3
shift 3
: >$out
zpty pbwrap_test zsh -f -i || exit 1
# run CMD: run CMD at the prompt and wait for the next prompt.
run() {
	local junk
	zpty -w pbwrap_test "$1"
	zpty -r pbwrap_test junk '*<%READY%> ' || exit 1
}
run "PS1='<%%READY%%> ' RPS1='' PS2=''; OUT=${(q)out}"
run 'autoload -Uz compinit && compinit -u -D'
run 'unsetopt auto_list list_beep beep; bindkey "^I" complete-word'
run "source ${(q)script}; source ${(q)setup}"
run 'compadd() {
	local a
	for a in "$@"; do
		[[ $a == -- ]] && break
		if [[ $a == -[OAD]* ]]; then builtin compadd "$@"; return; fi
	done
	local -a hits
	builtin compadd -O hits "$@"
	(( $#hits )) && print -rl -- $hits >>$OUT
	builtin compadd "$@"
}'
for line in "$@"; do
	run "print -r -- ${(q)${:-== $line}} >>\$OUT"
	zpty -n -w pbwrap_test "$line"$'\t\C-u'
done
run 'print -r -- "== end" >>$OUT'
zpty -d pbwrap_test
