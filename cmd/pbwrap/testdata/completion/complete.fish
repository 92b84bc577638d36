# complete.fish SCRIPT SETUP LINE...: for each LINE, prints "== LINE" and
# then each completion fish offers for it, without descriptions.
source $argv[1]; or exit 1
source $argv[2]; or exit 1
for line in $argv[3..-1]
	echo "== $line"
	complete -C $line | string replace -r '\t.*' ''
end
