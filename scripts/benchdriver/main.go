// Command benchdriver measures pbwrap against the physical limit and the
// classic wrapper: the same child run directly on a PTY, under pbwrap, and
// under script(1) (util-linux, "script -q -c"), side by side in one run,
// interleaved so that noise on a shared machine hits all three alike.
// scripts/bench builds and runs it; the figures are ratios to direct.
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
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pbwrap/pbwrap/ptyproxy"
	"golang.org/x/term"
)

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "child-") {
		os.Exit(childMain(os.Args[1], os.Args[2:]))
	}
	pbwrap := flag.String("pbwrap", "pbwrap", "the pbwrap binary to measure")
	keys := flag.Int("keys", 2000, "keystrokes per variant for the latency figures")
	floodMB := flag.Int("flood-mb", 64, "megabytes of output per throughput run")
	runs := flag.Int("runs", 5, "throughput runs per variant")
	other := flag.String("compare", "", "a second pbwrap binary to measure beside the first (pbwrap2)")
	flag.Parse()
	if err := run(*pbwrap, *other, *keys, *floodMB, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "benchdriver:", err)
		os.Exit(1)
	}
}

// A variant is one way of running the child.
type variant struct {
	name string
	argv func(child []string) []string
}

func variants(pbwrap, other string) []variant {
	vs := []variant{
		{"direct", func(child []string) []string { return child }},
		{"pbwrap", func(child []string) []string { return append([]string{pbwrap, "--"}, child...) }},
		{"script", func(child []string) []string {
			quoted := make([]string, len(child))
			for i, a := range child {
				quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
			}
			return []string{"script", "-q", "-c", strings.Join(quoted, " "), "/dev/null"}
		}},
	}
	if other != "" {
		vs = append(vs, variant{"pbwrap2", func(child []string) []string { return append([]string{other, "--"}, child...) }})
	}
	return vs
}

func run(pbwrap, other string, keys, floodMB, runs int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	vs := variants(pbwrap, other)
	fmt.Printf("pbwrap against the same child run directly and under script(1); ratios to direct\n\n")

	lat, err := measureLatency(self, vs, keys)
	if err != nil {
		return err
	}
	thr, cpu, err := measureThroughput(self, vs, floodMB, runs)
	if err != nil {
		return err
	}
	report(vs, lat, thr, cpu, floodMB)
	return nil
}

// A running is one variant's process on its own PTY.
type running struct {
	cmd    *exec.Cmd
	master *os.File
	slave  *os.File
}

func start(argv []string) (*running, error) {
	master, slave, err := ptyproxy.OpenPTY()
	if err != nil {
		return nil, err
	}
	if err := ptyproxy.SetSize(master, 24, 80); err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PBWRAP_SESSION=")
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "PBWRAP_SESSION=") })
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

// measureLatency types one key at a time into each variant in turn and
// times its echo: the keystroke round trip through the wrapper and back.
func measureLatency(self string, vs []variant, keys int) ([][]time.Duration, error) {
	procs := make([]*running, len(vs))
	for i, v := range vs {
		r, err := start(v.argv([]string{self, "child-echo"}))
		if err != nil {
			return nil, err
		}
		defer r.stop()
		if err := r.waitFor([]byte("READY"), 10*time.Second); err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		procs[i] = r
	}
	samples := make([][]time.Duration, len(vs))
	buf := make([]byte, 64)
	for k := range keys {
		key := []byte{'a' + byte(k%26)}
		for i, r := range procs {
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
		for i, v := range vs {
			r, err := start(v.argv([]string{self, "child-flood", strconv.Itoa(total)}))
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

func report(vs []variant, lat [][]time.Duration, thr, cpu [][]float64, floodMB int) {
	p := func(d []time.Duration, q float64) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[int(q*float64(len(s)-1))]
	}
	median := func(f []float64) float64 {
		s := slices.Clone(f)
		slices.Sort(s)
		return s[len(s)/2]
	}
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
	row(fmt.Sprintf("keystroke p50 (n=%d)", len(lat[0])), func(i int) float64 { return float64(p(lat[i], 0.50).Microseconds()) }, "µs", us)
	row("keystroke p99", func(i int) float64 { return float64(p(lat[i], 0.99).Microseconds()) }, "µs", us)
	row(fmt.Sprintf("output MB/s (%d MB, median)", floodMB), func(i int) float64 { return median(thr[i]) }, "", func(x float64) string { return fmt.Sprintf("%.0f", x) })
	row("CPU s for that output", func(i int) float64 { return median(cpu[i]) }, "", func(x float64) string { return fmt.Sprintf("%.2f", x) })
}

// childMain is the measured program: child-echo writes back every byte it
// reads; child-flood N writes N bytes once it reads a byte. Both announce
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
