//go:build darwin || freebsd || linux

package ptyproxy

import (
	"slices"
	"testing"
)

func TestLastWins(t *testing.T) {
	for _, tc := range []struct{ env, want []string }{
		{nil, nil},
		{[]string{"A=1", "B=2"}, []string{"A=1", "B=2"}},
		{[]string{"A=1", "B=2", "A=3"}, []string{"B=2", "A=3"}},
		{[]string{"A=1", "A=", "B=2", "B=4", "C"}, []string{"A=", "B=4", "C"}},
	} {
		if got := lastWins(tc.env); !slices.Equal(got, tc.want) {
			t.Errorf("lastWins(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
}
