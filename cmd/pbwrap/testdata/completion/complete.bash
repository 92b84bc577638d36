# complete.bash SCRIPT SETUP LINE...: for each LINE, runs pbwrap's bash
# completion as bash would on LINE with the cursor at its end, and prints
# "== LINE" and then each word offered, one a line. Set BASH_COMPLETION to
# load bash-completion first.
script=$1 setup=$2
shift 2
if [[ -n $BASH_COMPLETION ]]; then
	source "$BASH_COMPLETION" || exit 1
fi
source "$script" || exit 1
source "$setup" || exit 1
for line; do
	COMP_LINE=$line
	COMP_POINT=${#line}
	# Words as bash splits them, = and : on their own.
	read -ra COMP_WORDS <<<"${line//=/ = }"
	[[ $line == *' ' || $line == *= ]] && COMP_WORDS+=('')
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMPREPLY=()
	_pbwrap pbwrap "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
	echo "== $line"
	printf '%s\n' "${COMPREPLY[@]}"
done
