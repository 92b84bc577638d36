package fileref_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pbwrap/pbwrap/internal/fileref"
)

func ExampleExpandAll() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	old := filepath.Join(dir, "old.py")
	_ = os.WriteFile(old, []byte("import json\n\ndef parse_config(path):\n    return json.load(open(path))\n"), 0o600)

	out, errs := fileref.ExpandAll([]byte("# moved from old.py\n{{file:" + old + ":3:4}}# end\n"))
	fmt.Printf("%s%v\n", out, errs)
	// Output:
	// # moved from old.py
	// def parse_config(path):
	//     return json.load(open(path))
	// # end
	// []
}

func ExampleError_Report() {
	out, errs := fileref.ExpandAll([]byte("new_string = {{file:/nonexistent/src/old.py:42:78}}"))
	for _, e := range errs {
		fmt.Print(e.Report("Edit aborted. Verify path before retrying — do NOT silently substitute empty content."))
		fmt.Println(out == nil, e.Offset, errors.Is(e, os.ErrNotExist))
	}
	// Output:
	// [paste-ref] Expansion failed.
	//   Reference: {{file:/nonexistent/src/old.py:42:78}}
	//   Error: open /nonexistent/src/old.py: no such file or directory
	//   Action: Edit aborted. Verify path before retrying — do NOT silently substitute empty content.
	// true 13 true
}

func ExampleExpandAll_escape() {
	out, errs := fileref.ExpandAll([]byte(`write \{{file:/abs/path:1:2}} to refer to lines 1-2`))
	fmt.Printf("%s %d\n", out, len(errs))
	// Output:
	// write {{file:/abs/path:1:2}} to refer to lines 1-2 0
}
