package jsregexp

import "testing"

// JavaScript's escapes as Go must read them.
func TestCompile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		src, s   string
		ic, want bool
	}{
		{`\x`, "x", false, true},            // an identity escape
		{`\x41`, "A", false, true},          // a hex escape
		{`\u00e9`, "é", false, true},        // a unicode escape
		{`^a\sb$`, "a\u00a0b", false, true}, // \s takes no-break space
		{`[\s]`, "\u2028", false, true},     // in a class too
		{`\.env`, ".ENV", true, true},       // the i flag
		{`"file_path":".*\.pem"`, `{"file_path":"/a/k.pem"}`, false, true},
		{`[\b]`, "\b", false, true}, // backspace in a class
	} {
		re, err := Compile(tt.src, tt.ic)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if got := re.MatchString(tt.s); got != tt.want {
			t.Errorf("%q on %q: %v, want %v", tt.src, tt.s, got, tt.want)
		}
	}
	if _, err := Compile(`a(?=b)`, false); err == nil {
		t.Error("lookahead compiled: RE2 has none, and a rule that cannot be read must say so")
	}
}
