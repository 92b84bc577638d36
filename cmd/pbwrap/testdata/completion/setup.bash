# A completion for a fake claude, for the hand-over from pbwrap's.
_claude() {
	COMPREPLY=($(compgen -W '--resume --recent --help' -- "$2"))
}
complete -F _claude claude
