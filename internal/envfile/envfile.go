// Package envfile reads one line of an environment file, such as pbwrap's
// config file, as people write them for a shell's startup files, systemd's
// EnvironmentFile or a .env file: a NAME=VALUE assignment, quoted and
// expanded as a POSIX shell reads an assignment, within one line.
//
// The grammar of a line:
//
//   - A blank line, or one whose first character after blanks (spaces and
//     tabs) is #, is a comment and sets nothing.
//   - Otherwise: blanks, an optional "export" and blanks, NAME, blanks, =,
//     blanks, VALUE, blanks, and an optional comment: a # after a blank,
//     outside quotes, to the end of the line. NAME is a shell name
//     ([A-Za-z_][A-Za-z0-9_]*).
//   - VALUE is read as the shell reads a word, except that the blanks
//     inside it are kept (PBWRAP_REF_FORMAT=[saved: {path}] needs no
//     quotes) and those around it are not: 'single quotes' keep every
//     character as it is; in "double quotes" a backslash escapes \ " $ and
//     ` and is itself otherwise; outside quotes a backslash keeps the next
//     character as it is. Quoted and unquoted parts join, as in the shell
//     ("a"'b'c is abc).
//   - $NAME and ${NAME}, outside single quotes, are the environment's
//     value of NAME, which must be set and not empty (a path built from an
//     unset variable would silently be another path). A $ not followed by
//     a name or { is itself. $( and `, command substitution, are refused.
//   - ~ outside quotes, at the start of the value or after a :, and
//     followed by /, :, a blank or the end, is $HOME (as a shell expands it
//     in an assignment, so PBWRAP_HOOK_ALLOW=~/src:~/notes works). ~user
//     is kept as it is.
//   - A carriage return at the end of the line (a file written on
//     Windows) is dropped. A value never holds a newline: a quote left
//     open at the end of the line is an error, as is a backslash there.
//
// Parse is a state machine over the line's bytes, its state in a struct;
// it has no I/O and no clock, and its only view of the environment is the
// Lookup it is given.
package envfile

import (
	"fmt"
	"strings"
)

// A Lookup returns the value of an environment variable, and whether it
// is set (os.LookupEnv).
type Lookup func(name string) (string, bool)

// An Error says why a line was refused. Name is the name the line assigns
// to, as far as it was read (it may not be a valid name): enough for the
// caller to say "did you mean".
type Error struct {
	Name string
	Col  int // 1-based byte offset at which the problem was found
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Parse reads one line of an environment file (without its newline). It
// returns the name and value it assigns; name is "" for a blank or comment
// line. lookup gives the variables $NAME, ${NAME} and ~ ($HOME) expand to;
// a nil lookup knows of none.
func Parse(line string, lookup Lookup) (name, value string, err error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	line = strings.TrimSuffix(line, "\r")
	p := parser{lookup: lookup, state: lead}
	for p.pos = 0; p.pos < len(line); p.pos++ {
		if p.step(line[p.pos]) {
			break
		}
	}
	p.pos = len(line)
	p.end()
	if p.err != nil {
		return p.name.String(), "", p.err
	}
	return p.name.String(), p.value.String(), nil
}

// The parser's states.
type state int

const (
	lead       state = iota // blanks before the name (or export)
	name                    // in the name
	badName                 // in a name that holds a byte no name may
	afterName               // blanks after the name, before =
	valueStart              // blanks after =
	unquoted                // in the value, outside quotes
	blanks                  // blanks in the value, kept only if more of the value follows
	escape                  // after a backslash outside quotes
	single                  // inside '...'
	double                  // inside "..."
	doubleEsc               // after a backslash inside "..."
	dollar                  // after a $ (outside single quotes)
	varName                 // in $NAME
	braceOpen               // after ${
	braceName               // in ${NAME
	tilde                   // after a ~ where it may stand for $HOME
	comment                 // the rest of the line is a comment
	failed                  // an error was found
)

// parser is the state of one line's reading.
type parser struct {
	lookup Lookup
	state  state
	pos    int // of the byte being read

	name     strings.Builder
	exported bool // the line began with "export"
	value    strings.Builder
	held     strings.Builder // blanks in the value, or a variable's name, being read
	inDouble bool            // the $ being read is inside double quotes
	// tildeOK: a ~ here, outside quotes, may stand for $HOME: at the
	// start of the value or after a :.
	tildeOK     bool
	blankBefore bool // a blank came between the = and the value
	err         *Error
}

func isBlank(c byte) bool     { return c == ' ' || c == '\t' }
func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || c >= '0' && c <= '9' }

// fail stops the parse with an error at the current byte.
func (p *parser) fail(format string, args ...any) {
	p.err = &Error{Name: p.name.String(), Col: p.pos + 1, Msg: fmt.Sprintf(format, args...)}
	p.state = failed
}

// step reads the byte c and reports whether the rest of the line is to be
// skipped (a comment, or an error).
func (p *parser) step(c byte) (done bool) {
	switch p.state {
	case lead:
		switch {
		case isBlank(c):
		case c == '#':
			p.state = comment
		case isNameStart(c):
			p.name.WriteByte(c)
			p.state = name
		default:
			p.name.WriteByte(c)
			p.state = badName
		}
	case name:
		switch {
		case isNameByte(c):
			p.name.WriteByte(c)
		case c == '=':
			p.state, p.tildeOK = valueStart, true
		case isBlank(c):
			p.state = afterName
		default:
			p.name.WriteByte(c)
			p.state = badName
		}
	case badName:
		if c == '=' || isBlank(c) {
			p.failName()
			break
		}
		p.name.WriteByte(c)
	case afterName:
		switch {
		case isBlank(c):
		case c == '=':
			p.state, p.tildeOK = valueStart, true
		case p.name.String() == "export" && !p.exported && isNameStart(c):
			p.exported = true
			p.name.Reset()
			p.name.WriteByte(c)
			p.state = name
		default:
			p.fail("want NAME=VALUE: no = after %s", p.name.String())
		}
	case valueStart:
		if isBlank(c) {
			p.blankBefore = true
			break
		}
		if c == '#' && p.blankBefore { // "NAME= # comment": nothing, and a comment.
			p.state = comment
			break
		}
		p.state = unquoted
		p.unquoted(c)
	case unquoted:
		p.unquoted(c)
	case blanks:
		switch {
		case isBlank(c):
			p.held.WriteByte(c)
		case c == '#':
			p.state = comment
		default:
			p.value.WriteString(p.held.String())
			p.held.Reset()
			p.state = unquoted
			p.unquoted(c)
		}
	case escape:
		p.value.WriteByte(c)
		p.state = unquoted
	case single:
		if c == '\'' {
			p.state = unquoted
		} else {
			p.value.WriteByte(c)
		}
	case double:
		switch c {
		case '"':
			p.state = unquoted
		case '\\':
			p.state = doubleEsc
		case '$':
			p.inDouble, p.state = true, dollar
		case '`':
			p.fail("command substitution (`) is not supported; quote the ` with a backslash or in single quotes")
		default:
			p.value.WriteByte(c)
		}
	case doubleEsc:
		if !strings.ContainsRune("\\\"$`", rune(c)) {
			p.value.WriteByte('\\')
		}
		p.value.WriteByte(c)
		p.state = double
	case dollar:
		p.dollar(c)
	case varName:
		if isNameByte(c) {
			p.held.WriteByte(c)
			break
		}
		p.expand()
		p.resume(c)
	case braceOpen:
		if !isNameStart(c) {
			p.fail("bad substitution: want ${NAME}")
			break
		}
		p.held.WriteByte(c)
		p.state = braceName
	case braceName:
		switch {
		case isNameByte(c):
			p.held.WriteByte(c)
		case c == '}':
			p.expand()
			p.state = p.afterDollar()
		default:
			p.fail("bad substitution: want ${NAME} (no defaults or other forms)")
		}
	case tilde:
		if c == '/' || c == ':' || isBlank(c) {
			p.home()
		} else {
			p.value.WriteByte('~')
		}
		p.state = unquoted
		p.unquoted(c)
	}
	return p.state == comment || p.state == failed
}

// failName fails on a name that holds a byte no name may, keeping it
// whole, up to the = or a blank, for the caller to suggest a name for.
func (p *parser) failName() {
	p.fail("want NAME=VALUE: %q is not a variable name (letters, digits and _)", p.name.String())
}

// unquoted reads c in the value outside quotes.
func (p *parser) unquoted(c byte) {
	tildeOK := p.tildeOK
	p.tildeOK = false
	switch {
	case isBlank(c):
		p.held.WriteByte(c)
		p.state = blanks
	case c == '\'':
		p.state = single
	case c == '"':
		p.state = double
	case c == '\\':
		p.state = escape
	case c == '$':
		p.inDouble, p.state = false, dollar
	case c == '`':
		p.fail("command substitution (`) is not supported; quote the ` with a backslash or in single quotes")
	case c == '~' && tildeOK:
		p.state = tilde
	case c == ':':
		p.value.WriteByte(c)
		p.tildeOK = true
	default:
		p.value.WriteByte(c)
	}
}

// dollar reads the byte after a $.
func (p *parser) dollar(c byte) {
	switch {
	case c == '{':
		p.state = braceOpen
	case c == '(':
		p.fail("command substitution ($(...)) is not supported; quote the $ with a backslash or in single quotes")
	case isNameStart(c):
		p.held.WriteByte(c)
		p.state = varName
	default: // A $ that starts nothing is itself, as in the shell.
		p.value.WriteByte('$')
		p.resume(c)
	}
}

// afterDollar is the state a substitution returns to.
func (p *parser) afterDollar() state {
	if p.inDouble {
		return double
	}
	return unquoted
}

// resume reads c, which ended a $ or $NAME, in the state around it.
func (p *parser) resume(c byte) {
	if p.state == failed {
		return
	}
	p.state = p.afterDollar()
	p.step(c)
}

// expand writes the value of the variable whose name is held.
func (p *parser) expand() {
	v := p.held.String()
	p.held.Reset()
	val, ok := p.lookup(v)
	if !ok || val == "" {
		p.fail("$%s is not set (or empty)", v)
		return
	}
	p.value.WriteString(val)
}

// home writes $HOME for a ~.
func (p *parser) home() {
	val, ok := p.lookup("HOME")
	if !ok || !strings.HasPrefix(val, "/") {
		p.fail("~ stands for $HOME, which is not set to an absolute path")
		return
	}
	p.value.WriteString(val)
}

// end reads the end of the line.
func (p *parser) end() {
	switch p.state {
	case lead, comment, failed:
	case badName:
		p.failName()
	case name, afterName:
		if p.name.String() == "export" && !p.exported {
			p.fail("want NAME=VALUE after export")
			break
		}
		p.fail("want NAME=VALUE: no = after %s", p.name.String())
	case valueStart, unquoted, blanks:
	case escape:
		p.fail("a backslash at the end of the line: a value is one line")
	case single:
		p.fail("a single quote is not closed on this line")
	case double, doubleEsc:
		p.fail("a double quote is not closed on this line")
	case dollar:
		p.value.WriteByte('$')
		p.state = p.afterDollar()
		p.end()
	case varName:
		p.expand()
		if p.state != failed {
			p.state = p.afterDollar()
			p.end()
		}
	case braceOpen, braceName:
		p.fail("bad substitution: ${ is not closed")
	case tilde:
		p.home()
	}
}
