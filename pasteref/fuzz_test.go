package pasteref

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
		if !Contains(src) && !bytes.Equal(out, src) {
			t.Fatalf("Expand(%q) = %q; want the input, which has no reference", src, out)
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
		if _, err := Expand([]byte(past)); !errors.Is(err, ErrPastEnd) {
			t.Fatalf("Expand(%q) of %d lines = %v, want ErrPastEnd", past, n, err)
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
	{"{{file:<D>/f:5:5}}", ErrPastEnd},
	{"{{file:<D>/e:1:1}}", ErrPastEnd},
	{"{{file:<D>/d:1:1}}", ErrNotRegular},
	{"{{file:f:1:1}}", ErrRelativePath},
	{"{{file:~/f:1:1}}", ErrRelativePath},
	{"{{file:<D>/f:0:1}}", ErrStartLine},
	{"{{file:<D>/f:3:2}}", ErrEndBeforeStart},
	{"{{file:<D>/f:1:x}}", ErrMalformed},
	{"{{file::1:1}}", ErrMalformed},
	{"{{file:<D>/f:1}}", ErrMalformed},
	{"{{file:<D>/f:1:1\n", ErrMalformed},
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
