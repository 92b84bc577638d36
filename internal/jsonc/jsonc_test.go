package jsonc

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestStripComments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1} // c`, `{"a": 1}     `},
		{"{\n// x\n\"a\": \"//not\" /* y\n z */}", "{\n    \n\"a\": \"//not\"     \n     }"},
		{`{"a": "\" /* q"}`, `{"a": "\" /* q"}`},
		{`{} /* open`, `{}        `},
	} {
		if got := string(StripComments([]byte(tc.in))); got != tc.want {
			t.Errorf("StripComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An Object keeps its members' order and values as written; Get takes the
// last of a repeated name, Set changes each in place, SetLast moves it to
// the end.
func TestObject(t *testing.T) {
	t.Parallel()
	obj, err := ParseObject([]byte(`{"b": 1e3, "a": "<\u00e9>", "b": [1, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(obj.Get("b")); got != "[1, 2]" {
		t.Errorf("Get(b) = %s, want the last", got)
	}
	if got := obj.Get("c"); got != nil {
		t.Errorf("Get(c) = %s, want nil", got)
	}
	for _, tc := range []struct {
		name string
		obj  Object
		want string
	}{
		{"as parsed", obj, `{"b":1e3,"a":"<\u00e9>","b":[1,2]}`},
		{"set a repeated name", obj.SetLast("x", json.RawMessage("null")).Set("b", json.RawMessage("0")), `{"b":0,"a":"<\u00e9>","b":0,"x":null}`},
		{"set a new name", Object{}.Set("p", String("/a<b>")), `{"p":"/a<b>"}`},
		{"set last", obj.SetLast("b", json.RawMessage("true")), `{"a":"<\u00e9>","b":true}`},
	} {
		if got := string(tc.obj.Marshal()); got != tc.want {
			t.Errorf("%s: Marshal() = %s, want %s", tc.name, got, tc.want)
		}
	}
	for in, want := range map[string]error{`[]`: ErrNotObject, `7`: ErrNotObject} {
		if _, err := ParseObject([]byte(in)); !errors.Is(err, want) {
			t.Errorf("ParseObject(%s) = %v, want %v", in, err, want)
		}
	}
	for _, in := range []string{`{"a":}`, `{} {}`, ``, `{"a": 1} // c`} {
		if _, err := ParseObject([]byte(in)); err == nil {
			t.Errorf("ParseObject(%q): no error", in)
		}
	}
}

// An Editor changes the text where it plans to, and nothing else; what it
// adds is laid out as the text is, and a removal takes what an insertion
// added, separator and all.
func TestEditor(t *testing.T) {
	t.Parallel()
	one := json.RawMessage(`{"k":[1]}`)
	for _, tc := range []struct {
		name, in string
		comments bool
		edit     func(e *Editor) error
		want     string
	}{
		{"insert, one line", `{"a": 1}`, false,
			func(e *Editor) error { return e.InsertMember(e.Top(), "n", one) },
			`{"a": 1, "n": {"k":[1]}}`},
		{"insert, indented with tabs, CRLF", "{\r\n\t\"a\": 1\r\n}\r\n", false,
			func(e *Editor) error { return e.InsertMember(e.Top(), "n", one) },
			"{\r\n\t\"a\": 1,\r\n\t\"n\": {\r\n\t\t\"k\": [\r\n\t\t\t1\r\n\t\t]\r\n\t}\r\n}\r\n"},
		{"insert into an empty object", "{}", false,
			func(e *Editor) error { return e.InsertMember(e.Top(), "n", one) },
			`{"n":{"k":[1]}}`},
		{"append, one line", `{"a": [1, 2]}`, false,
			func(e *Editor) error {
				a, _, err := e.Member(e.Top(), "a")
				if err != nil {
					return err
				}
				elems, err := e.Elements(a)
				if err != nil {
					return err
				}
				return e.AppendElement(a, elems, json.RawMessage("3"))
			},
			`{"a": [1, 2, 3]}`},
		{"replace the last of a repeated name, comments kept", "{\n  // c\n  \"a\": 1,\n  \"a\": /* x */ 2\n}\n", true,
			func(e *Editor) error {
				a, _, err := e.Member(e.Top(), "a")
				e.Replace(a, json.RawMessage(`"z"`))
				return err
			},
			"{\n  // c\n  \"a\": 1,\n  \"a\": /* x */ \"z\"\n}\n"},
		{"remove the first member", `{"a": 1, "b": 2}`, false,
			func(e *Editor) error { _, err := e.RemoveMember(e.Top(), "a"); return err },
			`{"b": 2}`},
		{"remove the last member", "{\n  \"a\": 1,\n  \"b\": 2\n}", false,
			func(e *Editor) error { _, err := e.RemoveMember(e.Top(), "b"); return err },
			"{\n  \"a\": 1\n}"},
		{"remove the only element", `{"a": [1]}`, false,
			func(e *Editor) error {
				a, _, err := e.Member(e.Top(), "a")
				if err != nil {
					return err
				}
				elems, err := e.Elements(a)
				e.RemoveElement(a, elems, 0)
				return err
			},
			`{"a": []}`},
	} {
		e, err := NewEditor([]byte(tc.in), tc.comments)
		if err != nil {
			t.Errorf("%s: NewEditor(%q): %v", tc.name, tc.in, err)
			continue
		}
		if err := tc.edit(e); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := string(e.Apply()); got != tc.want || !e.Changed() {
			t.Errorf("%s: %q became %q (changed %v), want %q", tc.name, tc.in, got, e.Changed(), tc.want)
		}
	}
	for _, in := range []string{"", " \n", "[]", "{} // c", `{"a":}`} {
		if _, err := NewEditor([]byte(in), false); err == nil {
			t.Errorf("NewEditor(%q): no error", in)
		}
	}
}

func TestAfterComments(t *testing.T) {
	t.Parallel()
	obj := json.RawMessage(`{"a":1}`)
	for _, tc := range []struct{ in, want string }{
		{"", "{\n  \"a\": 1\n}\n"},
		{"// mine", "// mine\n{\n  \"a\": 1\n}\n"},
		{"// crlf\r\n", "// crlf\r\n{\r\n  \"a\": 1\r\n}\r\n"},
	} {
		if got := string(AfterComments([]byte(tc.in), obj)); got != tc.want {
			t.Errorf("AfterComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsBlankIsEmptyObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in                  string
		blank, blankWithout bool
		emptyObject         bool
	}{
		{" \n", true, true, false},
		{"// c\n/* d */", true, false, false},
		{" { \n } ", false, false, true},
		{"{} // c", false, false, false},
		{`{"a":1}`, false, false, false},
	} {
		if got := IsBlank([]byte(tc.in), true); got != tc.blank {
			t.Errorf("IsBlank(%q, comments) = %v", tc.in, got)
		}
		if got := IsBlank([]byte(tc.in), false); got != tc.blankWithout {
			t.Errorf("IsBlank(%q, no comments) = %v", tc.in, got)
		}
		if got := IsEmptyObject([]byte(tc.in)); got != tc.emptyObject {
			t.Errorf("IsEmptyObject(%q) = %v", tc.in, got)
		}
	}
}
