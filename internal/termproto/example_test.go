package termproto_test

import (
	"fmt"
	"time"

	"github.com/pbwrap/pbwrap/internal/termproto"
)

// printer prints the events it receives.
type printer struct{}

func (printer) Typed(p []byte)     { fmt.Printf("typed %q\n", p) }
func (printer) PasteStart()        { fmt.Println("paste start") }
func (printer) PasteData(p []byte) { fmt.Printf("paste data %q\n", p) }
func (printer) PasteEnd()          { fmt.Println("paste end") }
func (printer) StrayEnd()          { fmt.Println("stray end marker") }

// A caller writes each read with its time, and calls Flush when the returned
// deadline passes with no input.
func ExampleParser() {
	p := termproto.NewParser(printer{})
	t0 := time.Now()
	p.Write([]byte("ls\r\x1b[20"), t0) // the start marker is cut by the read
	p.Write([]byte("0~big\rpaste\x1b[201~"), t0.Add(time.Millisecond))
	deadline := p.Write([]byte("\x1b"), t0.Add(time.Second)) // the Esc key
	p.Flush(deadline)
	// Output:
	// typed "ls\r"
	// paste start
	// paste data "big\rpaste"
	// paste end
	// typed "\x1b"
}

// The owner of the terminal passes the child's output through the filter,
// then asks what undoes the modes the child left on, and what sets them
// again. The child's bracketed paste mode never reaches the terminal, and
// the clipboard read goes nowhere.
func ExampleOutputFilter() {
	var f termproto.OutputFilter
	out := f.Write([]byte("\x1b[?1049;2004h\x1b[>1u\x1b]52;c;?\x07\x1b[?25l"))
	fmt.Printf("%q %v\n", out, f.Enabled())
	fmt.Printf("%q\n", f.AppendReset(nil))
	fmt.Printf("%q\n", f.AppendRestore(nil))
	// Output:
	// "\x1b[?1049h\x1b[>1u\x1b[?25l" true
	// "\x1b[<1u\x1b[?1049l\x1b[?25h"
	// "\x1b[?1049h\x1b[>1u\x1b[?25l"
}
