//go:build darwin || freebsd || linux

package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/image/tiff"

	"github.com/pbwrap/pbwrap/internal/fakekitty"
	"github.com/pbwrap/pbwrap/internal/kittyclip"
	"github.com/pbwrap/pbwrap/internal/ptytest"
	"github.com/pbwrap/pbwrap/internal/vtoracle"
)

// The tests of this file play kitty against the built pbwrap as an
// awkward terminal and a hostile agent would (issue 38): each is a case
// that cost a later paste, bytes, or the machine's memory before.

// startImage runs pbwrap with --image-paste mode around the recording
// child, which runs steps (by default: raw, record its input, bracketed
// paste on, ready, block), and waits for it to be ready, and with mode on
// for paste events to be on.
func startImage(t *testing.T, mode string, steps ...string) *terminal {
	t.Helper()
	if steps == nil {
		steps = []string{"raw", "record", "bp:on", "ready", "block"}
	}
	root := filepath.Join(realDir(t), "root")
	term := startPbwrap(t, ptytest.Job{
		Steps: steps,
		Env:   []string{"PBWRAP_ROOT=" + root, "PBWRAP_IMAGE_PASTE=" + mode, "TMUX=", "STY=", "ZELLIJ=", "ZELLIJ_SESSION_NAME=", "SSH_CONNECTION=", "SSH_TTY="},
	}, "--debug")
	term.rootDir = root
	term.waitReady()
	if mode == "on" {
		term.WaitOutput(kittyclip.ModeOn)
	}
	return term
}

// request waits for the n-th read request (from 1) at the terminal and
// returns its id.
func (term *terminal) request(n int) string {
	term.t.Helper()
	var m [][][]byte
	term.WaitFor(fmt.Sprintf("read request %d", n), func() bool {
		m = fakekitty.ReadRequest.FindAllSubmatch(term.Output(), -1)
		return len(m) >= n
	})
	return string(m[n-1][1])
}

// wantTerminalSees checks what terminals make of pbwrap's output: kitty's
// parser (as fakekitty.Screen reads strings), libvterm's and xterm.js's
// each read the read requests as requests, and end with paste events on
// or off as pasteEvents says.
func wantTerminalSees(t *testing.T, out []byte, requests int, pasteEvents bool) {
	t.Helper()
	var kitty fakekitty.Screen
	kitty.Write(out)
	got := 0
	for _, p := range kitty.Packets {
		if strings.HasPrefix(p, "type=read:id=pbwrap-") {
			got++
		}
	}
	if got != requests || kitty.PasteEvents != pasteEvents {
		t.Errorf("kitty would read %d requests (want %d) and have paste events %v (want %v)", got, requests, kitty.PasteEvents, pasteEvents)
	}
	switch dump, err := vtoracle.VtermDump(out); {
	case errors.Is(err, vtoracle.ErrUnavailable) && os.Getenv("PBWRAP_REQUIRE_VTERM") != "1":
	case err != nil:
		t.Error(err)
	default:
		on := strings.LastIndex(dump, "{DECSM 5522}") > strings.LastIndex(dump, "{DECRM 5522}")
		if n := strings.Count(dump, "{OSC 5522;type=read:id=pbwrap-"); n != requests || on != pasteEvents {
			t.Errorf("libvterm read %d requests (want %d) and paste events %v (want %v):\n%q", n, requests, on, pasteEvents, dump)
		}
	}
	switch x, err := vtoracle.StartXtermJS(); {
	case errors.Is(err, vtoracle.ErrUnavailable) && os.Getenv("PBWRAP_REQUIRE_ORACLE") != "1":
	case err != nil:
		t.Error(err)
	default:
		defer x.Close()
		res, err := x.Read([][]byte{out})
		if err != nil {
			t.Fatal(err)
		}
		if on := res.After[0]["dec5522"] == true; res.Reads != requests || on != pasteEvents {
			t.Errorf("xterm.js read %d requests (want %d) and paste events %v (want %v)", res.Reads, requests, on, pasteEvents)
		}
	}
}

// An agent that leaves a control string or a character unfinished (a
// title with no terminator, a DCS, an APC, half a UTF-8 character) stops
// no paste: pbwrap ends what it left, as every terminal reads it, before
// it writes its read and the mode off, so that the terminal (kitty reads a
// string on until ST or BEL; libvterm takes an ESC after half a character
// for part of it) reads them. A denied read turns the mode off for real,
// and the user's next paste is the terminal's own.
func TestImagePasteAfterUnfinishedOutput(t *testing.T) {
	for _, open := range []string{"\x1b]0;title", "\x1bPq#0;2;0;0;0", "\x1b_Gf=100;AAAA", "\x1b^private", "\x1bXstring", "abc\xe2\x82", "\x1b]0;ti\xe2\x82"} {
		for _, denied := range []bool{false, true} {
			t.Run(fmt.Sprintf("%q denied %v", open, denied), func(t *testing.T) {
				term := startImage(t, "on", "raw", "record", "bp:on", "ready", "write:"+strconv.Quote(open), "block")
				term.WaitOutput(open)
				term.Type([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")), 0)
				id := term.request(1)
				if !denied {
					data := fakekitty.NoisePNG(20, 20)
					term.Type([]byte(fakekitty.Reply(id, "image/png", data)), 0)
					path := filepath.Join(term.sessionDir(), "image-1.png")
					term.waitInputHas(pasteStart + path + pasteEnd)
					wantTerminalSees(t, term.Output(), 1, true)
					term.SignalWrapper(syscall.SIGTERM)
					term.WantExit("exit 143")
					return
				}
				term.Type([]byte(fakekitty.Packet("type=read:status=EPERM:id="+id, "")), 0)
				term.waitInputHas("[pbwrap: image paste is off for this session: the terminal answered EPERM")
				term.WaitOutput(kittyclip.ModeOff)
				wantTerminalSees(t, term.Output(), 1, false)
				term.paste("text", 0)
				term.waitInputHas(pasteStart + "text" + pasteEnd)
				term.SignalWrapper(syscall.SIGTERM)
				term.WantExit("exit 143")
			})
		}
	}
}

// A paste event that pbwrap does not answer, with image paste off (the
// mode left on by another program), turns the mode off at the terminal,
// in an open string too, and says to paste again; the event's password
// and every packet stay from the agent.
func TestImagePasteOffRefusesEvent(t *testing.T) {
	term := startImage(t, "off", "raw", "record", "bp:on", "ready", `write:"\x1b]0;title"`, "block")
	term.WaitOutput("\x1b]0;title")
	term.Type([]byte("<"+fakekitty.Event(fakekitty.PW, "image/png", "")+">"), 0)
	got := term.waitInputHas(">")
	if want := "<[pbwrap: kitty sent a paste event, and image paste is off; paste events are off now: paste again for the terminal's own paste]>"; got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
	var kitty fakekitty.Screen
	kitty.PasteEvents = true // As the other program left it.
	term.WaitFor("the mode off", func() bool {
		kitty = fakekitty.Screen{PasteEvents: true}
		kitty.Write(term.Output())
		return !kitty.PasteEvents
	})
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// The agent can never turn paste events on, with image paste off, auto
// or on: its DEC mode 5522, alone or among other modes, set, saved or
// restored, never reaches the terminal; and the terminal's packets (a
// paste event, its one-time password, a reply) never reach the agent.
func TestImagePasteAgentCannotTurnModeOn(t *testing.T) {
	for _, mode := range []string{"off", "auto", "on"} {
		t.Run(mode, func(t *testing.T) {
			seqs := `"\x1b[?5522h\x1b[?1049;5522h\x1b[?5522;25h\x1b[?5522s\x1b[?5522r\x1b[?05522h"`
			term := startImage(t, mode, "raw", "record", "bp:on", "write:"+seqs, "ready", "block")
			var kitty fakekitty.Screen
			kitty.Write(term.Output())
			if on := kitty.PasteEvents; on != (mode == "on") {
				t.Errorf("paste events at the terminal %v, want %v: %q", on, mode == "on", term.Output())
			}
			// With image paste on, pbwrap sets the mode itself, and again
			// after what may reset the terminal (the child's XTRESTORE).
			if n := bytes.Count(term.Output(), []byte("5522h")); mode != "on" && n != 0 {
				t.Errorf("%d sets of mode 5522 reached the terminal: %q", n, term.Output())
			}
			term.Type([]byte("<"+fakekitty.Event(fakekitty.PW, "image/png", "")+fakekitty.Reply("pbwrap-9", "image/png", []byte("x"))+">"), 0)
			got := term.waitInputHas(">")
			if strings.Contains(got, "5522") || strings.Contains(got, fakekitty.PW) || strings.Contains(got, "status=") {
				t.Errorf("a packet reached the child: %q", got)
			}
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// A text paste that holds OSC 5522 packets (a log of kitty's replies,
// copied) reaches the agent whole, small or saved.
func TestImagePasteTextWithPackets(t *testing.T) {
	body := "x" + fakekitty.Event(fakekitty.PW, "image/png", "") + fakekitty.Reply("pbwrap-1", "image/png", []byte("\x89PNG")) + "\x1b]5522;type=read:status=DATA;AA AA\x1b\\" + "\x1b]5522;type=rea" + "y"
	term := startImage(t, "on")
	term.Type([]byte("<"), 0)
	term.paste(body, 7)
	term.Type([]byte(">"), 0)
	if got, want := term.waitInputHas(">"), "<"+pasteStart+body+pasteEnd+">"; got != want {
		t.Errorf("child got %q\nwant %q", got, want)
	}
	big := strings.Repeat(body+"\n", 9000/len(body)+1)
	term.paste(big, 4096)
	got := term.waitInputHas("paste-1.txt]")
	saved, err := os.ReadFile(filepath.Join(term.sessionDir(), "paste-1.txt"))
	if err != nil || string(saved) != big {
		t.Errorf("saved %d bytes (%v), want the %d pasted; child got %q", len(saved), err, len(big), ptytest.Tail([]byte(got), 100))
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// Keys inside a reply packet (Ctrl-Z, Ctrl-X, any C0 control or DEL: a
// terminal puts none there) are keys: the image is saved whole, the keys
// reach the agent after its path, and no base64 does.
func TestImagePasteControlKeysInsideReply(t *testing.T) {
	data := fakekitty.NoisePNG(40, 40)
	term := startImage(t, "on")
	term.Type([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")), 0)
	id := term.request(1)
	reply := fakekitty.Reply(id, "image/png", data)
	i := strings.Index(reply, ":status=DATA:") + 500
	j := strings.LastIndex(reply, ":status=DATA:") + 30
	reply = reply[:i] + "\x1a" + reply[i:j] + "\x18\x7f\r" + reply[j:]
	term.Type([]byte(reply+"k"), 0)
	path := filepath.Join(term.sessionDir(), "image-1.png")
	if got, want := term.waitInputHas("k"), pasteStart+path+pasteEnd+"\x1a\x18\x7f\rk"; got != want {
		t.Errorf("child got %q\nwant %q", ptytest.Tail([]byte(got), 200), want)
	}
	if saved, err := os.ReadFile(path); err != nil || !bytes.Equal(saved, data) {
		t.Errorf("%s: %d bytes (%v), want the %d pasted", path, len(saved), err, len(data))
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// A reply cut short does not take the keys typed after it: the read
// fails (the note says so), and the keys reach the agent.
func TestImagePasteCutReplyKeepsKeys(t *testing.T) {
	term := startImage(t, "on")
	term.Type([]byte(fakekitty.Event(fakekitty.PW, "image/png", "")), 0)
	id := term.request(1)
	reply := fakekitty.Reply(id, "image/png", fakekitty.NoisePNG(40, 40))
	term.Type([]byte(reply[:len(reply)/2]), 0)
	term.WaitInputRead()
	time.Sleep(10 * kittyclip.CutGap) // The keys come later, as a person's do.
	term.Type([]byte("hello world\r"), 0)
	got := term.waitInputHas("\r")
	if want := "[pbwrap: image paste is off for this session: a reply from the terminal was cut off; paste again for the terminal's own paste]hello world\r"; got != want {
		t.Errorf("child got %q\nwant %q", got, want)
	}
	term.WaitOutput(kittyclip.ModeOff)
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// What is saved as an image is a whole, valid one: files with an image's
// first bytes and anything after them are not typed as image paths; the
// note says why, and nothing is saved.
func TestImagePasteNotAnImage(t *testing.T) {
	for _, tt := range []struct{ mime, data, why string }{
		{"image/png", "\x89PNG\r\n\x1a\n<html>not a png</html>", "not a whole, valid PNG"},
		{"image/jpeg", "\xff\xd8\xff\xe0 and then some text", "not a whole, valid JPEG"},
		{"image/gif", "GIF89a and the rest is text", "not a whole, valid GIF"},
		{"image/webp", "RIFF\x10\x00\x00\x00WEBPVP8 text", "not a whole, valid WEBP"},
		{"image/bmp", "BM this is a letter to Bob", "not a whole, valid BMP"},
		{"image/tiff", "II*\x00 an essay", "not a whole, valid TIFF"},
	} {
		t.Run(tt.mime, func(t *testing.T) {
			term := startImage(t, "on")
			term.Type([]byte(fakekitty.Event(fakekitty.PW, tt.mime, "")), 0)
			id := term.request(1)
			term.Type([]byte(fakekitty.Reply(id, tt.mime, []byte(tt.data))+"k"), 0)
			got := term.waitInputHas("own paste]")
			// A PNG is checked as it comes, its note typed at once; the
			// others are checked once they have come, and the key typed
			// meanwhile is not held.
			note := regexp.QuoteMeta("[pbwrap: image paste is off for this session: the clipboard image is "+tt.why) + ` \([^]]*\); paste again for the terminal's own paste\]`
			if !regexp.MustCompile(`^(k` + note + `|` + note + `k)$`).MatchString(term.waitInputHas("k")) {
				t.Errorf("child got %q", got)
			}
			if m, _ := filepath.Glob(filepath.Join(term.sessionDir(), "image-*")); len(m) != 0 {
				t.Errorf("saved %q", m)
			}
			term.WaitOutput(kittyclip.ModeOff)
			term.SignalWrapper(syscall.SIGTERM)
			term.WantExit("exit 143")
		})
	}
}

// hugeTIFF is a TIFF of w×h RGBA pixels at 16 bits a sample, all clear,
// in one deflated strip: 8 bytes a pixel decoded, a thousandth of that on
// the wire.
func hugeTIFF(t *testing.T, w, h int) []byte {
	t.Helper()
	var strip bytes.Buffer
	z, err := zlib.NewWriterLevel(&strip, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, 8*w)
	for range h {
		z.Write(row)
	}
	z.Close()
	le := binary.LittleEndian
	var b bytes.Buffer
	b.WriteString("II*\x00")
	binary.Write(&b, le, uint32(8))
	entries := []struct {
		tag, typ uint16
		count    uint32
		value    uint32
	}{
		{256, 4, 1, uint32(w)}, {257, 4, 1, uint32(h)}, {258, 3, 4, 0}, {259, 3, 1, 8}, {262, 3, 1, 2},
		{273, 4, 1, 0}, {277, 3, 1, 4}, {278, 4, 1, uint32(h)}, {279, 4, 1, uint32(strip.Len())},
		{338, 3, 1, 2},
	}
	ifdEnd := 8 + 2 + 12*len(entries) + 4
	bitsAt, stripAt := uint32(ifdEnd), uint32(ifdEnd+8)
	binary.Write(&b, le, uint16(len(entries)))
	for _, e := range entries {
		switch e.tag {
		case 258:
			e.value = bitsAt
		case 273:
			e.value = stripAt
		}
		binary.Write(&b, le, e.tag)
		binary.Write(&b, le, e.typ)
		binary.Write(&b, le, e.count)
		binary.Write(&b, le, e.value)
	}
	binary.Write(&b, le, uint32(0))
	binary.Write(&b, le, [4]uint16{16, 16, 16, 16})
	b.Write(strip.Bytes())
	return b.Bytes()
}

// The 389 KB TIFF that took pbwrap to 1.5 GiB: 50 million pixels (just
// under the old bound on pixels) at 16 bits a sample, RGBA (400 MB
// decoded), deflated into one strip. pbwrap reads its header, finds it
// far larger than MaxDecoded, refuses it with a note, and its peak memory
// stays that of a session that pastes a small image; the key typed after
// it is not held.
func TestImagePasteHugeTIFF(t *testing.T) {
	peak := func(mime string, data []byte, want string) int {
		term := startImage(t, "on")
		term.Type([]byte(fakekitty.Event(fakekitty.PW, mime, "")), 0)
		id := term.request(1)
		term.Type([]byte(fakekitty.Reply(id, mime, data)+"k"), 0)
		got := term.waitInputHas(want)
		if mime == "image/tiff" && got != "k"+want {
			t.Errorf("child got %q\nwant %q", got, "k"+want)
		}
		return term.peakRSS()
	}
	data := hugeTIFF(t, 7071, 7071)
	huge := peak("image/tiff", data, "[pbwrap: image paste is off for this session: the clipboard image is too large (7071x7071 pixels, 382 MiB decoded (at most 128 MiB)); paste again for the terminal's own paste]")
	small := peak("image/png", fakekitty.NoisePNG(20, 20), "image-1.png"+pasteEnd)
	t.Logf("pbwrap's peak RSS: %d KiB with the %d-byte TIFF refused, %d KiB with a small PNG pasted", huge, len(data), small)
	if huge-small > 16<<10 {
		t.Errorf("the TIFF cost %d KiB more peak RSS than a small PNG, want at most 16 MiB", huge-small)
	}
}

// peakRSS ends pbwrap (SIGTERM) and returns its peak RSS in KiB (see
// vmHWM).
func (term *terminal) peakRSS() int {
	term.t.Helper()
	kb, ok := vmHWM(term.t, term.WrapperPid())
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
	if !ok {
		kb = term.WrapperPeakRSS()
	}
	return kb
}

// A TIFF that takes a while to convert holds no key: what the user types
// once the image has come reaches the agent at once, and the path follows
// when the PNG is ready. (This relies on converting 2000x2000 pixels,
// 700x700 under the race detector, taking longer than a key takes through
// pbwrap: a second against a millisecond; the order itself is tested with
// a converter held in capture's tests.)
func TestImagePasteKeysNotHeldBehindConversion(t *testing.T) {
	w, h := 2000, 2000
	if raceEnabled {
		w, h = 700, 700
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7 % 251)
	}
	var b bytes.Buffer
	if err := tiff.Encode(&b, img, &tiff.Options{Compression: tiff.Deflate}); err != nil {
		t.Fatal(err)
	}
	term := startImage(t, "on")
	term.Type([]byte(fakekitty.Event(fakekitty.PW, "image/tiff", "")), 0)
	id := term.request(1)
	term.Type([]byte(fakekitty.Reply(id, "image/tiff", b.Bytes())), 0)
	term.Type([]byte("k"), 0)
	path := filepath.Join(term.sessionDir(), "image-1.png")
	if got, want := term.waitInputHas(pasteEnd), "k"+pasteStart+path+pasteEnd; got != want {
		t.Errorf("child got %q, want %q", got, want)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if c, err := png.DecodeConfig(f); err != nil || c.Width != w || c.Height != h {
		t.Errorf("%s: %+v, %v", path, c, err)
	}
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}

// A 150 MiB text paste while a paste event is open is held on disk, not
// in memory, and saved exact after the event's own paste: pbwrap's peak
// memory is that of a 1 MiB paste held so (on disk too, past 256 KiB).
// (20 MiB with -short or the race detector, which are slower; memory grew
// with the paste before, to 1 GiB for 150 MiB.)
func TestImagePasteHugeTextDuringEvent(t *testing.T) {
	size := 150 << 20
	if testing.Short() || raceEnabled {
		size = 20 << 20
	}
	peak := func(size int) int {
		body := string(ptytest.Pattern(size))
		term := startImage(t, "on")
		event := fakekitty.Event(fakekitty.PW, "text/plain", "")
		end := strings.Index(event, "\x1b\\") + 2
		done := term.TypeAsync([]byte(event[:end] + pasteStart + body + pasteEnd + event[end:]))
		id := term.request(1)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		term.Type([]byte(fakekitty.Reply(id, "text/plain", []byte("first"))), 0)
		got := term.waitInputHas("paste-1.txt]")
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(pasteStart+"first"+pasteEnd+pasteStart) + `\[paste saved: [^]]*paste-1\.txt\]` + regexp.QuoteMeta(pasteEnd) + `$`).MatchString(got) {
			t.Errorf("child got %q", got)
		}
		saved, err := os.ReadFile(filepath.Join(term.sessionDir(), "paste-1.txt"))
		if want := strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n"); err != nil || string(saved) != want {
			t.Errorf("paste-1.txt: %d bytes (%v), want the %d pasted", len(saved), err, len(want))
		}
		return term.peakRSS()
	}
	small, large := peak(1<<20), peak(size)
	t.Logf("pbwrap's peak RSS: %d KiB holding a 1 MiB paste, %d KiB holding %d MiB", small, large, size>>20)
	if large-small > 8<<10 {
		t.Errorf("the %d MiB paste cost %d KiB more peak RSS than a 1 MiB one, want at most 8 MiB", size>>20, large-small)
	}
}

// An agent that resets the terminal (RIS, DECSTR: kitty turns paste
// events off with its other modes) does not turn image paste off: pbwrap
// sets the mode again after it, as it does bracketed paste.
func TestImagePasteAfterTerminalReset(t *testing.T) {
	term := startImage(t, "on", "raw", "record", "bp:on", "ready", `write:"\x1bc\x1b[!p"`, "block")
	term.WaitOutput("\x1b[!p")
	var kitty fakekitty.Screen
	term.WaitFor("paste events on after the resets", func() bool {
		kitty = fakekitty.Screen{}
		kitty.Write(term.Output())
		return kitty.PasteEvents
	})
	term.SignalWrapper(syscall.SIGTERM)
	term.WantExit("exit 143")
}
