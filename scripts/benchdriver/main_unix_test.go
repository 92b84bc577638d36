//go:build darwin || freebsd || linux

package main

import (
	"slices"
	"testing"
)

// Each system's script(1) gets the command line it parses, on every
// system.
func TestScriptArgv(t *testing.T) {
	child := []string{"/bin/bench child", "it's", "child-echo"}
	util := []string{"script", "-q", "-c", `'/bin/bench child' 'it'\''s' 'child-echo'`, "/dev/null"}
	bsd := []string{"script", "-q", "/dev/null", "/bin/bench child", "it's", "child-echo"}
	for _, tc := range []struct {
		goos string
		want []string
	}{
		{"linux", util},
		{"darwin", bsd},
		{"freebsd", bsd},
	} {
		if got := scriptArgv(tc.goos, child); !slices.Equal(got, tc.want) {
			t.Errorf("%s: scriptArgv = %q, want %q", tc.goos, got, tc.want)
		}
	}
}
