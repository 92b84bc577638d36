package fileref

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzDir makes the files the fuzz inputs may name: f (4 lines), g (1 line),
// e (empty), crlf, d (a directory), under the directory that "<D>" stands for
// in the tables.
func fuzzDir(f *testing.F) string {
	dir := f.TempDir()
	for name, content := range map[string]string{"f": "a\nb\nc\nd\n", "g": "g", "e": "", "crlf": "1\r\n2\r\n"} {
		writeFile(f, filepath.Join(dir, name), content)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		f.Fatal(err)
	}
	return dir
}

// FuzzExpandNeverPanics: on any input, Expand does not panic, returns nil
// exactly when it fails, fails with an *Error that points at a reference in
// the input, agrees with Check, and leaves input without "{{file:" as it is.
func FuzzExpandNeverPanics(f *testing.F) {
	for _, tt := range expandTests {
		f.Add(tt.in)
	}
	for _, tt := range expandErrorTests {
		f.Add(tt.in)
	}
	f.Add("{{file:<D>/f:1:4}}{{file:<D>/crlf:2:2}}{{file:<D>/g:1:1}}\\{{file:<D>/e:1:1}}")
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, in string) {
		src := []byte(strings.ReplaceAll(in, dirMark, dir))
		out, err := Expand(src)
		if cerr := Check(src); !sameError(cerr, err) {
			t.Fatalf("Check(%q) = %v, Expand = %v; want the same", src, cerr, err)
		}
		if err != nil {
			checkError(t, src, out, err)
			return
		}
		if out == nil {
			t.Fatalf("Expand(%q) = nil, nil; want non-nil output on success", src)
		}
		if !contains(src) && !bytes.Equal(out, src) {
			t.Fatalf("Expand(%q) = %q; want the input, which has no reference", src, out)
		}
	})
}

// FuzzExpandAll: ExpandAll and CheckAll fail exactly when Expand does,
// with the errors of Expand's kind, in input order, the first being
// Expand's; on success ExpandAll returns what Expand does.
func FuzzExpandAll(f *testing.F) {
	for _, tt := range expandTests {
		f.Add(tt.in)
	}
	for _, tt := range expandErrorTests {
		f.Add(tt.in)
	}
	f.Add("{{file:<D>/nope:1:2}}\n{{file:/x:0:1}}{{file:<D>/f:9:9}}\n{{file:<D>/nope:3:4}}{{file:x")
	f.Add("{{file:<D>/f:1:4}}\n{{file:<D>/d:1:1}}\r{{file:<D>/g:2:2}}\n\\{{file:<D>/e:1:1}}{{file:<D>/e:1:1}}")
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, in string) {
		src := []byte(strings.ReplaceAll(in, dirMark, dir))
		want, werr := Expand(src)
		out, errs := ExpandAll(src)
		cerrs := CheckAll(src)
		if (werr == nil) != (len(errs) == 0) || len(errs) != len(cerrs) {
			t.Fatalf("ExpandAll(%q): %d errors, CheckAll %d; Expand: %v", src, len(errs), len(cerrs), werr)
		}
		if werr == nil {
			if !bytes.Equal(out, want) || out == nil {
				t.Fatalf("ExpandAll(%q) = %q, want Expand's %q", src, out, want)
			}
			return
		}
		if !sameError(errs[0], werr) {
			t.Fatalf("ExpandAll(%q): first error %v, Expand's %v", src, errs[0], werr)
		}
		for i, e := range errs {
			checkError(t, src, out, e)
			if !sameError(e, cerrs[i]) {
				t.Fatalf("ExpandAll(%q) error %d: %v, CheckAll's %v", src, i, e, cerrs[i])
			}
			if i > 0 && e.Offset <= errs[i-1].Offset && !errors.Is(e, errTooLarge) {
				t.Fatalf("ExpandAll(%q): error %d at offset %d after one at %d; want input order", src, i, e.Offset, errs[i-1].Offset)
			}
		}
	})
}

// checkError checks what Expand returned on failure.
func checkError(t *testing.T, src, out []byte, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Expand(%q) error %v is a %T, want *Error", src, err, err)
	}
	if out != nil {
		t.Fatalf("Expand(%q) = %q with error %v; want nil output", src, out, err)
	}
	if e.Offset < 0 || e.Offset >= len(src) || !bytes.HasPrefix(src[e.Offset:], []byte(marker)) {
		t.Fatalf("Expand(%q) error offset %d is not at a %q", src, e.Offset, marker)
	}
	ref := strings.TrimSuffix(e.Ref, "...")
	if !strings.HasPrefix(ref, marker) || !bytes.HasPrefix(src[e.Offset:], []byte(ref)) {
		t.Fatalf("Expand(%q) error Ref %q is not the input at offset %d", src, e.Ref, e.Offset)
	}
	if want := 1 + bytes.Count(src[:e.Offset], []byte("\n")); e.Line != want {
		t.Fatalf("Expand(%q) error at offset %d says line %d, want %d", src, e.Offset, e.Line, want)
	}
	if len(e.Ref) > maxRef+len("...") {
		t.Fatalf("Expand(%q) error Ref has %d bytes, want at most %d", src, len(e.Ref), maxRef+3)
	}
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Fatalf("Expand(%q) error %q is not one line", src, err)
	}
}

// FuzzWholeFile: a reference to all the lines of a file expands to exactly
// the file, and one to any range to exactly those lines, with the text around
// it kept.
func FuzzWholeFile(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\n"), "before ", " after", uint16(1), uint16(2))
	f.Add([]byte("a\nb"), "", "", uint16(0), uint16(0))
	f.Add([]byte("1\r\n2\r\n"), "x\n", "\ny", uint16(1), uint16(0))
	f.Add([]byte("\n\n\n"), "}}", "{{", uint16(2), uint16(5))
	f.Add([]byte("{{file:/x:1:1}}\n\\{{file:\n"), "\\", "}}", uint16(0), uint16(1))
	f.Add([]byte("no newline"), "{", "}", uint16(0), uint16(0))
	f.Add([]byte("\x00\xff\r"), "", "", uint16(9), uint16(9))
	path := filepath.Join(f.TempDir(), "content")
	f.Fuzz(func(t *testing.T, content []byte, before, after string, i, j uint16) {
		if strings.Contains(before, marker) || strings.Contains(after, marker) || strings.HasSuffix(before, `\`) {
			t.Skip("text that is itself a reference or an escape")
		}
		lines := bytes.SplitAfter(content, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		n := len(lines)
		if n == 0 {
			t.Skip("an empty file has no range")
		}
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		whole := before + "{{file:" + path + ":1:" + itoa(n) + "}}" + after
		got, err := Expand([]byte(whole))
		if want := before + string(content) + after; err != nil || string(got) != want {
			t.Fatalf("Expand(%q) of %q\n got %q, %v\nwant %q", whole, content, got, err, want)
		}
		first := 1 + int(i)%n
		last := first + int(j)%(n-first+1)
		part := before + "{{file:" + path + ":" + itoa(first) + ":" + itoa(last) + "}}" + after
		got, err = Expand([]byte(part))
		if want := before + string(bytes.Join(lines[first-1:last], nil)) + after; err != nil || string(got) != want {
			t.Fatalf("Expand(%q) of %q\n got %q, %v\nwant %q", part, content, got, err, want)
		}
		past := "{{file:" + path + ":" + itoa(first) + ":" + itoa(n+1) + "}}"
		if _, err := Expand([]byte(past)); !errors.Is(err, errPastEnd) {
			t.Fatalf("Expand(%q) of %d lines = %v, want errPastEnd", past, n, err)
		}
	})
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// badRefs are the ways a reference fails, each with the error it gives.
var badRefs = []struct {
	ref string
	is  error
}{
	{"{{file:<D>/nope:1:1}}", os.ErrNotExist},
	{"{{file:<D>/f:5:5}}", errPastEnd},
	{"{{file:<D>/e:1:1}}", errPastEnd},
	{"{{file:<D>/d:1:1}}", errNotRegular},
	{"{{file:f:1:1}}", errRelativePath},
	{"{{file:~/f:1:1}}", errRelativePath},
	{"{{file:<D>/f:0:1}}", errStartLine},
	{"{{file:<D>/f:3:2}}", errEndBeforeStart},
	{"{{file:<D>/f:1:x}}", errMalformed},
	{"{{file::1:1}}", errMalformed},
	{"{{file:<D>/f:1}}", errMalformed},
	{"{{file:<D>/f:1:1\n", errMalformed},
}

// goodRefs expand.
var goodRefs = []string{"{{file:<D>/f:1:4}}", "{{file:<D>/g:1:1}}", "{{file:<D>/crlf:1:2}}", "{{file:<D>/f:2:2}}"}

// FuzzAllOrNothing: whatever text surrounds them and in whichever order, a
// good and a bad reference together always fail, with nil output; when the
// text has no reference of its own, the error is the bad reference's.
func FuzzAllOrNothing(f *testing.F) {
	f.Add("", "", "", false, uint8(0), uint8(0))
	f.Add("text\n", " and ", "\nmore", true, uint8(3), uint8(1))
	f.Add("{{", "}}", "{{file", false, uint8(11), uint8(2))
	f.Add("{{file:", "", "", true, uint8(8), uint8(3))
	for k := range badRefs {
		f.Add("a\\", "b\\", "c", k%2 == 0, uint8(k), uint8(k))
	}
	dir := fuzzDir(f)
	f.Fuzz(func(t *testing.T, t1, t2, t3 string, badFirst bool, bad, good uint8) {
		// A backslash right before a reference would make it literal text.
		t1, t2 = strings.TrimRight(t1, `\`), strings.TrimRight(t2, `\`)
		b := badRefs[int(bad)%len(badRefs)]
		badRef := strings.ReplaceAll(b.ref, dirMark, dir)
		goodRef := strings.ReplaceAll(goodRefs[int(good)%len(goodRefs)], dirMark, dir)
		first, second := goodRef, badRef
		if badFirst {
			first, second = badRef, goodRef
		}
		in := t1 + first + t2 + second + t3
		out, err := Expand([]byte(in))
		if err == nil {
			t.Fatalf("Expand(%q) = %q, nil; want an error", in, out)
		}
		checkError(t, []byte(in), out, err)
		if cerr := Check([]byte(in)); !sameError(cerr, err) {
			t.Fatalf("Check(%q) = %v, Expand = %v; want the same", in, cerr, err)
		}
		if strings.Contains(t1+t2+t3, marker) {
			return
		}
		off := len(t1)
		if !badFirst {
			off += len(goodRef) + len(t2)
		}
		var e *Error
		if errors.As(err, &e); e.Offset != off || !errors.Is(err, b.is) {
			t.Fatalf("Expand(%q) = %v at offset %d; want %v at offset %d", in, err, e.Offset, b.is, off)
		}
	})
}

// FuzzLimits: the limits only ever turn a success into errTooLarge or
// errReadLimit, never change an output, and Check agrees with Expand under
// them; an output within the cap, from files within the read budget,
// expands as without limits.
func FuzzLimits(f *testing.F) {
	f.Add([]byte("a\nb\nc\nd\n"), []byte{1, 2, 3, 4, 2, 2}, "x", uint16(8), uint16(100))
	f.Add([]byte("aaaaaaaaaa"), []byte{1, 1, 1, 2}, "", uint16(3), uint16(5))
	f.Add([]byte("\n\n\n\n"), []byte{4, 4, 1, 9}, "}}", uint16(0), uint16(1))
	path := filepath.Join(f.TempDir(), "content")
	f.Fuzz(func(t *testing.T, content, ranges []byte, text string, capOut, capRead uint16) {
		if strings.Contains(text, marker) || strings.HasSuffix(text, `\`) {
			t.Skip("text that is itself a reference or an escape")
		}
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		var in strings.Builder
		for i := 0; i+1 < len(ranges) && i < 16; i += 2 {
			first, last := 1+int(ranges[i]%16), 1+int(ranges[i+1]%16)
			in.WriteString(text + "{{file:" + path + ":" + itoa(first) + ":" + itoa(max(first, last)) + "}}")
		}
		src := []byte(in.String())
		want, werr := Expand(src)
		saveOut, saveRead := maxOutput, maxRead
		defer func() { maxOutput, maxRead = saveOut, saveRead }()
		maxOutput, maxRead = int(capOut), int(capRead)
		got, err := Expand(src)
		if cerr := Check(src); !sameError(cerr, err) {
			t.Fatalf("Check(%q) = %v, Expand = %v; want the same (limits %d, %d)", src, cerr, err, capOut, capRead)
		}
		switch {
		case err == nil && (werr != nil || !bytes.Equal(got, want)):
			t.Fatalf("Expand(%q) with limits %d, %d = %q; without = %q, %v", src, capOut, capRead, got, want, werr)
		case err != nil && !errors.Is(err, errTooLarge) && !errors.Is(err, errReadLimit) && !sameError(err, werr):
			t.Fatalf("Expand(%q) with limits %d, %d = %v; without = %v", src, capOut, capRead, err, werr)
		case err != nil && werr == nil && len(want) <= int(capOut) && len(content) < int(capRead):
			t.Fatalf("Expand(%q) with limits %d, %d = %v; want %q as without them", src, capOut, capRead, err, want)
		}
		if err != nil {
			checkError(t, src, got, err)
		} else if cap(got) != len(got) {
			t.Fatalf("Expand(%q): %d bytes in %d: the size judged, which the cap applies to, is wrong", src, len(got), cap(got))
		}
	})
}

// FuzzPatch: ExpandPatch gives what expanding each reference alone and
// adding its lines gives, as it did before it read each file once.
func FuzzPatch(f *testing.F) {
	f.Add([]byte("a\nb\nc"), "+x\n+<R1:3>\n+y\n", uint8(1))
	f.Add([]byte("a\r\nb\r\n"), "+<R2:2>\r\n<R1:1>\n+<R1:2>", uint8(0))
	f.Add([]byte("\n\n"), "+<R1:1>\n \\{{file:\n+<R2:5>\n", uint8(3))
	path := filepath.Join(f.TempDir(), "content")
	f.Fuzz(func(t *testing.T, content []byte, patch string, _ uint8) {
		if strings.Contains(patch, marker) {
			t.Skip("references come from <R...>")
		}
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		src := []byte(strings.NewReplacer("<R", "{{file:"+path+":", ">", "}}").Replace(patch))
		got, err := ExpandPatch(src)
		want, werr := patchOneByOne(src)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) || err != nil && !sameError(err, werr) {
			t.Fatalf("ExpandPatch(%q) = %q, %v; one by one %q, %v", src, got, err, want, werr)
		}
		if cap(got) != len(got) {
			t.Fatalf("ExpandPatch(%q): %d bytes in %d: the size judged, which the cap applies to, is wrong", src, len(got), cap(got))
		}
	})
}

// patchOneByOne is ExpandPatch as it was: Expand on each piece.
func patchOneByOne(patch []byte) ([]byte, error) {
	toks, errs := lex(patch, false)
	var stop *Error
	if len(errs) > 0 {
		stop = errs[0]
		stop.Line = 1 + bytes.Count(patch[:stop.Offset], []byte("\n"))
	}
	var out []byte
	prev := 0
	for i := range toks {
		t := &toks[i]
		if t.escape {
			continue
		}
		start, end, ok := wholeAddedLine(patch, t)
		if !ok {
			return nil, &Error{Ref: shorten(string(patch[t.off:t.end])), Offset: t.off, Line: 1 + bytes.Count(patch[:t.off], []byte("\n")), Err: errPatchPlacement}
		}
		text, err := Expand(patch[prev:start])
		if err != nil {
			return nil, movedBy(err, patch, prev)
		}
		out = append(out, text...)
		lines, err := Expand(patch[t.off:t.end])
		if err != nil {
			return nil, movedBy(err, patch, t.off)
		}
		out = appendAdded(out, [][]byte{lines})
		prev = end
	}
	if stop != nil {
		return nil, stop
	}
	text, err := Expand(patch[prev:])
	if err != nil {
		return nil, movedBy(err, patch, prev)
	}
	return append(out, text...), nil
}

func movedBy(err error, patch []byte, off int) error {
	var e *Error
	if errors.As(err, &e) {
		moved := *e
		moved.Offset += off
		moved.Line = 1 + bytes.Count(patch[:moved.Offset], []byte("\n"))
		return &moved
	}
	return err
}
