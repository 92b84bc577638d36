package main

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct{ old, updated, want string }{
		{"a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"", "x\n", "@@ -0,0 +1,1 @@\n+x\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n"},
		{
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n",
			"@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n@@ -10,3 +11,4 @@\n 10\n 11\n 12\n+13\n",
		},
		{"a\nb\n", "", "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		// What an agent wrote into the file shows escaped, tabs stay, a
		// CRLF file's CR is not shown.
		{"{\r\n\t\"t\": \"\x1b]0;x\a\u202e\xff\"\r\n}\r\n", "{\r\n}\r\n", "@@ -1,3 +1,2 @@\n {\n-\t\"t\": \"\\x1b]0;x\\a\\u202e\\xff\"\n }\n"},
	}
	for _, tt := range tests {
		var old []byte
		if tt.old != "" {
			old = []byte(tt.old)
		}
		got := unifiedDiff("f", old, []byte(tt.updated))
		_, body, _ := strings.Cut(got, "+++ f\n")
		if body != tt.want {
			t.Errorf("unifiedDiff(%q, %q) =\n%s\nwant\n%s", tt.old, tt.updated, body, tt.want)
		}
	}
}

func TestConfirm(t *testing.T) {
	for in, want := range map[string]bool{"y\n": true, "YES\n": true, " yes ": true, "n\n": false, "": false, "yep\n": false} {
		var w strings.Builder
		got, err := confirm(strings.NewReader(in), &w, "Write?")
		if err != nil || got != want {
			t.Errorf("confirm(%q) = %t, %v; want %t", in, got, err, want)
		}
		if w.String() != "Write? [y/N] " {
			t.Errorf("confirm asked %q", w.String())
		}
	}
}
