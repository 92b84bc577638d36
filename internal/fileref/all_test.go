package fileref

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestExpandAll: every bad reference is reported, with its line, in input
// order, whatever made it bad; the good ones between them do not hide
// them, and nothing is expanded.
func TestExpandAll(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	writeFile(t, f, "a\nb\nc\n")
	nope := filepath.Join(dir, "nope")
	src := "{{file:" + f + ":1:1}}\n" + // line 1: good
		"{{file:" + nope + ":1:2}}\n" + // line 2: missing
		"text {{file:rel:1:2}} and {{file:" + f + ":2:9}}\n" + // line 3: relative, past the end
		"{{file:" + f + ":x:1}}\r{{file:" + nope + ":3:3}}\n" + // line 4: malformed, missing again (a CR ends no line)
		"\\{{file:not a reference\n" + // line 5: escaped
		"{{file:" + f + ":3:3}}{{file:" + f + // line 6: good, then no "}}"
		"\n"
	type want struct {
		line int
		is   error
		ref  string
	}
	wants := []want{
		{2, fs.ErrNotExist, "{{file:" + nope + ":1:2}}"},
		{3, errRelativePath, "{{file:rel:1:2}}"},
		{3, errPastEnd, "{{file:" + f + ":2:9}}"},
		{4, errMalformed, "{{file:" + f + ":x:1}}"},
		{4, fs.ErrNotExist, "{{file:" + nope + ":3:3}}"},
		{6, errMalformed, "{{file:" + f},
	}
	out, errs := ExpandAll([]byte(src))
	checks := CheckAll([]byte(src))
	if out != nil || len(errs) != len(wants) || len(checks) != len(wants) {
		t.Fatalf("ExpandAll: %q and %d errors (%v), CheckAll %d; want nil and %d", out, len(errs), errs, len(checks), len(wants))
	}
	for i, w := range wants {
		e := errs[i]
		if e.Line != w.line || !errors.Is(e, w.is) || e.Ref != w.ref || !strings.HasPrefix(src[e.Offset:], w.ref) {
			t.Errorf("error %d: line %d, %v, at %d; want line %d, %q: %v", i, e.Line, e, e.Offset, w.line, w.ref, w.is)
		}
		if !sameError(e, checks[i]) {
			t.Errorf("error %d: ExpandAll %v, CheckAll %v", i, e, checks[i])
		}
	}
	var first *Error
	if _, err := Expand([]byte(src)); !errors.As(err, &first) || !sameError(first, errs[0]) {
		t.Errorf("Expand: %v; want the first of ExpandAll's, %v", err, errs[0])
	}

	good := "x {{file:" + f + ":2:3}}y\\{{file:"
	out, errs = ExpandAll([]byte(good))
	if string(out) != "x b\nc\ny{{file:" || errs != nil {
		t.Errorf("ExpandAll(%q) = %q, %v; want it expanded", good, out, errs)
	}
}

// TestExpandAllLimits: a limit of the whole call ends the list, since
// every later reference would fail with it.
func TestExpandAllLimits(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	writeFile(t, f, strings.Repeat("line\n", 100))
	ref := func(first, last int) string {
		return "{{file:" + f + ":" + itoa(first) + ":" + itoa(last) + "}}\n"
	}
	swapRead(t, 50)
	errs := CheckAll([]byte("{{file:/nope/x:1:1}}\n" + ref(1, 2) + ref(90, 90) + ref(1, 1) + "{{file:/nope/y:1:1}}\n"))
	if len(errs) != 2 || errs[0].Line != 1 || !errors.Is(errs[1], errReadLimit) || errs[1].Line != 3 {
		t.Errorf("CheckAll: %v; want the missing file on line 1, then the read limit on line 3, and no more", errs)
	}
	swapRefs(t, 2)
	errs = CheckAll([]byte("{{file:/a:1:1}} {{file:/b:1:1}}\n{{file:bad}}\n{{file:/c:1:1}}"))
	if len(errs) != 1 || !errors.Is(errs[0], errTooMany) || errs[0].Line != 3 {
		t.Errorf("CheckAll with 3 references over a limit of 2: %v; want errTooMany alone, on line 3", errs)
	}
}
