package fileref

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// dirMark stands for the test's temporary directory in the tables.
const dirMark = "<D>"

// fixture is a directory of files and symbolic links for one table case.
type fixture struct {
	files map[string]string // name (may contain "/") → content
	dirs  []string          // names of extra directories
	links map[string]string // name → target, dirMark allowed
}

// make creates the fixture in a new temporary directory and returns a
// function that replaces dirMark with that directory. The directory's name
// does not come from the test's name, which may contain "}}".
func (fx fixture) make(t *testing.T) (sub func(string) string, dir string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "pasteref")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sub = func(s string) string { return strings.ReplaceAll(s, dirMark, dir) }
	for name, content := range fx.files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	for _, name := range fx.dirs {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range fx.links {
		if err := os.Symlink(sub(target), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return sub, dir
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	abcd  = map[string]string{"f": "a\nb\nc\nd\n"}
	long  = strings.Repeat("x", 3*readSize+17) + "\n"
	lines = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
)

var expandTests = []struct {
	rule string
	fx   fixture
	in   string
	want string
}{
	// Rule 1: syntax.
	{rule: "1: no reference leaves the text as it is", in: "plain text\n", want: "plain text\n"},
	{rule: "1: empty input", in: "", want: ""},
	{rule: "1: near misses are text", in: "{{file /a:1:2}} {{File:/a:1:2}} {file:/a:1:2} {{files:/a:1:2}} {{ file:/a:1:2}}",
		want: "{{file /a:1:2}} {{File:/a:1:2}} {file:/a:1:2} {{files:/a:1:2}} {{ file:/a:1:2}}"},
	{rule: "1: a reference", fx: fixture{files: abcd}, in: "{{file:<D>/f:2:3}}", want: "b\nc\n"},
	{rule: "1: leading zeros are allowed", fx: fixture{files: abcd}, in: "{{file:<D>/f:02:0003}}", want: "b\nc\n"},
	{rule: "1: nine digits", fx: fixture{files: abcd}, in: "{{file:<D>/f:000000001:000000001}}", want: "a\n"},
	{rule: "1: an extra brace before the reference is text", fx: fixture{files: abcd}, in: "{{{file:<D>/f:1:1}}", want: "{a\n"},
	{rule: "1: an extra brace after the reference is text", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:1}}}", want: "a\n}"},

	// Rule 2: paths.
	{rule: "2: path containing a colon", fx: fixture{files: map[string]string{"a:b/c.txt": "x\ny\n"}},
		in: "{{file:<D>/a:b/c.txt:2:2}}", want: "y\n"},
	{rule: "2: path containing colon-number fields", fx: fixture{files: map[string]string{"x:1:2/y.txt": "x\ny\n"}},
		in: "{{file:<D>/x:1:2/y.txt:1:1}}", want: "x\n"},
	{rule: "2: path ending in a colon", fx: fixture{files: map[string]string{"z:": "z\n"}},
		in: "{{file:<D>/z::1:1}}", want: "z\n"},
	{rule: "2: dollar inside a path is literal", fx: fixture{files: map[string]string{"$USER/x": "lit\n"}},
		in: "{{file:<D>/$USER/x:1:1}}", want: "lit\n"},
	{rule: "2: tilde inside a path is literal", fx: fixture{files: map[string]string{"~/x": "lit\n"}},
		in: "{{file:<D>/~/x:1:1}}", want: "lit\n"},
	{rule: "2: spaces inside a path", fx: fixture{files: map[string]string{"my file.txt": "sp\n"}},
		in: "{{file:<D>/my file.txt:1:1}}", want: "sp\n"},
	{rule: "2: one brace inside a path", fx: fixture{files: map[string]string{"a}b{c": "br\n"}},
		in: "{{file:<D>/a}b{c:1:1}}", want: "br\n"},
	{rule: "2: the path is not cleaned", fx: fixture{files: abcd, dirs: []string{"d"}},
		in: "{{file:<D>/d/..//f:4:4}}", want: "d\n"},

	// Rule 3: content.
	{rule: "3: middle lines keep their newline", fx: fixture{files: abcd}, in: "{{file:<D>/f:2:3}}", want: "b\nc\n"},
	{rule: "3: first line", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:1}}", want: "a\n"},
	{rule: "3: last line", fx: fixture{files: abcd}, in: "{{file:<D>/f:4:4}}", want: "d\n"},
	{rule: "3: whole file equals the file", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:4}}", want: "a\nb\nc\nd\n"},
	{rule: "3: last line without newline gets none", fx: fixture{files: map[string]string{"f": "a\nb"}},
		in: "{{file:<D>/f:2:2}}", want: "b"},
	{rule: "3: whole file without final newline", fx: fixture{files: map[string]string{"f": "a\nb"}},
		in: "<{{file:<D>/f:1:2}}>", want: "<a\nb>"},
	{rule: "3: a line that is only a newline", fx: fixture{files: map[string]string{"f": "\n\nx\n"}},
		in: "{{file:<D>/f:2:2}}", want: "\n"},
	{rule: "3: CRLF stays CRLF", fx: fixture{files: map[string]string{"f": "a\r\nb\r\nc\r\n"}},
		in: "{{file:<D>/f:2:3}}", want: "b\r\nc\r\n"},
	{rule: "3: a lone CR is not a line break", fx: fixture{files: map[string]string{"f": "a\rb\nc\n"}},
		in: "{{file:<D>/f:1:1}}", want: "a\rb\n"},
	{rule: "3: bytes are copied as they are", fx: fixture{files: map[string]string{"f": "\x00\xff\xfe\t\x1b[0m\n"}},
		in: "{{file:<D>/f:1:1}}", want: "\x00\xff\xfe\t\x1b[0m\n"},
	{rule: "3: a line longer than the read buffer", fx: fixture{files: map[string]string{"f": "a\n" + long + "b\n"}},
		in: "{{file:<D>/f:2:3}}", want: long + "b\n"},
	{rule: "3: a reference in the file is not expanded", fx: fixture{files: map[string]string{"f": "{{file:/nope:1:1}}\n", "g": "x\n"}},
		in: "{{file:<D>/f:1:1}}", want: "{{file:/nope:1:1}}\n"},
	{rule: "3: a broken reference in the file is copied", fx: fixture{files: map[string]string{"f": "{{file:\n"}},
		in: "{{file:<D>/f:1:1}}", want: "{{file:\n"},
	{rule: "3: an escape in the file keeps its backslash", fx: fixture{files: map[string]string{"f": "\\{{file:x\n"}},
		in: "{{file:<D>/f:1:1}}", want: "\\{{file:x\n"},
	{rule: "3: expanded text is not scanned again across the join", fx: fixture{files: map[string]string{"f": "{{fi"}},
		in: "{{file:<D>/f:1:1}}le:/nope:1:1}}", want: "{{file:/nope:1:1}}"},
	{rule: "3: text around a reference is kept", fx: fixture{files: abcd}, in: "before\n{{file:<D>/f:2:2}}after\n", want: "before\nb\nafter\n"},
	{rule: "3: text on the same line after a reference", fx: fixture{files: abcd}, in: "x = {{file:<D>/f:1:1}} // y", want: "x = a\n // y"},
	{rule: "3: references at the start and the end", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:1}}-{{file:<D>/f:4:4}}", want: "a\n-d\n"},
	{rule: "3: adjacent references", fx: fixture{files: abcd}, in: "{{file:<D>/f:3:3}}{{file:<D>/f:1:1}}{{file:<D>/f:2:2}}", want: "c\na\nb\n"},
	{rule: "3: the same reference twice", fx: fixture{files: abcd}, in: "{{file:<D>/f:2:3}}|{{file:<D>/f:2:3}}", want: "b\nc\n|b\nc\n"},
	{rule: "3: overlapping ranges of one file", fx: fixture{files: map[string]string{"f": lines}},
		in:   "{{file:<D>/f:3:7}}{{file:<D>/f:1:4}}{{file:<D>/f:5:5}}{{file:<D>/f:7:12}}",
		want: "3\n4\n5\n6\n7\n" + "1\n2\n3\n4\n" + "5\n" + "7\n8\n9\n10\n11\n12\n"},
	{rule: "3: several files", fx: fixture{files: map[string]string{"f": "f1\nf2\n", "g": "g1\ng2\n", "sub/h": "h1"}},
		in: "{{file:<D>/g:2:2}}{{file:<D>/sub/h:1:1}}\n{{file:<D>/f:1:2}}", want: "g2\nh1\nf1\nf2\n"},

	// Rule 5: the escape.
	{rule: "5: an escaped reference is literal", in: `\{{file:/abs:1:2}}`, want: `{{file:/abs:1:2}}`},
	{rule: "5: an escaped relative or broken reference is literal", in: "\\{{file:x \\{{file:\n\\{{file:/a:b:c}}", want: "{{file:x {{file:\n{{file:/a:b:c}}"},
	{rule: "5: two backslashes keep one and escape", in: `\\{{file:/abs:1:2}}`, want: `\{{file:/abs:1:2}}`},
	{rule: "5: other backslashes are untouched", fx: fixture{files: abcd}, in: `a\b \{ \\ \{{ \{file: {{file:<D>/f:1:1}}\`, want: "a\\b \\{ \\\\ \\{{ \\{file: a\n\\"},
	{rule: "5: escape then a reference", fx: fixture{files: abcd}, in: `\{{file:x {{file:<D>/f:1:1}}`, want: "{{file:x a\n"},
	{rule: "5: reference then escape", fx: fixture{files: abcd}, in: `{{file:<D>/f:1:1}}\{{file:<D>/f:1:1}}`, want: "a\n{{file:<D>/f:1:1}}"},
	{rule: "5: scanning resumes right after an escaped marker", fx: fixture{files: abcd}, in: `\{{file:{{file:<D>/f:1:1}}`, want: "{{file:a\n"},

	// Rule 7: symbolic links.
	{rule: "7: a symbolic link is followed", fx: fixture{files: abcd, links: map[string]string{"l": "<D>/f"}},
		in: "{{file:<D>/l:2:2}}", want: "b\n"},
	{rule: "7: a relative symbolic link is followed", fx: fixture{files: abcd, links: map[string]string{"l": "f"}},
		in: "{{file:<D>/l:3:3}}", want: "c\n"},
	{rule: "7: a link to a directory inside the path", fx: fixture{files: abcd, links: map[string]string{"dl": "<D>"}},
		in: "{{file:<D>/dl/f:4:4}}", want: "d\n"},
}

func TestExpand(t *testing.T) {
	for _, tt := range expandTests {
		t.Run(tt.rule, func(t *testing.T) {
			sub, _ := tt.fx.make(t)
			in, want := sub(tt.in), sub(tt.want)
			got, err := Expand([]byte(in))
			if err != nil {
				t.Fatalf("Expand(%q): %v", in, err)
			}
			if string(got) != want {
				t.Errorf("Expand(%q)\n got %q\nwant %q", in, got, want)
			}
			if got == nil {
				t.Errorf("Expand(%q) = nil, want a non-nil slice on success", in)
			}
			if err := Check([]byte(in)); err != nil {
				t.Errorf("Check(%q) = %v, want nil as Expand succeeded", in, err)
			}
		})
	}
}

var expandErrorTests = []struct {
	rule string
	fx   fixture
	in   string
	ref  string // Error.Ref
	off  int    // Error.Offset, in tt.in (before dirMark is replaced)
	is   error  // errors.Is(err, is)
	msg  string // Error.Err.Error()
}{
	// Rule 1 and 4: malformed references.
	{rule: "4: missing }} at the end of the input", fx: fixture{files: abcd}, in: "x {{file:<D>/f:1:2",
		ref: "{{file:<D>/f:1:2", off: 2, is: errMalformed, msg: `malformed reference: missing "}}" before the end of the input`},
	{rule: "4: only the marker", in: "{{file:", ref: "{{file:", is: errMalformed,
		msg: `malformed reference: missing "}}" before the end of the input`},
	{rule: "4: missing }} before a newline", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:2\n}}",
		ref: "{{file:<D>/f:1:2", is: errMalformed, msg: `malformed reference: missing "}}" before the end of the line`},
	{rule: "4: missing }} before a CR", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:2\r\n",
		ref: "{{file:<D>/f:1:2", is: errMalformed, msg: `malformed reference: missing "}}" before the end of the line`},
	{rule: "4: a single closing brace", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:2} x",
		ref: "{{file:<D>/f:1:2} x", is: errMalformed, msg: `malformed reference: missing "}}" before the end of the input`},
	{rule: "4: empty body", in: "{{file:}}", ref: "{{file:}}", is: errMalformed, msg: "malformed reference: want {{file:PATH:START:END}}"},
	{rule: "4: missing numbers", fx: fixture{files: abcd}, in: "{{file:<D>/f}}",
		ref: "{{file:<D>/f}}", is: errMalformed, msg: "malformed reference: want {{file:PATH:START:END}}"},
	{rule: "4: one number", fx: fixture{files: abcd}, in: "{{file:<D>/f:1}}",
		ref: "{{file:<D>/f:1}}", is: errMalformed, msg: "malformed reference: want {{file:PATH:START:END}}"},
	{rule: "4: empty path", in: "{{file::1:2}}", ref: "{{file::1:2}}", is: errMalformed, msg: "malformed reference: empty path"},
	{rule: "4: empty start line", fx: fixture{files: abcd}, in: "{{file:<D>/f::2}}",
		ref: "{{file:<D>/f::2}}", is: errMalformed, msg: "malformed reference: missing start line"},
	{rule: "4: empty end line", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:}}",
		ref: "{{file:<D>/f:1:}}", is: errMalformed, msg: "malformed reference: missing end line"},
	{rule: "4: non-numeric start line", fx: fixture{files: abcd}, in: "{{file:<D>/f:a:2}}",
		ref: "{{file:<D>/f:a:2}}", is: errMalformed, msg: `malformed reference: start line "a" is not a decimal number`},
	{rule: "4: non-numeric end line", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:end}}",
		ref: "{{file:<D>/f:1:end}}", is: errMalformed, msg: `malformed reference: end line "end" is not a decimal number`},
	{rule: "1: no sign", fx: fixture{files: abcd}, in: "{{file:<D>/f:+1:2}}",
		ref: "{{file:<D>/f:+1:2}}", is: errMalformed, msg: `malformed reference: start line "+1" is not a decimal number`},
	{rule: "1: no negative numbers", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:-2}}",
		ref: "{{file:<D>/f:1:-2}}", is: errMalformed, msg: `malformed reference: end line "-2" is not a decimal number`},
	{rule: "1: no space in a number", fx: fixture{files: abcd}, in: "{{file:<D>/f: 1:2}}",
		ref: "{{file:<D>/f: 1:2}}", is: errMalformed, msg: `malformed reference: start line " 1" is not a decimal number`},
	{rule: "1: no space before }}", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:2 }}",
		ref: "{{file:<D>/f:1:2 }}", is: errMalformed, msg: `malformed reference: end line "2 " is not a decimal number`},
	{rule: "1: no other digits", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:２}}",
		ref: "{{file:<D>/f:1:２}}", is: errMalformed, msg: `malformed reference: end line "２" is not a decimal number`},
	{rule: "1: at most nine digits", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:1234567890}}",
		ref: "{{file:<D>/f:1:1234567890}}", is: errMalformed, msg: `malformed reference: end line "1234567890" has more than 9 digits`},
	{rule: "1: leading zeros count as digits", fx: fixture{files: abcd}, in: "{{file:<D>/f:0000000001:1}}",
		ref: "{{file:<D>/f:0000000001:1}}", is: errMalformed, msg: `malformed reference: start line "0000000001" has more than 9 digits`},
	{rule: "1: a path cannot contain }}", fx: fixture{files: map[string]string{"a}}b": "x\n"}}, in: "{{file:<D>/a}}b:1:1}}",
		ref: "{{file:<D>/a}}", is: errMalformed, msg: "malformed reference: want {{file:PATH:START:END}}"},
	{rule: "4: a reference within a reference", fx: fixture{files: abcd}, in: "{{file:{{file:<D>/f:1:1}}",
		ref: "{{file:{{file:<D>/f:1:1}}", is: errRelativePath, msg: `path is not absolute: "{{file:<D>/f"`},
	{rule: "4: a runaway reference is cut at 200 bytes", in: "{{file:" + strings.Repeat("é", 150),
		ref: ("{{file:" + strings.Repeat("é", 150))[:199] + "...", is: errMalformed,
		msg: `malformed reference: missing "}}" before the end of the input`},
	{rule: "4: a runaway reference of invalid UTF-8 is cut at 200 bytes", in: "{{file:" + strings.Repeat("\x9e", 300),
		ref: ("{{file:" + strings.Repeat("\x9e", 300))[:200] + "...", is: errMalformed,
		msg: `malformed reference: missing "}}" before the end of the input`},

	// Rule 2: absolute paths only.
	{rule: "2: relative path", in: "{{file:f:1:2}}", ref: "{{file:f:1:2}}", is: errRelativePath, msg: `path is not absolute: "f"`},
	{rule: "2: dot path", in: "{{file:./f:1:2}}", ref: "{{file:./f:1:2}}", is: errRelativePath, msg: `path is not absolute: "./f"`},
	{rule: "2: tilde is not expanded", in: "{{file:~/f:1:2}}", ref: "{{file:~/f:1:2}}", is: errRelativePath, msg: `path is not absolute: "~/f"`},
	{rule: "2: environment variables are not expanded", in: "{{file:$HOME/f:1:2}}", ref: "{{file:$HOME/f:1:2}}",
		is: errRelativePath, msg: `path is not absolute: "$HOME/f"`},
	{rule: "1: no quotes", fx: fixture{files: abcd}, in: `{{file:"<D>/f":1:2}}`, ref: `{{file:"<D>/f":1:2}}`,
		is: errRelativePath, msg: `path is not absolute: "\"<D>/f\""`},
	{rule: "1: no space before the path", fx: fixture{files: abcd}, in: `{{file: <D>/f:1:2}}`, ref: `{{file: <D>/f:1:2}}`,
		is: errRelativePath, msg: `path is not absolute: " <D>/f"`},

	// Rule 4: ranges.
	{rule: "4: start line 0", fx: fixture{files: abcd}, in: "{{file:<D>/f:0:2}}",
		ref: "{{file:<D>/f:0:2}}", is: errStartLine, msg: "start line must be at least 1, not 0"},
	{rule: "4: start and end line 0", fx: fixture{files: abcd}, in: "{{file:<D>/f:0:0}}",
		ref: "{{file:<D>/f:0:0}}", is: errStartLine, msg: "start line must be at least 1, not 0"},
	{rule: "4: end before start", fx: fixture{files: abcd}, in: "{{file:<D>/f:3:2}}",
		ref: "{{file:<D>/f:3:2}}", is: errEndBeforeStart, msg: "end line is before start line: 2 < 3"},
	{rule: "4: a range is checked before the file", in: "{{file:/nonexistent/f:3:2}}",
		ref: "{{file:/nonexistent/f:3:2}}", is: errEndBeforeStart, msg: "end line is before start line: 2 < 3"},
	{rule: "4: end past the end", fx: fixture{files: abcd}, in: "{{file:<D>/f:3:5}}",
		ref: "{{file:<D>/f:3:5}}", is: errPastEnd, msg: "end line is past the end of the file: line 5, but the file has 4 lines"},
	{rule: "4: whole range past the end", fx: fixture{files: abcd}, in: "{{file:<D>/f:5:5}}",
		ref: "{{file:<D>/f:5:5}}", is: errPastEnd, msg: "end line is past the end of the file: line 5, but the file has 4 lines"},
	{rule: "4: an empty file has no lines", fx: fixture{files: map[string]string{"e": ""}}, in: "{{file:<D>/e:1:1}}",
		ref: "{{file:<D>/e:1:1}}", is: errPastEnd, msg: "end line is past the end of the file: line 1, but the file is empty"},
	{rule: "4: one line", fx: fixture{files: map[string]string{"f": "a"}}, in: "{{file:<D>/f:1:2}}",
		ref: "{{file:<D>/f:1:2}}", is: errPastEnd, msg: "end line is past the end of the file: line 2, but the file has 1 line"},
	{rule: "4: a last line without newline counts", fx: fixture{files: map[string]string{"f": "a\nb"}}, in: "{{file:<D>/f:1:3}}",
		ref: "{{file:<D>/f:1:3}}", is: errPastEnd, msg: "end line is past the end of the file: line 3, but the file has 2 lines"},
	{rule: "4: a newline is not a line after it", fx: fixture{files: map[string]string{"f": "a\n"}}, in: "{{file:<D>/f:2:2}}",
		ref: "{{file:<D>/f:2:2}}", is: errPastEnd, msg: "end line is past the end of the file: line 2, but the file has 1 line"},

	// Rule 4: files.
	{rule: "4: missing file", in: "{{file:<D>/nope:1:1}}", ref: "{{file:<D>/nope:1:1}}",
		is: fs.ErrNotExist, msg: "open <D>/nope: no such file or directory"},
	{rule: "4: missing directory", in: "{{file:<D>/no/such/f:1:1}}", ref: "{{file:<D>/no/such/f:1:1}}",
		is: fs.ErrNotExist, msg: "open <D>/no/such/f: no such file or directory"},
	{rule: "4: a directory", fx: fixture{dirs: []string{"d"}}, in: "{{file:<D>/d:1:1}}", ref: "{{file:<D>/d:1:1}}",
		is: errNotRegular, msg: "open <D>/d: not a regular file (a directory)"},
	{rule: "4: the root directory", in: "{{file:/:1:1}}", ref: "{{file:/:1:1}}",
		is: errNotRegular, msg: "open /: not a regular file (a directory)"},
	{rule: "7: a link to a directory", fx: fixture{dirs: []string{"d"}, links: map[string]string{"l": "<D>/d"}},
		in: "{{file:<D>/l:1:1}}", ref: "{{file:<D>/l:1:1}}", is: errNotRegular, msg: "open <D>/l: not a regular file (a directory)"},
	{rule: "7: a dangling link", fx: fixture{links: map[string]string{"l": "<D>/gone"}},
		in: "{{file:<D>/l:1:1}}", ref: "{{file:<D>/l:1:1}}", is: fs.ErrNotExist, msg: "open <D>/l: no such file or directory"},

	// Rule 4: the first bad reference aborts everything.
	{rule: "4: a good reference then a bad one", fx: fixture{files: abcd}, in: "{{file:<D>/f:1:1}}\n{{file:<D>/f:9:9}}",
		ref: "{{file:<D>/f:9:9}}", off: 19, is: errPastEnd, msg: "end line is past the end of the file: line 9, but the file has 4 lines"},
	{rule: "4: the first bad reference is named", fx: fixture{files: abcd}, in: "{{file:<D>/nope:1:1}} {{file:x:1:1}} {{file:",
		ref: "{{file:<D>/nope:1:1}}", is: fs.ErrNotExist, msg: "open <D>/nope: no such file or directory"},
	{rule: "4: a malformed reference before a missing file", fx: fixture{files: abcd}, in: "{{file:<D>/f:x:1}} {{file:<D>/nope:1:1}}",
		ref: "{{file:<D>/f:x:1}}", is: errMalformed, msg: `malformed reference: start line "x" is not a decimal number`},
	{rule: "4: a missing file before a malformed reference", in: "{{file:<D>/nope:1:1}} {{file:<D>/f:x:1}}",
		ref: "{{file:<D>/nope:1:1}}", is: fs.ErrNotExist, msg: "open <D>/nope: no such file or directory"},
	{rule: "4: input order, not the order files are read", fx: fixture{files: map[string]string{"f": "f\n", "g": "g\n"}},
		in:  "{{file:<D>/f:1:1}}{{file:<D>/g:1:2}}{{file:<D>/f:1:2}}",
		ref: "{{file:<D>/g:1:2}}", off: 18, is: errPastEnd, msg: "end line is past the end of the file: line 2, but the file has 1 line"},
	{rule: "4: a later reference to a file read earlier", fx: fixture{files: map[string]string{"f": "f\n", "g": "g\n"}},
		in:  "{{file:<D>/f:1:1}}{{file:<D>/g:1:1}}{{file:<D>/f:2:2}}",
		ref: "{{file:<D>/f:2:2}}", off: 36, is: errPastEnd, msg: "end line is past the end of the file: line 2, but the file has 1 line"},
	{rule: "4: a second reference to a missing file is not the one named", in: "{{file:<D>/nope:1:1}}{{file:<D>/nope:1:1}}",
		ref: "{{file:<D>/nope:1:1}}", is: fs.ErrNotExist, msg: "open <D>/nope: no such file or directory"},
	{rule: "5: an escape does not hide a later bad reference", in: `\{{file:x:1:1}} {{file:x:1:1}}`,
		ref: "{{file:x:1:1}}", off: 16, is: errRelativePath, msg: `path is not absolute: "x"`},
	{rule: "5: a double backslash does not escape twice", in: `\\{{file:x:1:1}} \{{file:x:1:1}} {{file:x`,
		ref: "{{file:x", off: 33, is: errMalformed, msg: `malformed reference: missing "}}" before the end of the input`},
}

// subOffset converts an offset in a table's input to one in the input with
// dirMark replaced by dir.
func subOffset(in string, off int, dir string) int {
	return off + strings.Count(in[:off], dirMark)*(len(dir)-len(dirMark))
}

func TestExpandErrors(t *testing.T) {
	for _, tt := range expandErrorTests {
		t.Run(tt.rule, func(t *testing.T) {
			sub, dir := tt.fx.make(t)
			in := sub(tt.in)
			got, err := Expand([]byte(in))
			if got != nil {
				t.Errorf("Expand(%q) = %q, want nil output on error", in, got)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Expand(%q) error = %v (%T), want an *Error", in, err, err)
			}
			if ref := sub(tt.ref); e.Ref != ref {
				t.Errorf("Expand(%q) Ref = %q, want %q", in, e.Ref, ref)
			}
			if off := subOffset(tt.in, tt.off, dir); e.Offset != off {
				t.Errorf("Expand(%q) Offset = %d, want %d", in, e.Offset, off)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("Expand(%q) error = %v, want errors.Is %v", in, err, tt.is)
			}
			if msg := sub(tt.msg); e.Err.Error() != msg {
				t.Errorf("Expand(%q) reason\n got %q\nwant %q", in, e.Err.Error(), msg)
			}
			if want := "paste-ref: " + e.Ref + ": " + e.Err.Error(); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("Error() = %q, want one line", err.Error())
			}
			if cerr := Check([]byte(in)); !sameError(cerr, err) {
				t.Errorf("Check(%q) = %v, want what Expand returned: %v", in, cerr, err)
			}
			if !contains([]byte(in)) {
				t.Errorf("contains(%q) = false, want true when Expand fails", in)
			}
		})
	}
}

// sameError reports whether two errors from Expand or Check are the same
// failure.
func sameError(a, b error) bool {
	var ea, eb *Error
	if !errors.As(a, &ea) || !errors.As(b, &eb) {
		return a == nil && b == nil
	}
	return ea.Error() == eb.Error() && ea.Offset == eb.Offset && ea.Line == eb.Line
}

func TestContains(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"plain", false},
		{"{{file", false},
		{"{{ file:", false},
		{"{{file:", true},
		{"x {{file:/a:1:2}} y", true},
		{`\{{file:`, true},
		{"{{file:/a", true},
	}
	for _, tt := range tests {
		if got := contains([]byte(tt.in)); got != tt.want {
			t.Errorf("contains(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestExpandResultIsFresh(t *testing.T) {
	for _, in := range []string{"", "no references", `\{{file:x`} {
		src := []byte(in)
		got, err := Expand(src)
		if err != nil {
			t.Fatalf("Expand(%q): %v", in, err)
		}
		if got == nil {
			t.Errorf("Expand(%q) = nil, want non-nil", in)
		}
		if len(got) > 0 && &got[0] == &src[0] {
			t.Errorf("Expand(%q) shares memory with its input", in)
		}
	}
}

func TestErrorReport(t *testing.T) {
	e := &Error{Ref: "{{file:D:/proj/src/old.py:42:78}}", Offset: 3, Err: &fs.PathError{Op: "open", Path: "D:/proj/src/old.py", Err: fs.ErrNotExist}}
	got := e.Report("Edit aborted. Verify path before retrying — do NOT silently substitute empty content.")
	want := "[paste-ref] Expansion failed.\n" +
		"  Reference: {{file:D:/proj/src/old.py:42:78}}\n" +
		"  Error: open D:/proj/src/old.py: file does not exist\n" +
		"  Action: Edit aborted. Verify path before retrying — do NOT silently substitute empty content.\n"
	if got != want {
		t.Errorf("Report\n got %q\nwant %q", got, want)
	}
	if got, want := e.Report(""), strings.Join(strings.SplitAfter(want, "\n")[:3], ""); got != want {
		t.Errorf("Report(\"\")\n got %q\nwant %q", got, want)
	}
	if got, want := e.Error(), "paste-ref: {{file:D:/proj/src/old.py:42:78}}: open D:/proj/src/old.py: file does not exist"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(e, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", e)
	}
	if got, want := (&Error{Ref: "{{file:x}}"}).Error(), "paste-ref: {{file:x}}: unknown error"; got != want {
		t.Errorf("Error() without Err = %q, want %q", got, want)
	}
}

func TestErrorReportFromExpand(t *testing.T) {
	dir := t.TempDir()
	_, err := Expand([]byte("new_string = {{file:" + dir + "/old.py:42:78}}"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Expand error = %v, want an *Error", err)
	}
	want := "[paste-ref] Expansion failed.\n" +
		"  Reference: {{file:" + dir + "/old.py:42:78}}\n" +
		"  Error: open " + dir + "/old.py: no such file or directory\n" +
		"  Action: Edit aborted.\n"
	if got := e.Report("Edit aborted."); got != want {
		t.Errorf("Report\n got %q\nwant %q", got, want)
	}
}

// swapOpen replaces openFile for the test.
func swapOpen(t *testing.T, open func(string) (io.ReadCloser, error)) {
	t.Helper()
	saved := openFile
	openFile = open
	t.Cleanup(func() { openFile = saved })
}

// Rule 6: each distinct path is opened once per call.
func TestReadsEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	f, g := filepath.Join(dir, "f"), filepath.Join(dir, "g")
	writeFile(t, f, lines)
	writeFile(t, g, "g\n")
	opens := map[string]int{}
	swapOpen(t, func(path string) (io.ReadCloser, error) {
		opens[path]++
		return openRegular(path)
	})
	in := fmt.Sprintf("{{file:%[1]s:1:2}}{{file:%[2]s:1:1}}{{file:%[1]s:5:12}}{{file:%[1]s:1:2}}{{file:%[2]s:1:1}}", f, g)
	for _, fn := range []struct {
		name string
		run  func([]byte) error
	}{
		{"Expand", func(b []byte) error { _, err := Expand(b); return err }},
		{"Check", Check},
	} {
		clear(opens)
		if err := fn.run([]byte(in)); err != nil {
			t.Fatalf("%s: %v", fn.name, err)
		}
		if opens[f] != 1 || opens[g] != 1 || len(opens) != 2 {
			t.Errorf("%s opened %v, want each of %s and %s once", fn.name, opens, f, g)
		}
	}
}

// Rule 6: a file is read only as far as its references need; an error past
// that does not matter.
func TestReadsOnlyWhatIsNeeded(t *testing.T) {
	errDisk := errors.New("disk error")
	swapOpen(t, func(path string) (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(strings.NewReader("a\nb\n"), iotest.ErrReader(errDisk))), nil
	})
	got, err := Expand([]byte("{{file:/f:2:2}}{{file:/f:1:1}}"))
	if err != nil || string(got) != "b\na\n" {
		t.Errorf("Expand = %q, %v; want %q, nil", got, err, "b\na\n")
	}
	_, err = Expand([]byte("{{file:/f:1:1}}{{file:/f:2:3}}"))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, errDisk) || e.Offset != 0 {
		t.Errorf("Expand past what reads = %v, want the read error, for the first reference to the file", err)
	}
}

// Rule 4: an unreadable file aborts the expansion.
func TestPermissionDenied(t *testing.T) {
	t.Run("fake", func(t *testing.T) {
		swapOpen(t, func(path string) (io.ReadCloser, error) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
		})
		got, err := Expand([]byte("x{{file:/secret:1:1}}"))
		var e *Error
		if got != nil || !errors.As(err, &e) || !errors.Is(err, fs.ErrPermission) || e.Offset != 1 {
			t.Errorf("Expand = %q, %v; want nil and fs.ErrPermission at offset 1", got, err)
		}
	})
	t.Run("real", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "secret")
		writeFile(t, path, "s\n")
		if err := os.Chmod(path, 0); err != nil {
			t.Fatal(err)
		}
		if f, err := os.Open(path); err == nil {
			f.Close()
			t.Skip("mode 000 does not stop this user from reading (root?)")
		}
		got, err := Expand([]byte("{{file:" + path + ":1:1}}"))
		if got != nil || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Expand = %q, %v; want nil and fs.ErrPermission", got, err)
		}
	})
}

// swapLimit lowers the output cap for the test.
func swapLimit(t *testing.T, n int) {
	t.Helper()
	saved := maxOutput
	maxOutput = n
	t.Cleanup(func() { maxOutput = saved })
}

// Rule 4: the output cap.
func TestTooLarge(t *testing.T) {
	ten := map[string]string{"f": "123456789\n", "big": strings.Repeat("0123456789", 10)}
	tests := []struct {
		rule string
		in   string
		ref  string // "" for success
		off  int
		is   error
		over bool // the output may be over the cap: no reference
	}{
		{rule: "output at the cap", in: "{{file:<D>/f:1:1}}{{file:<D>/f:1:1}}"},
		{rule: "text and output at the cap", in: "0123456789{{file:<D>/f:1:1}}"},
		{rule: "one byte of text after the last reference takes it over", in: "{{file:<D>/f:1:1}}{{file:<D>/f:1:1}}x",
			ref: "{{file:<D>/f:1:1}}", off: 18, is: errTooLarge},
		{rule: "over by one range", in: "{{file:<D>/f:1:1}}{{file:<D>/f:1:1}}{{file:<D>/f:1:1}}",
			ref: "{{file:<D>/f:1:1}}", off: 36, is: errTooLarge},
		{rule: "text before the reference takes it over", in: "0123456789-{{file:<D>/f:1:1}}",
			ref: "{{file:<D>/f:1:1}}", off: 11, is: errTooLarge},
		{rule: "a single range over the cap", in: "{{file:<D>/big:1:1}}", ref: "{{file:<D>/big:1:1}}", is: errTooLarge},
		{rule: "no reference: text over the cap is not expanded", in: strings.Repeat("x", 30) + `\{{file:`, over: true},
		{rule: "a bad range before the cap is named, though keeping stopped",
			in:  "{{file:<D>/big:1:2}}{{file:<D>/big:1:1}}{{file:<D>/f:1:1}}",
			ref: "{{file:<D>/big:1:2}}", is: errPastEnd},
		{rule: "a missing file before the cap is named, though keeping stopped",
			in:  "{{file:<D>/nope:1:1}}{{file:<D>/big:1:1}}",
			ref: "{{file:<D>/nope:1:1}}", is: fs.ErrNotExist},
		{rule: "a malformed reference after the cap is not named",
			in:  "{{file:<D>/big:1:1}}{{file:",
			ref: "{{file:<D>/big:1:1}}", is: errTooLarge},
	}
	swapLimit(t, 20)
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			sub, dir := fixture{files: ten}.make(t)
			in := sub(tt.in)
			got, err := Expand([]byte(in))
			cerr := Check([]byte(in))
			if !sameError(err, cerr) {
				t.Errorf("Check(%q) = %v, want what Expand returned: %v", in, cerr, err)
			}
			if tt.ref == "" {
				if err != nil || len(got) > maxOutput && !tt.over {
					t.Errorf("Expand(%q) = %d bytes, %v; want at most %d bytes", in, len(got), err, maxOutput)
				}
				return
			}
			var e *Error
			if got != nil || !errors.As(err, &e) || !errors.Is(err, tt.is) {
				t.Fatalf("Expand(%q) = %q, %v; want nil and %v", in, got, err, tt.is)
			}
			if ref, off := sub(tt.ref), subOffset(tt.in, tt.off, dir); e.Ref != ref || e.Offset != off {
				t.Errorf("Expand(%q) failed at %q (offset %d), want %q (offset %d)", in, e.Ref, e.Offset, ref, off)
			}
			if errors.Is(err, errTooLarge) && e.Err.Error() != "expansion too large: the output would be over 20 bytes" {
				t.Errorf("reason = %q", e.Err.Error())
			}
		})
	}
}

// Rule 4 at the real cap: a range just over MaxOutput, from a sparse file.
func TestTooLargeAtMaxOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	path := filepath.Join(t.TempDir(), "huge.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxOutput + 1); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Expand([]byte("{{file:" + path + ":1:1}}"))
	if got != nil || !errors.Is(err, errTooLarge) {
		t.Errorf("Expand of %d bytes = %d bytes, %v; want nil, errTooLarge", MaxOutput+1, len(got), err)
	}
	if MaxOutput != 64<<20 {
		t.Errorf("MaxOutput = %d, want 64 MiB as documented", MaxOutput)
	}
}

// Rule 4, all or nothing: every good/bad combination of two references fails
// as a whole, naming the bad one.
func TestAllOrNothing(t *testing.T) {
	sub, _ := fixture{files: abcd, dirs: []string{"d"}}.make(t)
	good := sub("{{file:<D>/f:1:4}}")
	for _, bad := range []string{"{{file:<D>/nope:1:1}}", "{{file:<D>/f:5:5}}", "{{file:f:1:1}}", "{{file:<D>/f:0:1}}",
		"{{file:<D>/f:2:1}}", "{{file:<D>/d:1:1}}", "{{file:<D>/f:x:1}}", "{{file:<D>/f:1:1\n"} {
		bad = sub(bad)
		for _, in := range []string{good + bad, bad + good, good + "\n" + bad + good, bad + bad} {
			got, err := Expand([]byte(in))
			var e *Error
			if got != nil || !errors.As(err, &e) || !strings.HasPrefix(bad, e.Ref) || !strings.HasPrefix(in[e.Offset:], bad) {
				t.Errorf("Expand(%q) = %q, %v; want nil and an error for %q", in, got, err, bad)
			}
		}
	}
}

func TestLex(t *testing.T) {
	tests := []struct {
		in   string
		want []token
	}{
		{"", nil},
		{`\{{file:`, []token{{off: 0, end: 1, escape: true}}},
		{`a\\{{file:/x:1:2}}`, []token{{off: 2, end: 3, escape: true}}},
		{"{{file:/x:1:2}}", []token{{off: 0, end: 15, path: "/x", first: 1, last: 2}}},
		{"{{file:/x:1:2}}\\{{file:/y:3:4}}{{file:/a:b:07:9}}",
			[]token{{off: 0, end: 15, path: "/x", first: 1, last: 2}, {off: 15, end: 16, escape: true},
				{off: 31, end: 49, path: "/a:b", first: 7, last: 9}}},
	}
	for _, tt := range tests {
		got, err := lex([]byte(tt.in), false)
		if err != nil {
			t.Errorf("lex(%q): %v", tt.in, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("lex(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
	}
}

func TestScanLines(t *testing.T) {
	tests := []struct {
		content     string
		first, last int
		want        string
		lines       int // lines read
	}{
		{"", 1, 1, "", 0},
		{"a", 1, 1, "a", 1},
		{"a\n", 1, 1, "a\n", 1},
		{"a\nb\nc\n", 2, 2, "b\n", 2},
		{"a\nb\nc", 3, 3, "c", 3},
		{"a\nb\nc", 3, 4, "c", 3},
		{"a\nb\nc\n", 1, 9, "a\nb\nc\n", 3},
		{"\n\n\n", 2, 3, "\n\n", 3},
		{long + long, 2, 2, long, 2},
	}
	for _, tt := range tests {
		for _, r := range []io.Reader{strings.NewReader(tt.content), iotest.OneByteReader(strings.NewReader(tt.content))} {
			x := &expansion{build: true}
			tok, f := &token{first: tt.first, last: tt.last}, &fileState{}
			err := x.scan(f, bufio.NewReaderSize(&budgetReader{r: r, x: x}, readSize), []*token{tok})
			text := bytes.Join(tok.parts, nil)
			if err != nil || f.lines() != tt.lines || string(text) != tt.want || tok.size != len(tt.want) {
				t.Errorf("scan(%.20q, %d:%d) = %d lines, %q (%d bytes), %v; want %d lines, %q",
					tt.content, tt.first, tt.last, f.lines(), text, tok.size, err, tt.lines, tt.want)
			}
		}
	}
}

func TestShorten(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct{ in, want string }{
		{"", ""},
		{x(200), x(200)},
		{x(201), x(200) + "..."},
		{x(199) + "é", x(199) + "..."}, // é would be split: cut before it
		{x(198) + "é" + "x", x(198) + "é" + "..."},                                                 // é ends at 200
		{x(197) + "😀" + "x", x(197) + "..."},                                                       // a 4-byte rune split after 3 bytes
		{x(196) + "😀" + "x", x(196) + "😀" + "..."},                                                 // a 4-byte rune that fits
		{x(10) + strings.Repeat("\x9e", 300), (x(10) + strings.Repeat("\x9e", 300))[:200] + "..."}, // invalid UTF-8
	}
	for _, tt := range tests {
		if got := shorten(tt.in); got != tt.want {
			t.Errorf("shorten(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// The arena copies a chunk once for every reference that shares it, and
// a reference's range stays one part while its chunks are adjacent.
func TestArena(t *testing.T) {
	var a arena
	x, y := &token{}, &token{}
	for i := range 3 {
		p := a.store([]byte{'a' + byte(i)})
		x.keep(p)
		if i > 0 {
			y.keep(p)
		}
	}
	if len(x.parts) != 1 || string(x.parts[0]) != "abc" || len(y.parts) != 1 || string(y.parts[0]) != "bc" {
		t.Errorf("parts %q and %q, want one part each: \"abc\" and \"bc\"", x.parts, y.parts)
	}
	if &x.parts[0][1] != &y.parts[0][0] {
		t.Error("the references share no copy")
	}
	big := bytes.Repeat([]byte("z"), minBlock)
	x.keep(a.store(big)) // Does not fit the first block: a new one.
	if len(x.parts) != 2 || !bytes.Equal(x.parts[1], big) || len(a.block) != minBlock {
		t.Errorf("after a chunk that does not fit: %d parts, block of %d bytes; want 2 and %d", len(x.parts), len(a.block), minBlock)
	}
}

func BenchmarkExpand(b *testing.B) {
	dir := b.TempDir()
	var src bytes.Buffer
	for i := range 10 {
		path := filepath.Join(dir, fmt.Sprintf("src%d.go", i))
		var content bytes.Buffer
		for l := 1; l <= 400; l++ {
			fmt.Fprintf(&content, "\tx%d := compute(%d) // line %d of file %d\n", l, l, l, i)
		}
		writeFile(b, path, content.String())
		for src.Len() < (i+1)*10<<10-100 {
			src.WriteString("// hand-written code between the references, a line of filler\n")
		}
		fmt.Fprintf(&src, "{{file:%s:%d:%d}}\n", path, 100+i, 130+i)
	}
	in := src.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Expand(in); err != nil {
			b.Fatal(err)
		}
	}
}
