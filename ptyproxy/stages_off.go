//go:build linux && !pbwrap_stages

package ptyproxy

// The marks of the lane's steps, recorded with the build tag
// pbwrap_stages (see stages_on.go), and nothing without it.

func stageWake()       {}
func stageReadStart()  {}
func stageReadEnd()    {}
func stageWriteStart() {}
func stageWriteEnd()   {}
func stageStep(int)    {}
