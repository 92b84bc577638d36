//go:build darwin || freebsd || linux

package main

// Two additions to the run, each behind a flag of its own:
//
//   - -silent: pbwrap in a terminal that answers nothing (mosh, GNU
//     screen, the Linux console, a serial line), beside the one that
//     answers as xterm does, in the same interleaved run: once pbwrap has
//     stopped waiting for the answer, it looks for unmarked pastes, and
//     keys must not pay for it.
//   - -frontends: key latency through the real front ends, GNU screen and
//     mosh (mosh-server and mosh-client on 127.0.0.1), with and without
//     pbwrap inside them: the time from the key written at the user's
//     terminal to the child having read it, which the child stamps and
//     reports through a FIFO. And what GNU screen alone delivers of a
//     large paste, which it drops bytes of by itself.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pbwrap/pbwrap/internal/capture"
)

// silentSuffix names the variants of pbwrap in a terminal that answers
// nothing: pbwrap-silent, and pbwrap2-silent with -compare.
const silentSuffix = "-silent"

// silentVariants are pbwrap, and the second pbwrap if there is one, with
// default settings, in a terminal that answers no question.
func silentVariants(pbwrap, other string) []variant {
	vs := []variant{{"pbwrap" + silentSuffix, func(child []string) []string { return append([]string{pbwrap, "--"}, child...) }, ""}}
	for i, o := range strings.Split(other, ",") {
		if o != "" {
			vs = append(vs, variant{fmt.Sprintf("pbwrap%d", i+2) + silentSuffix, func(child []string) []string { return append([]string{o, "--"}, child...) }, ""})
		}
	}
	return vs
}

// settle is how long the latency run waits after every variant is ready
// before it types: with a silent variant, until pbwrap has given up
// waiting for the terminal's answer (capture.AnswerWait), so that its keys
// are timed as it treats them for the rest of the session.
func settle(vs []variant) time.Duration {
	for _, v := range vs {
		if strings.HasSuffix(v.name, silentSuffix) {
			return capture.AnswerWait + 200*time.Millisecond
		}
	}
	return 0
}

// A frontEnd is a real program that relays the user's keys: it runs argv
// on a terminal of its own, and the driver plays the user's terminal
// outside it.
type frontEnd struct {
	name  string
	start func(argv []string, env []string) (*outside, error)
}

// An outside is a front end running on the driver's PTY, with what stops
// it.
type outside struct {
	r    *running
	stop func()
}

// frontEnds are the front ends installed here, of those measured.
func frontEnds() []frontEnd {
	var fs []frontEnd
	if _, err := exec.LookPath("screen"); err == nil {
		fs = append(fs, frontEnd{screenName(), startScreen})
	}
	_, errS := exec.LookPath("mosh-server")
	_, errC := exec.LookPath("mosh-client")
	if errS == nil && errC == nil {
		fs = append(fs, frontEnd{"mosh", startMosh})
	}
	return fs
}

// screenName is GNU screen with its version, as screen -v says.
func screenName() string {
	out, _ := exec.Command("screen", "-v").Output()
	if m := regexp.MustCompile(`Screen version (\S+)`).FindSubmatch(out); m != nil {
		return "screen " + string(m[1])
	}
	return "screen"
}

// startScreen runs argv in a GNU screen session of its own (its socket in
// a private directory), on a PTY the driver holds.
func startScreen(argv, env []string) (*outside, error) {
	dir, err := os.MkdirTemp("", "pbwrap-bench-screen")
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("pbwrap-bench-%d-%d", os.Getpid(), time.Now().UnixNano())
	env = append(env, "SCREENDIR="+dir, "TERM=xterm-256color")
	r, err := start(append([]string{"screen", "-c", "/dev/null", "-S", name}, argv...), env...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &outside{r: r, stop: func() {
		quit := exec.Command("screen", "-S", name, "-X", "quit")
		quit.Env = append(os.Environ(), "SCREENDIR="+dir)
		_ = quit.Run()
		r.stop()
		os.RemoveAll(dir)
	}}, nil
}

// moshConnect is what mosh-server new says: the port and the key.
var moshConnect = regexp.MustCompile(`MOSH CONNECT (\d+) (\S+)`)

// moshPID is the pid of the detached server, as it says it.
var moshPID = regexp.MustCompile(`detached, pid = (\d+)`)

// startMosh runs argv under mosh-server on 127.0.0.1, and mosh-client on
// a PTY the driver holds, connected to it: no ssh.
func startMosh(argv, env []string) (*outside, error) {
	env = append(env, "LANG=C.UTF-8", "TERM=xterm-256color")
	srv := exec.Command("mosh-server", append([]string{"new", "-i", "127.0.0.1", "--"}, argv...)...)
	srv.Env = append(os.Environ(), env...)
	out, err := srv.CombinedOutput()
	m := moshConnect.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("mosh-server: %v: %s", err, out)
	}
	var pid int
	if p := moshPID.FindSubmatch(out); p != nil {
		pid, _ = strconv.Atoi(string(p[1]))
	}
	r, err := start([]string{"mosh-client", "127.0.0.1", string(m[1])}, append(env, "MOSH_KEY="+string(m[2]))...)
	if err != nil {
		if pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		return nil, err
	}
	return &outside{r: r, stop: func() {
		if pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM) // Hangs its session up.
		}
		r.stop()
	}}, nil
}

// A stampSession is a front end with the stamping child inside, with
// pbwrap between them or not.
type stampSession struct {
	name   string
	out    *outside
	stamps *bufio.Reader // the child's stamps, a line per read
	fifo   *os.File
}

// runFrontEnds is the -frontends run.
func runFrontEnds(pbwrap, other string, m measures) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("pbwrap inside real front ends, against the child directly inside them\n")
	if err := measureFrontEnds(self, pbwrap, other, m); err != nil {
		return err
	}
	return measureScreenDrops(self, 200<<10, 5)
}

// measureFrontEnds times keys through each front end, with the child
// directly inside it and with pbwrap (and pbwrap2) between, all sessions
// at once, a key to each in turn (shuffled), at each key interval.
func measureFrontEnds(self, pbwrap, other string, m measures) error {
	fs := frontEnds()
	if len(fs) == 0 {
		return errors.New("-frontends: neither GNU screen nor mosh (mosh-server, mosh-client) is installed")
	}
	dir, err := os.MkdirTemp("", "pbwrap-bench-frontends")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "root")
	wrappers := []struct {
		name string
		argv []string
	}{{"direct", nil}, {"pbwrap", []string{pbwrap, "--"}}}
	for i, o := range strings.Split(other, ",") {
		if o != "" {
			wrappers = append(wrappers, struct {
				name string
				argv []string
			}{fmt.Sprintf("pbwrap%d", i+2), []string{o, "--"}})
		}
	}
	var ss []*stampSession
	defer func() {
		for _, s := range ss {
			s.out.stop()
			s.fifo.Close()
		}
	}()
	for _, f := range fs {
		for _, w := range wrappers {
			fifo := filepath.Join(dir, fmt.Sprintf("stamps-%d", len(ss)))
			if err := unix.Mkfifo(fifo, 0o600); err != nil {
				return err
			}
			argv := append(slices.Clone(w.argv), self, "child-stamp", fifo)
			out, err := f.start(argv, []string{"PBWRAP_ROOT=" + root})
			if err != nil {
				return fmt.Errorf("%s, %s: %w", f.name, w.name, err)
			}
			go func() { _, _ = io.Copy(io.Discard, out.r.master) }() // What the front end draws; ends with the PTY.
			r, err := openWithin(fifo, 10*time.Second)
			if err != nil {
				out.stop()
				return fmt.Errorf("%s, %s: the child did not start: %w", f.name, w.name, err)
			}
			ss = append(ss, &stampSession{name: f.name + ", " + w.name, out: out, stamps: bufio.NewReader(r), fifo: r})
		}
	}
	time.Sleep(500 * time.Millisecond) // Each front end has drawn its first screen.
	fmt.Printf("\nkey latency through the front ends: from the key written at the terminal to the child's read;\n"+
		"%d rounds of %d keys per session, each key after the interval and 0 to %v more at random (mosh sends on a timer of its own)\n", m.rounds, m.keys, frontEndJitter)
	for _, every := range m.every {
		lat := make([][]time.Duration, len(ss))
		for range m.rounds {
			next := time.Now()
			for k := range m.keys {
				time.Sleep(time.Until(next))
				next = time.Now().Add(every)
				key := []byte{'a' + byte(k%26)}
				for _, i := range order.Perm(len(ss)) {
					time.Sleep(time.Duration(order.Int64N(int64(frontEndJitter))))
					d, err := ss[i].typeKey(key)
					if err != nil {
						return fmt.Errorf("%s: %w", ss[i].name, err)
					}
					lat[i] = append(lat[i], d)
				}
			}
		}
		fmt.Printf("keys %v apart:\n", every)
		for i, s := range ss {
			fmt.Printf("  %-34s p50 %8.0fµs  p90 %8.0fµs  p99 %8.0fµs\n", s.name, us(quantile(lat[i], 0.5)), us(quantile(lat[i], 0.9)), us(quantile(lat[i], 0.99)))
		}
	}
	return nil
}

// frontEndJitter is the most a key to a front end waits at random after
// its interval: mosh-client sends what is typed on a timer of its own (8
// to 20 ms), and keys on a fixed beat would each meet that timer at the
// same phase, one session luckier than the other for as long as the run
// lasts.
const frontEndJitter = 20 * time.Millisecond

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// typeKey writes key at the terminal and returns how long the child took
// to read it, by its stamp.
func (s *stampSession) typeKey(key []byte) (time.Duration, error) {
	t0 := time.Now()
	if _, err := s.out.r.master.Write(key); err != nil {
		return 0, fmt.Errorf("type: %w", err)
	}
	_ = s.fifo.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := s.stamps.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("the child's stamp: %w", err)
	}
	f := strings.Fields(line)
	if len(f) != 2 || f[1] != "1" {
		return 0, fmt.Errorf("the child read %q, want the key alone", line)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the child's stamp %q: %w", line, err)
	}
	return time.Unix(0, ns).Sub(t0), nil
}

// openWithin opens the FIFO for reading, waiting at most d for its writer.
func openWithin(name string, d time.Duration) (*os.File, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name) // Nonblocking: the poller's, with read deadlines.
	// A FIFO opened for reading without a writer reads EOF: wait until the
	// child has opened it and written its first line.
	r := bufio.NewReader(f)
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		_ = f.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		line, err := r.ReadString('\n')
		if line == "ready\n" {
			return f, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("no ready line from the child within %v (%q, %v)", d, line, err)
		}
	}
}

// openReady opens the FIFO that a child's only argument names and says
// ready on it; or returns nil and the child's exit status.
func openReady(args []string) (*os.File, int) {
	if len(args) != 1 {
		return nil, 2
	}
	fifo, err := os.OpenFile(args[0], os.O_WRONLY, 0)
	if err != nil {
		return nil, 1
	}
	if _, err := fifo.WriteString("ready\n"); err != nil {
		fifo.Close()
		return nil, 1
	}
	return fifo, 0
}

// stampMain is the child of the front-end run: it says ready on the FIFO
// named by args[0], then writes there, for each read of its input, the
// time of the read (Unix nanoseconds) and its size. The terminal is in raw
// mode (childMain).
func stampMain(args []string) int {
	fifo, status := openReady(args)
	if fifo == nil {
		return status
	}
	defer fifo.Close()
	buf := make([]byte, 4096)
	var line []byte
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			line = strconv.AppendInt(line[:0], time.Now().UnixNano(), 10)
			line = append(strconv.AppendInt(append(line, ' '), int64(n), 10), '\n')
			if _, err := fifo.Write(line); err != nil {
				return 1
			}
		}
		if err != nil {
			return 0
		}
	}
}

// measureScreenDrops pastes size bytes through GNU screen alone, runs
// times, into a child that counts what it reads, and says what screen
// delivered: GNU screen 4 drops bytes of large pastes by itself.
func measureScreenDrops(self string, size, runs int) error {
	if _, err := exec.LookPath("screen"); err != nil {
		return nil
	}
	line := []byte(strings.Repeat("x", 79) + "\r")
	paste := bytes.Repeat(line, size/len(line)+1)[:size]
	var lost []string
	for range runs {
		dir, err := os.MkdirTemp("", "pbwrap-bench-drops")
		if err != nil {
			return err
		}
		fifo := filepath.Join(dir, "count")
		if err := unix.Mkfifo(fifo, 0o600); err != nil {
			return err
		}
		out, err := startScreen([]string{self, "child-count", fifo}, nil)
		if err != nil {
			return err
		}
		go func() { _, _ = io.Copy(io.Discard, out.r.master) }() // Ends with the PTY.
		f, err := openWithin(fifo, 10*time.Second)
		if err != nil {
			out.stop()
			return fmt.Errorf("screen: the child did not start: %w", err)
		}
		time.Sleep(300 * time.Millisecond)
		if _, err := out.r.master.Write(paste); err != nil {
			out.stop()
			return err
		}
		_ = f.SetReadDeadline(time.Now().Add(30 * time.Second))
		got, err := bufio.NewReader(f).ReadString('\n')
		f.Close()
		out.stop()
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("screen: the child's count: %w", err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(got))
		lost = append(lost, strconv.Itoa(size-n))
	}
	fmt.Printf("\n%s alone (no pbwrap), a %d KB paste written at once, %d runs: bytes lost per run: %s\n", screenName(), size>>10, runs, strings.Join(lost, " "))
	return nil
}

// countMain is the child of measureScreenDrops: it says ready on the FIFO
// named by args[0], reads its input until a second passes without any,
// and writes there how many bytes it read.
func countMain(args []string) int {
	fifo, status := openReady(args)
	if fifo == nil {
		return status
	}
	defer fifo.Close()
	n := 0
	buf := make([]byte, 64<<10)
	got := make(chan int)
	go func() { // Ends at the end of the input.
		for {
			k, err := os.Stdin.Read(buf)
			got <- k
			if err != nil {
				close(got)
				return
			}
		}
	}()
	for {
		select {
		case k, ok := <-got:
			n += k
			if ok {
				continue
			}
		case <-time.After(time.Second):
			if n == 0 {
				continue
			}
		}
		fmt.Fprintf(fifo, "%d\n", n)
		return 0
	}
}
