package fileref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// swapRead and swapRefs lower the read budget and the reference limit for
// the test.
func swapRead(t *testing.T, n int) {
	t.Helper()
	saved := maxRead
	maxRead = n
	t.Cleanup(func() { maxRead = saved })
}

func swapRefs(t *testing.T, n int) {
	t.Helper()
	saved := maxRefs
	maxRefs = n
	t.Cleanup(func() { maxRefs = saved })
}

// reads counts what the calls of a test open and read, through observe,
// in every entry point. A file read past abort fails with errAbort, so
// that a regression that reads gigabytes fails at once instead of slowly.
type reads struct {
	mu    sync.Mutex
	opens map[string]int
	bytes map[string]int
	abort int
}

var errAbort = errors.New("test: read past the bound")

func countReads(t *testing.T, abort int) *reads {
	t.Helper()
	r := &reads{opens: map[string]int{}, bytes: map[string]int{}, abort: abort}
	saved := observe
	observe = func(path string, rc io.ReadCloser) io.ReadCloser {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.opens[path]++
		return &countedFile{ReadCloser: rc, r: r, path: path}
	}
	t.Cleanup(func() { observe = saved })
	return r
}

func (r *reads) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, b := range r.bytes {
		n += b
	}
	return n
}

func (r *reads) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.opens)
	clear(r.bytes)
}

type countedFile struct {
	io.ReadCloser
	r    *reads
	path string
}

func (f *countedFile) Read(p []byte) (int, error) {
	n, err := f.ReadCloser.Read(p)
	f.r.mu.Lock()
	defer f.r.mu.Unlock()
	f.r.bytes[f.path] += n
	if f.r.abort > 0 && f.r.bytes[f.path] > f.r.abort {
		return n, errAbort
	}
	return n, err
}

// sparseFile makes a file of size bytes that uses no disk: all NUL bytes,
// so one line without newline.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("a truncated file is not sparse on Windows")
	}
	path := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 10, point 5: a range past the output cap in a 4 GiB file read all
// 4 GiB before failing (17 s), and a 20 GB sparse file took 15 s and
// 295 MB through the hook. A range over the cap now stops reading at the
// cap, and a range past the end of a huge file stops at MaxRead, reporting
// the lines it saw; memory stays within the cap.
func TestSparseFailsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("reads up to MaxRead")
	}
	path := sparseFile(t, 4<<30)
	r := countReads(t, 2*MaxRead)
	tests := []struct {
		in      string
		is      error
		msg     string
		maxRead int
	}{
		{"{{file:" + path + ":1:1}}", errTooLarge, "expansion too large: the output would be over 64 MiB", MaxOutput + readSize},
		{"{{file:" + path + ":2:2}}", errReadLimit, "end line is beyond what an expansion reads: line 2, " +
			"but reading stopped after 256 MiB of files, where this file has at least 1 line", MaxRead},
		{"{{file:" + path + ":1:1}}{{file:" + path + ":2:2}}", errTooLarge, "", MaxOutput + readSize},
	}
	for _, tt := range tests {
		for _, fn := range []struct {
			name string
			run  func([]byte) error
		}{
			{"Expand", func(b []byte) error { _, err := Expand(b); return err }},
			{"Check", Check},
		} {
			r.reset()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			err := fn.run([]byte(tt.in))
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tt.is) || tt.msg != "" && e.Err.Error() != tt.msg {
				t.Errorf("%s(%q) = %v, want %v: %q", fn.name, tt.in, err, tt.is, tt.msg)
			}
			if n := r.total(); n > tt.maxRead {
				t.Errorf("%s(%q) read %d bytes, want at most %d", fn.name, tt.in, n, tt.maxRead)
			}
			// Memory: what was kept, never past the cap, and no copies of it
			// as it grew.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > MaxOutput+MaxOutput/8 {
				t.Errorf("%s(%q) allocated %d bytes, want at most the cap and an eighth", fn.name, tt.in, alloc)
			}
		}
	}
}

// The same through the hooks: a 20 GB sparse file, a range over the cap
// and one past its end, denied after reading at most MaxRead.
func TestSparseFailsFastInHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("reads up to MaxRead")
	}
	path := sparseFile(t, 20<<30)
	dir := filepath.Dir(path)
	r := countReads(t, 2*MaxRead)
	for _, want := range []struct{ lines, msg string }{
		{"1:1", "expansion too large"},
		{"2:2", "at least 1 line"},
		{"5:9", "at least 1 line"},
	} {
		r.reset()
		ref := "{{file:" + path + ":" + want.lines + "}}"
		out, err := writeHook(claudeWrite(dir, ref), nil)
		if err != nil || !denied(out, want.msg) {
			t.Errorf("writeHook(%s) = %s, %v; want it denied saying %q", ref, out, err, want.msg)
		}
		out, err = patchHook(codexAdd(dir, "+"+ref+"\n"), nil)
		if err != nil || !denied(out, want.msg) {
			t.Errorf("patchHook(%s) = %s, %v; want it denied saying %q", ref, out, err, want.msg)
		}
		if n := r.total(); n > 2*MaxRead {
			t.Errorf("the hooks read %d bytes for %s, want at most %d each", n, ref, MaxRead)
		}
	}
}

// claudeWrite is a Write call in cwd writing content, in Claude Code's shape.
func claudeWrite(cwd, content string) []byte {
	in, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Write",
		"tool_input": map[string]any{"file_path": "/proj/x", "content": content},
	})
	return in
}

// codexAdd is an apply_patch call in cwd adding a file with lines, in Codex's shape.
func codexAdd(cwd, lines string) []byte {
	in, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "apply_patch",
		"tool_input": map[string]any{"command": "*** Begin Patch\n*** Add File: /proj/x\n" + lines + "*** End Patch\n"},
	})
	return in
}

// denied reports whether a hook's answer denies the call saying why.
func denied(out []byte, why string) bool {
	return bytes.Contains(out, []byte(`"permissionDecision":"deny"`)) && bytes.Contains(out, []byte(why))
}

// lineFile writes n numbered lines of 10 bytes each.
func lineFile(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %04d\n", i%10000)
	}
	path := filepath.Join(t.TempDir(), "lines")
	writeFile(t, path, b.String())
	return path
}

// Reading stops as soon as the ranges are over the cap, and the cap counts
// text and ranges of every reference; Check stops where Expand does.
func TestCapStopsReading(t *testing.T) {
	const limit = 100 << 10
	swapLimit(t, limit)
	path := lineFile(t, 100_000) // 1 MB, ten times the cap
	r := countReads(t, 0)
	text := strings.Repeat("t", limit/2)
	tests := []struct {
		rule string
		in   string
		off  int // of the reference named
	}{
		{"a range over the cap", "{{file:<P>:1:20000}}", 0},
		{"text and a range", text + "{{file:<P>:1:6000}}", len(text)},
		{"two ranges of one file together", "{{file:<P>:1:6000}}{{file:<P>:3000:9000}}", 19},
		{"the text after the last reference", "{{file:<P>:1:6000}}" + text, 0},
		{"a range not reached is not judged", "{{file:<P>:99999:99999}}{{file:<P>:1:20000}}", 24},
	}
	for _, tt := range tests {
		in := strings.ReplaceAll(tt.in, "<P>", path)
		off := tt.off + strings.Count(tt.in[:tt.off], "<P>")*(len(path)-3)
		for _, check := range []bool{false, true} {
			r.reset()
			var err error
			if check {
				err = Check([]byte(in))
			} else {
				_, err = Expand([]byte(in))
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, errTooLarge) || e.Offset != off {
				t.Errorf("%s (check %v): %v, want errTooLarge at offset %d", tt.rule, check, err, off)
			}
			if n := r.total(); n > limit+2*readSize {
				t.Errorf("%s (check %v): read %d bytes, want at most the cap and two buffers, %d", tt.rule, check, n, limit+2*readSize)
			}
		}
	}
}

// MaxRead: what is beyond it fails, saying how far reading got, and
// costs no more than it.
func TestReadLimit(t *testing.T) {
	const limit = 200 << 10
	swapRead(t, limit)
	path := lineFile(t, 100_000) // 1 MB of 10-byte lines
	other := lineFile(t, 10)
	r := countReads(t, 0)
	tests := []struct {
		rule string
		in   string
		msg  string // "" for success
	}{
		{"a range within the budget", "{{file:<P>:20000:20010}}", ""},
		{"a range past it", "{{file:<P>:50000:50000}}",
			"end line is beyond what an expansion reads: line 50000, but reading stopped after 204800 bytes of files, " +
				"where this file has at least 20480 lines"},
		{"a range past the end of a file larger than it", "{{file:<P>:100001:100001}}", "at least 20480 lines"},
		{"a file the budget did not reach", "{{file:<P>:50000:50000}}{{file:<O>:1:1}}", "at least 20480 lines"},
		{"a file after the budget is spent", "{{file:<P>:20480:20480}}{{file:<P>:50000:50000}}", "line 50000"},
		{"a file not opened, named first in the input", "{{file:<P>:1:1}}{{file:<P>:20480:20480}}{{file:<O>:1:1}}{{file:<P>:20481:20481}}",
			"line 1, but reading stopped after 204800 bytes of files, before this file"},
	}
	for _, tt := range tests {
		in := strings.NewReplacer("<P>", path, "<O>", other).Replace(tt.in)
		r.reset()
		_, err := Expand([]byte(in))
		switch {
		case tt.msg == "" && err != nil:
			t.Errorf("%s: %v", tt.rule, err)
		case tt.msg != "" && (!errors.Is(err, errReadLimit) || !strings.Contains(err.Error(), tt.msg)):
			t.Errorf("%s: %v, want errReadLimit saying %q", tt.rule, err, tt.msg)
		}
		if n := r.total(); n > limit {
			t.Errorf("%s: read %d bytes, want at most %d", tt.rule, n, limit)
		}
	}
}

// errReadLimit for a file reading never reached.
func TestReadLimitBeforeFile(t *testing.T) {
	swapRead(t, 1000)
	big, small := lineFile(t, 1000), lineFile(t, 10)
	// The first reference's range is within the budget only if the file
	// ends there: it does not, so it is not reached, and named first.
	in := fmt.Sprintf("{{file:%s:1:1}}{{file:%s:500:500}}", small, big)
	_, err := Expand([]byte(in))
	if !errors.Is(err, errReadLimit) || !strings.Contains(err.Error(), "where this file has at least") {
		t.Errorf("Expand = %v, want errReadLimit for %s", err, big)
	}
	in = fmt.Sprintf("{{file:%s:500:500}}{{file:%s:1:1}}", big, small)
	_, err = Expand([]byte(in))
	var e *Error
	if !errors.As(err, &e) || e.Offset != 0 {
		t.Errorf("Expand = %v, want the first reference named", err)
	}
	swapRead(t, 10_000)
	in = fmt.Sprintf("{{file:%s:1000:1000}}{{file:%s:1:1}}{{file:%s:2:2}}", big, lineFile(t, 1), small)
	_, err = Expand([]byte(in))
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "before this file") {
		t.Errorf("Expand = %v, want errReadLimit before the file", err)
	}
}

// MaxRefs is applied before any file is opened.
func TestTooManyReferences(t *testing.T) {
	swapRefs(t, 3)
	path := lineFile(t, 5)
	r := countReads(t, 0)
	ref := "{{file:" + path + ":1:1}}"
	in := `\{{file:` + strings.Repeat(ref, 4)
	_, err := Expand([]byte(in))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, errTooMany) || e.Offset != 8+3*len(ref) {
		t.Fatalf("Expand(4 references) = %v, want errTooMany at the fourth", err)
	}
	if e.Err.Error() != "too many references: more than 3 in one input" {
		t.Errorf("reason = %q", e.Err.Error())
	}
	if len(r.opens) != 0 {
		t.Errorf("opened %v, want nothing", r.opens)
	}
	if _, err := Expand([]byte(strings.Repeat(ref, 3))); err != nil {
		t.Errorf("Expand(3 references) = %v, want success", err)
	}
	out, err := writeHook(claudeWrite(filepath.Dir(path), strings.Repeat(ref, 4)), nil)
	if err != nil || !denied(out, "too many references") {
		t.Errorf("writeHook(4 references) = %s, %v; want it denied", out, err)
	}
}

// Issue 10, point 5: the Codex hook read a file again for every reference
// (100 references to a 129 MB file: 21 s). Every entry point now opens and
// reads each file once per input, across all of a call's fields.
func TestEveryEntryPointReadsOnce(t *testing.T) {
	path := lineFile(t, 50_000)
	dir := filepath.Dir(path)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var refs, added strings.Builder
	for i := range 100 {
		fmt.Fprintf(&refs, "{{file:%s:%d:%d}}", path, 49_900+i, 49_900+i)
		fmt.Fprintf(&added, "+{{file:%s:%d:%d}}\n", path, 49_900+i, 49_900+i)
	}
	edits := make([]map[string]any, 100)
	for i := range edits {
		edits[i] = map[string]any{"old_string": fmt.Sprint(i), "new_string": fmt.Sprintf("{{file:%s:%d:%d}}", path, i+1, i+1)}
	}
	multi, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": dir, "tool_name": "MultiEdit",
		"tool_input": map[string]any{"file_path": "/proj/x", "edits": edits}})
	r := countReads(t, 0)
	for _, tt := range []struct {
		name string
		run  func() ([]byte, error)
	}{
		{"Expand", func() ([]byte, error) { return Expand([]byte(refs.String())) }},
		{"Check", func() ([]byte, error) { return nil, Check([]byte(refs.String())) }},
		{"ExpandPatch", func() ([]byte, error) { return ExpandPatch([]byte(added.String())) }},
		{"writeHook Write", func() ([]byte, error) { return writeHook(claudeWrite(dir, refs.String()), nil) }},
		{"writeHook MultiEdit", func() ([]byte, error) { return writeHook(multi, nil) }},
		{"patchHook", func() ([]byte, error) { return patchHook(codexAdd(dir, added.String()), nil) }},
	} {
		r.reset()
		out, err := tt.run()
		if err != nil || bytes.Contains(out, []byte("deny")) {
			t.Errorf("%s: %.200s, %v", tt.name, out, err)
		}
		if r.opens[path] != 1 || r.bytes[path] > int(fi.Size()) {
			t.Errorf("%s opened %s %d times and read %d bytes, want once and at most its %d bytes",
				tt.name, path, r.opens[path], r.bytes[path], fi.Size())
		}
	}
}

// A hook's input over MaxHookInput is denied, not parsed.
func TestHookInputLimit(t *testing.T) {
	in := claudeWrite("/proj", strings.Repeat("x", MaxHookInput))
	for _, hook := range []func([]byte, []string) ([]byte, error){writeHook, patchHook} {
		out, err := hook(in, nil)
		if err != nil || !denied(out, "hook input too large: over 16 MiB") {
			t.Errorf("hook(%d bytes) = %.300s, %v; want it denied", len(in), out, err)
		}
		if !json.Valid(out) || bytes.Contains(out, []byte("Reference:")) {
			t.Errorf("answer %s: want JSON, and no reference named", out)
		}
	}
}

// In a hook the cap counts the text as the answer carries it, escaped for
// JSON: a range of NUL bytes (a sparse file) is six times its size there.
func TestHookCapCountsEscapes(t *testing.T) {
	swapLimit(t, 600)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "nul"), strings.Repeat("\x00", 200))
	writeFile(t, filepath.Join(dir, "text"), strings.Repeat("y", 200))
	ref := func(name string) string { return "{{file:" + filepath.Join(dir, name) + ":1:1}}" }
	if _, err := Expand([]byte(ref("nul"))); err != nil {
		t.Fatalf("Expand: %v, want success: 200 bytes are under the cap", err)
	}
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{ref("text") + ref("text"), true},
		{ref("nul"), false},
		{ref("text") + ref("nul"), false},
	} {
		out, err := writeHook(claudeWrite(dir, tt.in), nil)
		if err != nil || tt.ok == denied(out, "escaped for JSON") {
			t.Errorf("writeHook(%s) = %.300s, %v; want expanded %v", tt.in, out, err, tt.ok)
		}
	}
}

// appendString writes what encoding/json writes without HTML escaping.
func TestAppendString(t *testing.T) {
	var all []byte
	for c := range 0x80 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain", string(all), "<&>", "é ü 😀", "\u2028\u2029 x\u2028", "\u2027\u202a", "\x00\x1f\x7f"} {
		checkAppendString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\x00\"\\\n\u2028é")
	f.Fuzz(func(t *testing.T, s string) {
		if utf8Valid(s) {
			checkAppendString(t, s)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	want := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if got := appendString(nil, []byte(s)); !bytes.Equal(got, want) {
		t.Errorf("appendString(%q) = %s, want %s", s, got, want)
	}
	if n := stringSize([]byte(s)); n != len(want)-2 {
		t.Errorf("stringSize(%q) = %d, want %d", s, n, len(want)-2)
	}
}
