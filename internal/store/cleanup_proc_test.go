package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests below re-run the test binary as other processes: cleaners, a
// lock holder, a cleaner that dies. TestMain sends such a child to its
// part, chosen by childEnv, before any test runs.
const (
	childEnv     = "PBWRAP_STORE_TEST_CHILD" // "clean", "hold-lock" or "lock-and-die"
	childRootEnv = "PBWRAP_STORE_TEST_ROOT"
	childNowEnv  = "PBWRAP_STORE_TEST_NOW" // RFC 3339 with nanoseconds
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role, os.Getenv(childRootEnv)))
	}
	os.Exit(m.Run())
}

// childReport is what a cleaning child prints.
type childReport struct {
	Removed []string
	Live    []string
	Skipped []string
	Bytes   int64
	Busy    bool
	Err     string
}

func runChild(role, root string) int {
	switch role {
	case "clean":
		return cleanChild(root)
	case "hold-lock":
		// Hold the lock until stdin is closed.
		l, err := lockCleanup(root, time.Now())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := l.release(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "lock-and-die":
		// Exit holding the lock: the flock goes with the process, the file
		// stays.
		if _, err := lockCleanup(root, time.Now()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown child role %q\n", role)
	return 2
}

// cleanChild waits for stdin to be closed, so that all cleaners start
// together, cleans root with the TTL and clock of the parent, and prints
// its report as JSON.
func cleanChild(root string) int {
	now, err := time.Parse(time.RFC3339Nano, os.Getenv(childNowEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	c := &Cleaner{Root: root, TTL: DefaultTTL, Now: func() time.Time { return now }}
	rep, err := c.Clean()
	var out childReport
	switch {
	case errors.Is(err, ErrCleanupBusy):
		out.Busy = true
		if rep != nil {
			out.Err = "a report with ErrCleanupBusy"
		}
	case err != nil:
		out.Err = err.Error()
	default:
		out.Removed, out.Live, out.Skipped, out.Bytes = summaryIDs(rep.Removed), summaryIDs(rep.Live), rep.Skipped, rep.Bytes
	}
	if err := json.NewEncoder(os.Stdout).Encode(&out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func childCmd(t *testing.T, role, root string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + role, childRootEnv + "=" + root}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

// Eight processes clean the same root at once. Together they remove
// exactly the expired sessions that are not live, each once; the live
// ones stay however old, and so does whatever is not pbwrap's. None fails:
// those that find the lock taken say so and do nothing.
func TestCleanConcurrentProcesses(t *testing.T) {
	const cleaners = 8
	f := newFixture(t)
	var expired []string
	var wantBytes int64
	for i := range 12 {
		s := f.ended(old+time.Duration(i)*time.Hour, fmt.Sprintf("paste %d\n", i), strings.Repeat("x", 1000*i))
		expired = append(expired, s.ID)
		wantBytes += regularBytes(t, s.Dir)
	}
	var liveOld []string
	kept := map[string]bool{}
	for range 3 {
		s := f.live(old+24*time.Hour, "live paste\n")
		liveOld = append(liveOld, s.ID)
		kept[s.ID] = true
	}
	kept[f.live(0, "live and fresh\n").ID] = true
	for range 3 {
		kept[f.ended(fresh, "fresh\n").ID] = true
	}
	foreign := f.ended(old, "with notes\n")
	if err := os.WriteFile(filepath.Join(foreign.Dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.age(foreign.Dir, old)
	kept[foreign.ID] = true
	if err := os.Mkdir(filepath.Join(f.root.Path, "not-a-session"), 0o700); err != nil {
		t.Fatal(err)
	}
	kept["not-a-session"] = true
	keptBefore := snapshot(t, f.root.Path)
	for p := range keptBefore {
		if !kept[strings.Split(p, "/")[0]] {
			delete(keptBefore, p)
		}
	}

	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	var starts []io.Closer
	for range cleaners {
		cmd := childCmd(t, "clean", f.root.Path, childNowEnv+"="+f.now.Format(time.RFC3339Nano))
		out := new(bytes.Buffer)
		cmd.Stdout = out
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs, starts = append(cmds, cmd), append(outs, out), append(starts, in)
	}
	for _, in := range starts {
		in.Close() // Go.
	}

	var removed []string
	var bytesFreed int64
	ran := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("cleaner %d: %v", i, err)
		}
		var rep childReport
		if err := json.Unmarshal(outs[i].Bytes(), &rep); err != nil {
			t.Fatalf("cleaner %d printed %q: %v", i, outs[i], err)
		}
		if rep.Err != "" {
			t.Errorf("cleaner %d: %s", i, rep.Err)
		}
		if rep.Busy {
			continue
		}
		ran++
		removed = append(removed, rep.Removed...)
		bytesFreed += rep.Bytes
		if slices.Sort(rep.Live); !slices.Equal(rep.Live, slices.Sorted(slices.Values(liveOld))) {
			t.Errorf("cleaner %d: Live = %v, want the old live sessions %v", i, rep.Live, liveOld)
		}
		if len(rep.Skipped) != 2 {
			t.Errorf("cleaner %d: Skipped = %q, want the session with notes and not-a-session", i, rep.Skipped)
		}
	}
	t.Logf("%d of %d cleaners ran, the others found the lock taken", ran, cleaners)
	slices.Sort(removed)
	slices.Sort(expired)
	if ran == 0 || !slices.Equal(removed, expired) {
		t.Errorf("removed\n%v\nwant each expired session that is not live once\n%v", removed, expired)
	}
	if bytesFreed != wantBytes {
		t.Errorf("freed %d bytes, want %d", bytesFreed, wantBytes)
	}
	after := snapshot(t, f.root.Path)
	delete(after, RemovalsName) // The record of the removals.
	checkSame(t, keptBefore, after)
	for _, id := range liveOld {
		if live, err := IsLive(filepath.Join(f.root.Path, id)); !live || err != nil {
			t.Errorf("session %s is no longer live: %v, %v", id, live, err)
		}
	}
}

// A lock held by another process that is alive and not stuck: Clean
// returns ErrCleanupBusy and changes nothing.
func TestCleanBusyOtherProcess(t *testing.T) {
	f := newFixture(t)
	f.ended(old, "x\n")
	holder := childCmd(t, "hold-lock", f.root.Path)
	in, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer in.Close()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("lock holder said %q, %v", line, err)
	}
	before := snapshot(t, f.root.Path)
	rep, err := f.cleaner().Clean()
	if !errors.Is(err, ErrCleanupBusy) || rep != nil {
		t.Errorf("Clean while another process holds the lock = %+v, %v; want ErrCleanupBusy", rep, err)
	}
	checkSame(t, before, snapshot(t, f.root.Path))

	in.Close()
	if err := holder.Wait(); err != nil {
		t.Fatalf("lock holder: %v", err)
	}
	if rep := f.clean(f.cleaner()); len(rep.Removed) != 1 {
		t.Errorf("Clean after the holder let go removed %v, want the expired session", summaryIDs(rep.Removed))
	}
}

// A cleaner that died holding the lock leaves the file, which the next
// cleaner takes over at once.
func TestCleanAfterCleanerDied(t *testing.T) {
	f := newFixture(t)
	s := f.ended(old, "x\n")
	path := filepath.Join(f.root.Path, CleanupLockName)
	if err := childCmd(t, "lock-and-die", f.root.Path).Run(); err != nil {
		t.Fatal(err)
	}
	if !exists(path) {
		t.Fatalf("the dead cleaner left no lock file: the test is wrong")
	}
	rep := f.clean(f.cleaner())
	if len(rep.Removed) != 1 || exists(s.Dir) {
		t.Errorf("Clean after a cleaner died removed %v, want %s", summaryIDs(rep.Removed), s.ID)
	}
	if exists(path) {
		t.Errorf("%s left behind", path)
	}
}
