package bracketed_test

import (
	"fmt"

	"github.com/pbwrap/pbwrap/bracketed"
)

// The owner of the terminal passes the child's output through the tracker,
// then asks what undoes the modes the child left on, and what sets them
// again. The clipboard read goes nowhere.
func ExampleModeTracker() {
	var t bracketed.ModeTracker
	out := t.Write([]byte("\x1b[?1049h\x1b[>1u\x1b]52;c;?\x07\x1b[?25l"))
	fmt.Printf("%q\n", out)
	fmt.Printf("%q\n", t.AppendReset(nil))
	fmt.Printf("%q\n", t.AppendRestore(nil))
	// Output:
	// "\x1b[?1049h\x1b[>1u\x1b[?25l"
	// "\x1b[<1u\x1b[?1049l\x1b[?25h"
	// "\x1b[?1049h\x1b[>1u\x1b[?25l"
}
