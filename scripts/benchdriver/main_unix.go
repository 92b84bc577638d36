//go:build darwin || freebsd || linux

// Command benchdriver measures pbwrap against the physical limit and the
// classic wrapper: the same child run directly on a PTY, under pbwrap, and
// under script(1) (util-linux's "script -q -c CMD /dev/null" on Linux, the
// BSD "script -q /dev/null CMD..." on macOS and FreeBSD), side by side in
// one run, interleaved so that noise on a shared machine hits all three
// alike. scripts/bench builds and runs it; the figures are ratios to
// direct.
//
// The run is made of rounds (-rounds, 7 by default), each measuring
// keystroke latency (at each of the -key-interval rates: keys 1 ms and
// 20 ms apart by default), output throughput and startup for every
// variant in turn. The targets are computed per round, pbwrap against script(1) in
// the same round, and reported as the median over the rounds: keystroke
// overhead (latency over direct) at p50 and p99, throughput, and startup
// (from the spawn to the child's first output).
//
// Then come the pastes (-paste-mb): the time from the first byte of a
// bracketed paste to the child having what it gets (the paste itself
// directly and under script(1), its reference under pbwrap), and the
// wrapper's CPU time and peak RSS while it held the paste. Both are the
// wrapper's own, read from /proc/PID (stat, and VmHWM in status) just
// before it is stopped, where there is a /proc; elsewhere they come from
// its exit's rusage, which takes in the processes it waited for.
//
// It plays the terminal itself: it holds the master side of a PTY and runs
// each variant on the slave side. The child is this same binary in a child
// mode (echo, flood).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/pbwrap/pbwrap/internal/ptyio"
	"github.com/pbwrap/pbwrap/internal/termproto"
)

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "child-") {
		os.Exit(childMain(os.Args[1], os.Args[2:]))
	}
	pbwrap := flag.String("pbwrap", "pbwrap", "the pbwrap binary to measure")
	keys := flag.Int("keys", 500, "keystrokes per variant and round for the latency figures")
	floodMB := flag.Int("flood-mb", 32, "megabytes of output per throughput run")
	runs := flag.Int("runs", 3, "throughput runs per variant and round")
	rounds := flag.Int("rounds", 7, "rounds: latency, throughput and startup of every variant, interleaved")
	starts := flag.Int("starts", 10, "startups timed per variant and round")
	other := flag.String("compare", "", "other pbwrap binaries to measure beside the first, comma-separated (pbwrap2, pbwrap3, ...): designs side by side in one run")
	noBurst := flag.Bool("burst-off", false, "also measure pbwrap with --burst off beside it (pbwrap-noburst)")
	unmarked := flag.Bool("unmarked", false, "also measure pbwrap in a terminal that says it does not mark pastes (pbwrap-unmarked): the burst detector's cost")
	silent := flag.Bool("silent", false, "also measure pbwrap (and the -compare builds) in a terminal that answers nothing (pbwrap-silent), as mosh, GNU screen and the Linux console do")
	fronts := flag.Bool("frontends", false, "instead, measure key latency through real GNU screen and mosh, with and without pbwrap, and what screen alone delivers of a large paste")
	intervals := flag.String("key-interval", "1ms,20ms", "times between two keystrokes to the same variant, comma-separated: each is a latency figure of its own")
	pasteMB := flag.String("paste-mb", "1,64", "sizes in MB of the pastes to time, comma-separated (empty: none)")
	pasteRuns := flag.Int("paste-runs", 3, "runs per variant of each paste size")
	flag.Parse()
	sizes, err := parseSizes(*pasteMB)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchdriver: -paste-mb:", err)
		os.Exit(2)
	}
	every, err := parseIntervals(*intervals)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchdriver: -key-interval:", err)
		os.Exit(2)
	}
	if *rounds < 1 || *keys < 1 || *runs < 1 || *starts < 1 {
		fmt.Fprintln(os.Stderr, "benchdriver: -rounds, -keys, -runs and -starts must be at least 1")
		os.Exit(2)
	}
	m := measures{keys: *keys, every: every, floodMB: *floodMB, runs: *runs, starts: *starts, rounds: *rounds}
	if *fronts {
		if err := runFrontEnds(*pbwrap, *other, m); err != nil {
			fmt.Fprintln(os.Stderr, "benchdriver:", err)
			os.Exit(1)
		}
		return
	}
	vs := variants(*pbwrap, *other, *noBurst, *unmarked)
	if *silent {
		vs = append(vs, silentVariants(*pbwrap, *other)...)
	}
	if err := run(vs, m, sizes, *pasteRuns); err != nil {
		fmt.Fprintln(os.Stderr, "benchdriver:", err)
		os.Exit(1)
	}
}

// A variant is one way of running the child, and what its terminal
// answers when asked whether it marks pastes (termproto.Question): as
// xterm does, unless the variant plays a terminal that does not.
type variant struct {
	name   string
	argv   func(child []string) []string
	answer string
}

// Answers to termproto.Question: xterm's (it marks pastes), and that of a
// terminal that does not know mode 2004.
const (
	xtermAnswer   = "\x1b[?2004;1$y\x1b[?12;2$y\x1b[?64;1;2;6;9;15;18;21;22c"
	noMarksAnswer = "\x1b[?2004;0$y\x1b[?62;22c"
	question      = "\x1b[?2004$p\x1b[?12$p\x1b[c"
)

// start starts the variant running child on a PTY of its own.
func (v variant) start(child []string, env ...string) (*running, error) {
	r, err := start(v.argv(child), env...)
	if err == nil {
		r.answer = v.answer
	}
	return r, err
}

func variants(pbwrap, other string, noBurst, unmarked bool) []variant {
	vs := []variant{
		{"direct", func(child []string) []string { return child }, xtermAnswer},
		{"pbwrap", func(child []string) []string { return append([]string{pbwrap, "--"}, child...) }, xtermAnswer},
		{"script", func(child []string) []string { return scriptArgv(runtime.GOOS, child) }, xtermAnswer},
	}
	for i, o := range strings.Split(other, ",") {
		if o == "" {
			continue
		}
		vs = append(vs, variant{fmt.Sprintf("pbwrap%d", i+2), func(child []string) []string { return append([]string{o, "--"}, child...) }, xtermAnswer})
	}
	if noBurst {
		vs = append(vs, variant{noBurstName, func(child []string) []string { return append([]string{pbwrap, "--burst", "off", "--"}, child...) }, xtermAnswer})
	}
	if unmarked {
		vs = append(vs, variant{unmarkedName, func(child []string) []string { return append([]string{pbwrap, "--"}, child...) }, noMarksAnswer})
	}
	return vs
}

// unmarkedName is the variant of pbwrap in a terminal that does not mark
// pastes, where pbwrap looks for large unmarked ones.
const unmarkedName = "pbwrap-unmarked"

// scriptArgv is the command line that runs child under the script(1) of
// the system goos, with no typescript kept: util-linux's takes the
// command as one shell string (-c), the BSDs' (macOS, FreeBSD) as the
// arguments after the file.
func scriptArgv(goos string, child []string) []string {
	if goos == "darwin" || goos == "freebsd" {
		return append([]string{"script", "-q", "/dev/null"}, child...)
	}
	quoted := make([]string, len(child))
	for i, a := range child {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return []string{"script", "-q", "-c", strings.Join(quoted, " "), "/dev/null"}
}

// measures says how much of each thing a run measures.
type measures struct {
	keys, floodMB, runs, starts, rounds int
	every                               []time.Duration // the key intervals
}

// A round is one round's figures, per variant; the latencies per key
// interval first (measures.every).
type round struct {
	lat      [][][]time.Duration
	thr, cpu [][]float64
	start    [][]time.Duration
}

func run(vs []variant, m measures, pasteMB []int, pasteRuns int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("pbwrap against the same child run directly and under script(1); ratios to direct\n")
	fmt.Printf("%d rounds; per round and variant: %d keystrokes at each of %v apart, %d × %d MB of output, %d startups\n\n", m.rounds, m.keys, m.every, m.runs, m.floodMB, m.starts)
	var rs []round
	for i := range m.rounds {
		var r round
		for _, every := range m.every {
			lat, err := measureLatency(self, vs, m.keys, every)
			if err != nil {
				return err
			}
			r.lat = append(r.lat, lat)
		}
		var err error
		if r.thr, r.cpu, err = measureThroughput(self, vs, m.floodMB, m.runs); err != nil {
			return err
		}
		if r.start, err = measureStartup(self, vs, m.starts); err != nil {
			return err
		}
		rs = append(rs, r)
		fmt.Fprintf(os.Stderr, "round %d of %d done\n", i+1, m.rounds)
	}
	report(vs, pool(rs, len(vs), len(m.every)), m)
	reportTargets(vs, rs, m.every)
	for _, mb := range pasteMB {
		res, err := measurePaste(self, vs, mb, pasteRuns)
		if err != nil {
			return err
		}
		reportPaste(vs, res, mb)
	}
	return nil
}

// parseIntervals parses a comma-separated list of durations.
func parseIntervals(s string) ([]time.Duration, error) {
	var every []time.Duration
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a time between keys", f)
		}
		every = append(every, d)
	}
	if len(every) == 0 {
		return nil, errors.New("no time between keys")
	}
	return every, nil
}

func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a size in MB", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// pasteResult is one variant's timing of a paste: from the last byte of
// the paste written by the terminal to the child having what it gets (the
// whole paste directly and under script(1), the reference under pbwrap),
// and the wrapper's peak RSS (the child's own, for direct).
type pasteResult struct {
	after []time.Duration
	total []time.Duration
	rssKB []int
	cpu   []time.Duration
}

// measurePaste pastes mb megabytes of text, bracketed, into each variant
// in turn.
func measurePaste(self string, vs []variant, mb, runs int) ([]pasteResult, error) {
	res := make([]pasteResult, len(vs))
	line := []byte(strings.Repeat("x", 79) + "\r")
	body := bytes.Repeat(line, (mb<<20)/len(line))
	paste := append(append([]byte(termproto.StartMarker), body...), termproto.EndMarker...)
	root, err := os.MkdirTemp("", "pbwrap-bench-root")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	for range runs {
		for _, i := range order.Perm(len(vs)) {
			v := vs[i]
			r, err := v.start([]string{self, "child-paste"}, "PBWRAP_ROOT="+root)
			if err != nil {
				return nil, err
			}
			if err := r.waitFor([]byte("READY"), 10*time.Second); err != nil {
				r.stop()
				return nil, fmt.Errorf("%s: %w", v.name, err)
			}
			done := make(chan error, 1)
			go func() { done <- r.waitFor([]byte("DONE"), 120*time.Second) }() // Ends at DONE or its timeout.
			t0 := time.Now()
			for p := paste; len(p) > 0; {
				n, err := r.master.Write(p[:min(len(p), 64<<10)])
				if err != nil {
					r.stop()
					return nil, fmt.Errorf("%s: paste: %w", v.name, err)
				}
				p = p[n:]
			}
			t1 := time.Now()
			if err := <-done; err != nil {
				r.stop()
				return nil, fmt.Errorf("%s: %w", v.name, err)
			}
			t2 := time.Now()
			rss := peakRSS(r.cmd.Process.Pid)
			cpu, cpuOK := ownCPU(r.cmd.Process.Pid)
			r.stop()
			if rss == 0 { // No /proc: the peak at exit.
				rss = exitPeakRSS(runtime.GOOS, r.cmd.ProcessState)
			}
			if !cpuOK { // No /proc: at exit, with the processes it waited for.
				cpu = r.cmd.ProcessState.UserTime() + r.cmd.ProcessState.SystemTime()
			}
			res[i].after = append(res[i].after, t2.Sub(t1))
			res[i].total = append(res[i].total, t2.Sub(t0))
			res[i].rssKB = append(res[i].rssKB, rss)
			res[i].cpu = append(res[i].cpu, cpu)
		}
	}
	return res, nil
}

// peakRSS is a running process's peak resident set size in KiB, from
// /proc (Linux), or 0 where there is none.
func peakRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}

// ownCPU is the CPU time a running process has used so far, its own
// only (not its children's), from /proc (Linux); ok is false where there
// is none.
func ownCPU(pid int) (cpu time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command's name, which is in parentheses and
	// may hold anything: utime and stime are the 12th and 13th, in ticks.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * time.Second / clockTicks, true
}

// clockTicks is the unit of /proc's times: USER_HZ, 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// exitPeakRSS is the peak resident set size in KiB that the ended process
// st reported at its exit (ru_maxrss: its own peak, or that of a process
// it waited for if larger), on the system goos; 0 if unknown.
func exitPeakRSS(goos string, st *os.ProcessState) int {
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return ptyio.MaxRSSKiB(goos, int64(ru.Maxrss))
}

func reportPaste(vs []variant, res []pasteResult, mb int) {
	med := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	row := func(name string, val func(i int) float64, format func(float64) string) {
		fmt.Printf("%-28s", name)
		base := val(0)
		for i := range vs {
			cell := format(val(i))
			if i > 0 && base > 0 {
				cell += fmt.Sprintf(" (%.2fx)", val(i)/base)
			}
			fmt.Printf("%22s", cell)
		}
		fmt.Println()
	}
	ms := func(x float64) string { return fmt.Sprintf("%.1fms", x) }
	row(fmt.Sprintf("%d MB paste: end→child", mb), func(i int) float64 { return float64(med(res[i].after).Microseconds()) / 1000 }, ms)
	row(fmt.Sprintf("%d MB paste: start→child", mb), func(i int) float64 { return float64(med(res[i].total).Microseconds()) / 1000 }, ms)
	row(fmt.Sprintf("%d MB paste: wrapper CPU", mb), func(i int) float64 { return float64(med(res[i].cpu).Microseconds()) / 1000 }, ms)
	row(fmt.Sprintf("%d MB paste: peak RSS", mb), func(i int) float64 { return float64(slices.Max(res[i].rssKB)) }, func(x float64) string { return fmt.Sprintf("%.0fKiB", x) })
}

// A running is one variant's process on its own PTY.
type running struct {
	cmd    *exec.Cmd
	master *os.File
	slave  *os.File
	answer string // to write, once, when the question is seen: then ""
}

func start(argv []string, env ...string) (*running, error) {
	master, slave, err := ptyio.OpenPTY()
	if err != nil {
		return nil, err
	}
	if err := ptyio.SetSize(master, &unix.Winsize{Row: 24, Col: 80}); err != nil {
		master.Close()
		slave.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PBWRAP_SESSION=")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "PBWRAP_SESSION=") })
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	return &running{cmd: cmd, master: master, slave: slave}, nil
}

// wait waits for the process to exit by itself, then closes the PTY.
func (r *running) wait(timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }() // Ends when the process does.
	defer r.master.Close()
	defer r.slave.Close()
	select {
	case err := <-done:
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			return err
		}
		return nil
	case <-time.After(timeout):
		_ = r.cmd.Process.Kill()
		<-done
		return errors.New("did not exit")
	}
}

func (r *running) stop() {
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(done) }() // Ends when the process does.
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = r.cmd.Process.Kill()
		<-done
	}
	r.master.Close()
	r.slave.Close()
}

// waitFor reads from the master until want has been seen.
func (r *running) waitFor(want []byte, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, want) {
		_ = r.master.SetReadDeadline(deadline)
		n, err := r.master.Read(buf)
		seen = append(seen, buf[:n]...)
		if r.answer != "" && bytes.Contains(seen, []byte(question)) {
			_, _ = r.master.WriteString(r.answer) // As a terminal answers: at once, in its input.
			r.answer = ""
		}
		if err != nil {
			return fmt.Errorf("waiting for %q: %w (saw %q)", want, err, tailOf(seen))
		}
	}
	return nil
}

func tailOf(b []byte) []byte {
	if len(b) > 200 {
		return b[len(b)-200:]
	}
	return b
}

// noBurstName is the variant of pbwrap with its burst detector off.
const noBurstName = "pbwrap-noburst"

// order is the order in which the variants take their turns: shuffled
// anew each time, so that none always comes first, and none always
// follows the same other one (a variant's latency depends on what ran
// just before it: with the order only rotated, two copies of one binary
// differed by 0.05x script's overhead, always the same one ahead). The
// seed is fixed, so that two runs take the same orders.
var order = rand.New(rand.NewPCG(1, 2))

// measureLatency types one key at a time into each variant in turn (see
// order), a round every keyInterval (20 ms is a fast person's typing, 1 ms
// a program's), and times its echo: the keystroke round trip through the
// wrapper and back.
func measureLatency(self string, vs []variant, keys int, keyInterval time.Duration) ([][]time.Duration, error) {
	procs := make([]*running, len(vs))
	for i, v := range vs {
		r, err := v.start([]string{self, "child-echo"})
		if err != nil {
			return nil, err
		}
		defer r.stop()
		if err := r.waitFor([]byte("READY"), 10*time.Second); err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		procs[i] = r
	}
	time.Sleep(settle(vs))
	samples := make([][]time.Duration, len(vs))
	buf := make([]byte, 64)
	next := time.Now()
	for k := range keys {
		time.Sleep(time.Until(next))
		next = time.Now().Add(keyInterval)
		key := []byte{'a' + byte(k%26)}
		for _, i := range order.Perm(len(procs)) {
			r := procs[i]
			t0 := time.Now()
			if _, err := r.master.Write(key); err != nil {
				return nil, fmt.Errorf("%s: type: %w", vs[i].name, err)
			}
			_ = r.master.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, err := r.master.Read(buf)
			if err != nil {
				return nil, fmt.Errorf("%s: echo: %w", vs[i].name, err)
			}
			samples[i] = append(samples[i], time.Since(t0))
			if n != 1 || buf[0] != key[0] {
				return nil, fmt.Errorf("%s: echo %q, want %q", vs[i].name, buf[:n], key)
			}
		}
	}
	return samples, nil
}

// measureThroughput has the child write floodMB megabytes as fast as it
// can, in each variant in turn, runs times, and times their arrival.
func measureThroughput(self string, vs []variant, floodMB, runs int) (rates, cpu [][]float64, err error) {
	rates = make([][]float64, len(vs))
	cpu = make([][]float64, len(vs))
	total := floodMB << 20
	buf := make([]byte, 256<<10)
	for range runs {
		for _, i := range order.Perm(len(vs)) {
			v := vs[i]
			r, err := v.start([]string{self, "child-flood", strconv.Itoa(total)})
			if err != nil {
				return nil, nil, err
			}
			if err := r.waitFor([]byte("READY"), 10*time.Second); err != nil {
				r.stop()
				return nil, nil, fmt.Errorf("%s: %w", v.name, err)
			}
			if _, err := r.master.Write([]byte("g")); err != nil {
				r.stop()
				return nil, nil, err
			}
			t0 := time.Now()
			got := 0
			for got < total {
				_ = r.master.SetReadDeadline(time.Now().Add(30 * time.Second))
				n, err := r.master.Read(buf)
				got += n
				if err != nil {
					r.stop()
					return nil, nil, fmt.Errorf("%s: flood: %w after %d bytes", v.name, err, got)
				}
			}
			elapsed := time.Since(t0)
			if err := r.wait(10 * time.Second); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", v.name, err)
			}
			rates[i] = append(rates[i], float64(total)/(1<<20)/elapsed.Seconds())
			st := r.cmd.ProcessState
			cpu[i] = append(cpu[i], (st.UserTime() + st.SystemTime()).Seconds())
		}
	}
	return rates, cpu, nil
}

// pool puts the rounds' samples together, per variant (and key interval,
// of which there are k).
func pool(rs []round, n, k int) round {
	all := round{lat: make([][][]time.Duration, k), thr: make([][]float64, n), cpu: make([][]float64, n), start: make([][]time.Duration, n)}
	for j := range k {
		all.lat[j] = make([][]time.Duration, n)
	}
	for _, r := range rs {
		for i := range n {
			for j := range k {
				all.lat[j][i] = append(all.lat[j][i], r.lat[j][i]...)
			}
			all.thr[i] = append(all.thr[i], r.thr[i]...)
			all.cpu[i] = append(all.cpu[i], r.cpu[i]...)
			all.start[i] = append(all.start[i], r.start[i]...)
		}
	}
	return all
}

// quantile is the q-quantile of d (nearest rank).
func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func median(f []float64) float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	return s[len(s)/2]
}

func report(vs []variant, all round, m measures) {
	thr, cpu := all.thr, all.cpu
	p := quantile
	fmt.Printf("%-28s", "")
	for _, v := range vs {
		fmt.Printf("%22s", v.name)
	}
	fmt.Println()
	row := func(name string, val func(i int) float64, unit string, format func(float64) string) {
		fmt.Printf("%-28s", name)
		base := val(0)
		for i := range vs {
			x := val(i)
			cell := format(x) + unit
			if i > 0 {
				cell += fmt.Sprintf(" (%.2fx)", x/base)
			}
			fmt.Printf("%22s", cell)
		}
		fmt.Println()
	}
	us := func(x float64) string { return fmt.Sprintf("%.0f", x) }
	for j, every := range m.every {
		lat := all.lat[j]
		row(fmt.Sprintf("keys %v apart: p50 (n=%d)", every, len(lat[0])), func(i int) float64 { return float64(p(lat[i], 0.50).Microseconds()) }, "µs", us)
		row(fmt.Sprintf("keys %v apart: p99", every), func(i int) float64 { return float64(p(lat[i], 0.99).Microseconds()) }, "µs", us)
	}
	row(fmt.Sprintf("output MB/s (%d MB, median)", m.floodMB), func(i int) float64 { return median(thr[i]) }, "", func(x float64) string { return fmt.Sprintf("%.0f", x) })
	row("CPU s for that output", func(i int) float64 { return median(cpu[i]) }, "", func(x float64) string { return fmt.Sprintf("%.2f", x) })
	row("startup ms (median)", func(i int) float64 { return float64(quantile(all.start[i], 0.5).Microseconds()) / 1000 }, "", func(x float64) string { return fmt.Sprintf("%.1f", x) })
	for j, every := range m.every {
		reportBurst(vs, all.lat[j], p, every)
	}
}

// reportTargets gives, for each variant other than direct and script, the
// issue's targets against script(1): per round, keystroke overhead (the
// latency quantile over direct's) at p50 and p99 and throughput as
// ratios to script's, and startup as the difference from script's; then
// the median over the rounds.
func reportTargets(vs []variant, rs []round, every []time.Duration) {
	direct := slices.IndexFunc(vs, func(v variant) bool { return v.name == "direct" })
	script := slices.IndexFunc(vs, func(v variant) bool { return v.name == "script" })
	if direct < 0 || script < 0 {
		return
	}
	overhead := func(r round, j, i int, q float64) float64 {
		return float64(quantile(r.lat[j][i], q) - quantile(r.lat[j][direct], q))
	}
	startMs := func(r round, i int) float64 { return float64(quantile(r.start[i], 0.5).Microseconds()) / 1000 }
	for i, v := range vs {
		if i == direct || i == script {
			continue
		}
		fmt.Printf("\n%s against script(1), median of %d rounds, then each round's figure:\n", v.name, len(rs))
		for j, d := range every {
			var p50, p99 []float64
			for _, r := range rs {
				p50 = append(p50, overhead(r, j, i, 0.5)/overhead(r, j, script, 0.5))
				p99 = append(p99, overhead(r, j, i, 0.99)/overhead(r, j, script, 0.99))
			}
			fmt.Printf("  keys %-5v overhead p50  %5.2fx  (target ≤ 1.15)  rounds %s\n", d, median(p50), list(p50, "%.2f"))
			fmt.Printf("  keys %-5v overhead p99  %5.2fx  (target ≤ 1.5)   rounds %s\n", d, median(p99), list(p99, "%.2f"))
		}
		var thr, start []float64
		for _, r := range rs {
			thr = append(thr, median(r.thr[i])/median(r.thr[script]))
			start = append(start, startMs(r, i)-startMs(r, script))
		}
		fmt.Printf("  output throughput         %5.2fx  (target ≥ 0.95)  rounds %s\n", median(thr), list(thr, "%.2f"))
		fmt.Printf("  startup − script's      %+6.1fms (target ≤ 3)     rounds %s\n", median(start), list(start, "%+.1f"))
	}
}

func list(f []float64, format string) string {
	s := make([]string, len(f))
	for i, x := range f {
		s[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(s, " ")
}

// measureStartup starts each variant in turn, n times, and times it from
// the spawn to the child's first output: the wrapper's own start, the
// child's start under it, and the child's first write getting through.
func measureStartup(self string, vs []variant, n int) ([][]time.Duration, error) {
	res := make([][]time.Duration, len(vs))
	for range n {
		for _, i := range order.Perm(len(vs)) {
			v := vs[i]
			t0 := time.Now()
			r, err := v.start([]string{self, "child-echo"})
			if err != nil {
				return nil, err
			}
			err = r.waitFor([]byte("READY"), 10*time.Second)
			d := time.Since(t0)
			r.stop()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", v.name, err)
			}
			res[i] = append(res[i], d)
		}
	}
	return res, nil
}

// reportBurst gives pbwrap's keystroke latency with its burst detector on
// (the default) over that with it off, when both were measured.
func reportBurst(vs []variant, lat [][]time.Duration, p func([]time.Duration, float64) time.Duration, every time.Duration) {
	on, off := slices.IndexFunc(vs, func(v variant) bool { return v.name == "pbwrap" }), slices.IndexFunc(vs, func(v variant) bool { return v.name == noBurstName })
	if on < 0 || off < 0 {
		return
	}
	ratio := func(q float64) float64 { return float64(p(lat[on], q)) / float64(p(lat[off], q)) }
	fmt.Printf("\nkeys %v apart, latency with the burst detector on / off: p50 %.2fx, p90 %.2fx, p99 %.2fx\n", every, ratio(0.5), ratio(0.9), ratio(0.99))
}

// childMain is the measured program: child-echo writes back every byte it
// reads; child-flood N writes N bytes once it reads a byte; child-paste
// says DONE when a paste, or the reference that replaces it, has arrived. Both announce
// READY first, with the terminal in raw mode so that nothing is
// translated.
func childMain(mode string, args []string) int {
	if _, err := term.MakeRaw(0); err != nil {
		fmt.Fprintln(os.Stderr, "raw:", err)
		return 1
	}
	os.Stdout.WriteString("READY")
	buf := make([]byte, 4096)
	switch mode {
	case "child-echo":
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				os.Stdout.Write(buf[:n])
			}
			if err != nil {
				return 0
			}
		}
	case "child-paste":
		// Done when the paste's end marker (direct, script) or the end of
		// a reference (pbwrap) has arrived.
		var tail []byte
		for {
			n, err := os.Stdin.Read(buf)
			tail = append(tail, buf[:n]...)
			if bytes.Contains(tail, []byte(termproto.EndMarker)) || bytes.HasSuffix(bytes.TrimSpace(tail), []byte("]")) {
				os.Stdout.WriteString("DONE")
				tail = tail[:0]
			}
			if len(tail) > 16 {
				tail = append(tail[:0], tail[len(tail)-16:]...)
			}
			if err != nil {
				return 0
			}
		}
	case "child-stamp":
		return stampMain(args)
	case "child-count":
		return countMain(args)
	case "child-flood":
		total, _ := strconv.Atoi(args[0])
		if _, err := os.Stdin.Read(buf[:1]); err != nil {
			return 1
		}
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 64<<10/16)
		for total > 0 {
			n, err := os.Stdout.Write(chunk[:min(len(chunk), total)])
			total -= n
			if err != nil {
				return 1
			}
		}
		return 0
	}
	return 2
}
