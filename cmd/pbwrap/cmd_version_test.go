package main

import (
	"runtime/debug"
	"testing"
)

// TestCurrentVersion: the Go toolchain's build information gives the
// version, and a release build's -X values replace it.
func TestCurrentVersion(t *testing.T) {
	info := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/pbwrap/pbwrap", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"},
			{Key: "vcs.time", Value: "2026-11-30T20:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	saved := readBuildInfo
	t.Cleanup(func() { readBuildInfo = saved })
	readBuildInfo = func() (*debug.BuildInfo, bool) { return info, true }

	got := currentVersion()
	if got.Version != "v0.3.0" || got.Commit != "0123abcd" || got.Date != "2026-11-30T20:00:00Z" || !got.Modified || got.Go != "go1.26.8" {
		t.Errorf("from build info: got %+v", got)
	}
	if text := got.text(); text != "pbwrap v0.3.0\ncommit 0123abcd (modified)\ncommit date 2026-11-30T20:00:00Z\ngo1.26.8 "+got.OS+"/"+got.Arch+"\n" {
		t.Errorf("text:\n%s", text)
	}

	t.Cleanup(func() { version, commit, date = "", "", "" })
	version, commit, date = "1.0.0", "fedc9876", "2026-12-01T10:00:00Z"
	got = currentVersion()
	if got.Version != "v1.0.0" || got.Commit != "fedc9876" || got.Date != "2026-12-01T10:00:00Z" || got.Modified {
		t.Errorf("release build: got %+v", got)
	}

	version = ""
	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	if got := currentVersion(); got.Version != "(devel)" || got.Commit != "" {
		t.Errorf("no build info: got %+v", got)
	}
}
