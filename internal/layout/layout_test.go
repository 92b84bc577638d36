package layout

import (
	"go/build/constraint"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// systems are the systems pbwrap supports, and the spelling of each set
// of them a file's name and build constraint may stand for.
var systems = []string{"darwin", "freebsd", "linux"}

// suffixes maps a file name's platform suffix to the systems it builds
// on; "other" is every system its siblings do not build on.
var suffixes = map[string][]string{
	"unix":    {"darwin", "freebsd", "linux"},
	"bsd":     {"darwin", "freebsd"},
	"linux":   {"linux"},
	"darwin":  {"darwin"},
	"freebsd": {"freebsd"},
}

var suffixRE = regexp.MustCompile(`_(unix|bsd|linux|darwin|freebsd|other)(_test)?\.go$`)

// One spelling per platform set: a file builds on a set of systems only
// when its name says so (_unix.go, _bsd.go, _linux.go, _darwin.go,
// _freebsd.go, and _other.go for the systems its siblings leave out), and
// its build constraint then says exactly that set, spelt one way. A file
// without such a suffix builds everywhere (its constraint may name tags,
// never a system), so what a reader sees in the name is what builds.
func TestBuildConstraints(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files under %s: not the repository", len(files), root)
	}
	for _, f := range files {
		expr := buildLine(t, f)
		m := suffixRE.FindStringSubmatch(filepath.Base(f))
		want, named := []string(nil), m != nil
		if named {
			want = suffixes[m[1]]
			if m[1] == "other" {
				want = otherSystems(t, f)
			}
		}
		got := buildsOn(expr)
		if named && len(want) == 1 && want[0] != "windows" {
			// The name alone constrains a _linux.go file: its constraint
			// may name tags, and no system.
			if expr != nil && mentionsSystem(expr) {
				t.Errorf("%s: constraint %q names a system its name already gives", f, expr.String())
			}
			continue
		}
		switch {
		case !named && got != nil:
			t.Errorf("%s builds only on %v but its name does not say so: name it _unix.go, _bsd.go, _linux.go ...", f, got)
		case named && !slices.Equal(got, want):
			t.Errorf("%s builds on %v, want %v as its name says", f, got, want)
		case named && expr != nil && mentionsSystem(expr) && !spelt(expr, want):
			t.Errorf("%s: constraint %q, want the systems spelt %q", f, expr.String(), spelling(want))
		}
	}
}

// buildLine returns the file's //go:build constraint, or nil.
func buildLine(t *testing.T, f string) constraint.Expr {
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "package ") {
			break
		}
		if constraint.IsGoBuild(line) {
			expr, err := constraint.Parse(line)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			return expr
		}
	}
	return nil
}

// buildsOn returns the systems, of those pbwrap supports and one it does
// not ("windows"), the file builds on with some choice of other tags, nil
// when that is all of them. A _linux.go name is a constraint of its own.
func buildsOn(expr constraint.Expr) []string {
	var on []string
	all := append(slices.Clone(systems), "windows")
	for _, goos := range all {
		if expr == nil || satisfiable(expr, goos) {
			on = append(on, goos)
		}
	}
	if len(on) == len(all) {
		return nil
	}
	return on
}

// satisfiable reports whether expr holds for goos with some setting of
// the tags that are not systems.
func satisfiable(expr constraint.Expr, goos string) bool {
	var tags []string
	collect(expr, &tags)
	for mask := 0; mask < 1<<len(tags); mask++ {
		if expr.Eval(func(tag string) bool {
			if isSystem(tag) {
				return tag == goos || tag == "unix" && goos != "windows"
			}
			i := slices.Index(tags, tag)
			return mask&(1<<i) != 0
		}) {
			return true
		}
	}
	return false
}

func collect(expr constraint.Expr, tags *[]string) {
	switch e := expr.(type) {
	case *constraint.TagExpr:
		if !isSystem(e.Tag) && !slices.Contains(*tags, e.Tag) {
			*tags = append(*tags, e.Tag)
		}
	case *constraint.NotExpr:
		collect(e.X, tags)
	case *constraint.AndExpr:
		collect(e.X, tags)
		collect(e.Y, tags)
	case *constraint.OrExpr:
		collect(e.X, tags)
		collect(e.Y, tags)
	}
}

func isSystem(tag string) bool {
	return slices.Contains(systems, tag) || tag == "unix" || tag == "windows" || tag == "openbsd" || tag == "netbsd"
}

func mentionsSystem(expr constraint.Expr) bool {
	var found bool
	var walk func(constraint.Expr)
	walk = func(e constraint.Expr) {
		switch e := e.(type) {
		case *constraint.TagExpr:
			found = found || isSystem(e.Tag)
		case *constraint.NotExpr:
			walk(e.X)
		case *constraint.AndExpr:
			walk(e.X)
			walk(e.Y)
		case *constraint.OrExpr:
			walk(e.X)
			walk(e.Y)
		}
	}
	walk(expr)
	return found
}

// spelling is the one way a set of systems is spelt.
func spelling(on []string) string {
	if slices.Contains(on, "windows") {
		var not []string
		for _, s := range systems {
			if !slices.Contains(on, s) {
				not = append(not, "!"+s)
			}
		}
		return strings.Join(not, " && ")
	}
	return strings.Join(on, " || ")
}

// spelt reports whether the systems in expr are spelt as spelling says:
// the constraint contains that text, whole.
func spelt(expr constraint.Expr, on []string) bool {
	s, want := expr.String(), spelling(on)
	return s == want || strings.Contains(s, "("+want+")") || strings.HasPrefix(s, want+" && ") || strings.HasSuffix(s, " && "+want)
}

// otherSystems are the systems an _other.go file stands for: those its
// siblings (the same name with another platform suffix) do not build on,
// and the unsupported ones.
func otherSystems(t *testing.T, f string) []string {
	base := suffixRE.ReplaceAllString(filepath.Base(f), "")
	test := strings.HasSuffix(f, "_test.go")
	sibs, err := filepath.Glob(filepath.Join(filepath.Dir(f), base+"_*.go"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, s := range sibs {
		m := suffixRE.FindStringSubmatch(filepath.Base(s))
		if m == nil || m[1] == "other" || (m[2] != "") != test || suffixRE.ReplaceAllString(filepath.Base(s), "") != base {
			continue
		}
		for _, goos := range suffixes[m[1]] {
			covered[goos] = true
		}
	}
	var on []string
	for _, goos := range append(slices.Clone(systems), "windows") {
		if !covered[goos] {
			on = append(on, goos)
		}
	}
	return on
}
