//go:build darwin || freebsd

package ptyproxy

import "os"

// lane is Linux's only (see lane_linux.go): elsewhere each direction has a
// goroutine of its own.
type lane struct{}

func (s *session) newLane(chan<- struct{}) *lane { return nil }
func (*lane) run()                               {}
func (*lane) close()                             {}
func (*lane) closed(*os.File)                    {}
