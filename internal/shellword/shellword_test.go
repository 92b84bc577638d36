package shellword

import (
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"pbwrap", "/usr/local/bin/pbwrap", "/a b/pbwrap", "/it's/pbwrap", `/x"$y\/pbwrap`, "", "tab\there", "new\nline"} {
		line := Quote(v) + " hook"
		got, ok := Split(line)
		if !ok || !reflect.DeepEqual(got, []string{v, "hook"}) {
			t.Errorf("Split(%q) = %q, %t; want [%q hook]", line, got, ok, v)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`a\ b "c\"d" 'e''f'`, []string{"a b", `c"d`, "ef"}, true},
		{"  a\t b\n", []string{"a", "b"}, true},
		{`"a\nb"`, []string{`a\nb`}, true},
		{"'open", nil, false},
		{`"open`, nil, false},
		{"", nil, true},
	} {
		got, ok := Split(tt.in)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Split(%q) = %q, %t; want %q, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"pbwrap": "pbwrap", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
