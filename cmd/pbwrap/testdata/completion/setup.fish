# A completion for a fake claude, for the hand-over from pbwrap's.
complete -c claude -f -l resume -l recent -l help
