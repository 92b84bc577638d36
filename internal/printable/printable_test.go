package printable

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// unsafeRune is a rune the package's contract keeps out of its output.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || !strconv.IsPrint(r)
}

// checkSafe fails t if out is not valid UTF-8 or holds a rune that does
// not print; allow lists the runes a form may keep (JSON's whitespace).
func checkSafe(t *testing.T, form, in, out, allow string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: not UTF-8", form, in, out)
	}
	for _, r := range out {
		if unsafeRune(r) && !strings.ContainsRune(allow, r) {
			t.Fatalf("%s(%q) = %q: holds %U, which does not print", form, in, out, r)
		}
	}
}

var cases = []struct{ in, quote, inline string }{
	{"plain /tmp/a b", "plain /tmp/a b", "plain /tmp/a b"},
	{"", "", ""},
	{"é ✓ 日本", "é ✓ 日本", "é ✓ 日本"},
	{"\ufffd literal", "\ufffd literal", "\ufffd literal"},
	{`a"b\c`, `a"b\c`, `a"b\c`},
	{"a\nb", `"a\nb"`, `a\nb`},
	{"\x1b]52;c;aGk=\a", `"\x1b]52;c;aGk=\a"`, `\x1b]52;c;aGk=\a`},
	{"tab\there", `"tab\there"`, `tab\there`},
	{"del\x7f", `"del\x7f"`, `del\x7f`},
	{"c1 \u009b2J \u0085", `"c1 \u009b2J \u0085"`, `c1 \u009b2J \u0085`},
	{"bidi \u202egnp.exe", `"bidi \u202egnp.exe"`, `bidi \u202egnp.exe`},
	{"zero\u200bwidth \u2028", `"zero\u200bwidth \u2028"`, `zero\u200bwidth \u2028`},
	{"bad \xff\xc3 utf8", `"bad \xff\xc3 utf8"`, `bad \xff\xc3 utf8`},
	{"tag \U000e0041", `"tag \U000e0041"`, `tag \U000e0041`},
}

func TestQuoteEscapesWhatDoesNotPrintAndQuotesTheWhole(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		if got := Quote(tc.in); got != tc.quote {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.quote)
		}
		if got, want := Prints(tc.in), tc.quote == tc.in; got != want {
			t.Errorf("Prints(%q) = %v, want %v", tc.in, got, want)
		}
	}
}

func TestInlineEscapesWhatDoesNotPrintInPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		if got := Inline(tc.in); got != tc.inline {
			t.Errorf("Inline(%q) = %s, want %s", tc.in, got, tc.inline)
		}
	}
}

func TestErrorQuotesTheMessageAndKeepsNil(t *testing.T) {
	t.Parallel()
	if Error(nil) != nil {
		t.Fatal("Error(nil) is not nil")
	}
	if got, want := Error(errors.New("open \x1b[2J: no")).Error(), `"open \x1b[2J: no"`; got != want {
		t.Fatalf("Error: %s, want %s", got, want)
	}
}

func TestJSONEscapesWhatEncodingJSONLeavesAndDecodesTheSame(t *testing.T) {
	t.Parallel()
	in := map[string]string{"path": "a\u009b\u202e\x7f\U000e0041\nb", "ok": "é"}
	data, err := json.MarshalIndent(in, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(data)
	checkSafe(t, "JSON", string(data), string(got), "\n\t")
	for _, want := range []string{`\u009b`, `\u202e`, `\u007f`, `\udb40\udc41`, `"é"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("JSON: %s lacks %s", got, want)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["path"] != in["path"] || back["ok"] != in["ok"] {
		t.Fatalf("JSON: %s decodes to %q (%v), want %q", got, back, err, in)
	}
}

func seed(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in)
	}
}

func FuzzQuoteIsSafeAndUnquotes(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		checkSafe(t, "Quote", s, q, "")
		if q == s {
			return
		}
		if back, err := strconv.Unquote(q); err != nil || back != s {
			t.Fatalf("Quote(%q) = %s, which unquotes to %q (%v)", s, q, back, err)
		}
	})
}

func FuzzInlineIsSafeAndKeepsWhatPrints(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, s string) {
		out := Inline(s)
		checkSafe(t, "Inline", s, out, "")
		if Prints(s) != (out == s) {
			t.Fatalf("Inline(%q) = %q, though Prints says %v", s, out, Prints(s))
		}
	})
}

func FuzzJSONIsSafeAndDecodesTheSame(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, s string) {
		data, err := json.Marshal([]string{s})
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(data)
		checkSafe(t, "JSON", string(data), string(out), "")
		var a, b []string
		if err := json.Unmarshal(data, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil || len(b) != 1 || b[0] != a[0] {
			t.Fatalf("JSON(%s) = %s decodes to %q (%v), want %q", data, out, b, err, a)
		}
	})
}
