package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initLine is one package's line of GODEBUG=inittrace=1: its name and
// the bytes its initialisation allocated.
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.* clock, (\d+) bytes, (\d+) allocs$`)

// Every pbwrap process, the session process that each run starts as well,
// initialises every package of the binary before main: what pbwrap's own
// packages build then (help texts, tables) is paid twice at each start
// (doc/performance.md, "Startup"). Building hook's and setup's help there
// once cost 200 KB in 2,400 allocations, a quarter of a start's page
// faults. The figure counted is allocations, not time: the same on a busy
// machine.
func TestPackageInitIsSmall(t *testing.T) {
	const limit = 32 << 10
	cmd := exec.Command(pbwrapBin, "__pbwrap-session")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput() // It exits 2: no command to start.
	total, seen := 0, 0
	for _, m := range initLine.FindAllStringSubmatch(string(out), -1) {
		name := m[1]
		if name != "main" && !strings.HasPrefix(name, "github.com/pbwrap/pbwrap/") {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", m[0], err)
		}
		total += n
		seen++
		t.Logf("%s: %d bytes, %s allocations", name, n, m[3])
	}
	if seen == 0 {
		t.Fatalf("no init line of pbwrap's packages in GODEBUG=inittrace=1's output:\n%s", out)
	}
	if total > limit {
		t.Errorf("pbwrap's packages allocate %d bytes at init, over %d: build what is only sometimes needed when it is asked for", total, limit)
	}
}
