// Package layout has no code: its tests check rules of the repository's
// layout that no compiler checks, such as that a file's name says the
// systems it builds on (TestBuildConstraints).
package layout
