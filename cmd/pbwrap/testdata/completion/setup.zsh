# A completion for a fake claude, for the hand-over from pbwrap's.
_claude() { compadd -- --resume --recent --help }
compdef _claude claude
