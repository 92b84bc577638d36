package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// What a release build sets with -ldflags "-X main.version=1.2.0 -X
// main.commit=... -X main.date=...". Left empty, pbwrap version reads the
// same from the build information the Go toolchain records (go install
// module@version records the module's version, a build in a Git checkout
// the commit and its time).
var (
	version string // without the v: 1.2.0
	commit  string
	date    string // the commit's time, RFC 3339
)

var versionCommand = &command{
	name:    "version",
	lenient: true,
	usage:   "version [--json]",
	summary: "print pbwrap's version, the commit and time it was built from, and the Go version",
	help: `The version is the release's, or the module version go install recorded
(v1.2.0, or a pseudo-version for a commit between releases), or (devel) for a
build whose version Go could not tell. The commit is marked (modified) when
the checkout it was built from had changes not committed. --json prints the
same as one JSON object: version, commit, modified, date (the commit's), go,
os and arch (commit and date are empty when unknown).`,
	run:       runVersion,
	flagDecls: []flagDecl{{name: "json"}},
}

// buildVersion is what pbwrap version prints.
type buildVersion struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"`
	Date     string `json:"date"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// readBuildInfo is debug.ReadBuildInfo, a variable for the tests.
var readBuildInfo = debug.ReadBuildInfo

// currentVersion returns pbwrap's version: the values a release build set,
// else what the Go toolchain recorded.
func currentVersion() buildVersion {
	v := buildVersion{Version: "(devel)", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if info, ok := readBuildInfo(); ok {
		v.Go = info.GoVersion
		if info.Main.Version != "" {
			v.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.Date = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		v.Version, v.Commit, v.Date, v.Modified = "v"+version, commit, date, false
	}
	return v
}

// versionString is the version alone, as the manifest records it.
func versionString() string { return currentVersion().Version }

func runVersion(c *command, std *streams, cfg *config, args []string) error {
	fs := c.flags(cfg)
	if err := c.parse(cfg, fs, args, 0); err != nil {
		return err
	}
	asJSON := switchOn(fs, "json")
	v := currentVersion()
	if asJSON {
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	printVersion(std.out)
	return nil
}

// printVersion prints what pbwrap version, pbwrap --version and -v print.
func printVersion(w io.Writer) { fmt.Fprint(w, currentVersion().text()) }

// text is the version as pbwrap version prints it: the version on the
// first line, then what it was built from and with.
func (v buildVersion) text() string {
	s := fmt.Sprintf("pbwrap %s\n", v.Version)
	if v.Commit != "" {
		modified := ""
		if v.Modified {
			modified = " (modified)"
		}
		s += fmt.Sprintf("commit %s%s\n", v.Commit, modified)
	}
	if v.Date != "" {
		s += fmt.Sprintf("commit date %s\n", v.Date)
	}
	return s + fmt.Sprintf("%s %s/%s\n", v.Go, v.OS, v.Arch)
}
