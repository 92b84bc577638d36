// Package ptytest is the end-to-end harness for wrappers of an
// interactive program in a PTY: ptyproxy's own tests, and pbwrap's, which
// run the built binary with its capture filters.
//
// A test is the user's terminal. Start opens a PTY and runs on its slave
// side, as a job of a job-control shell (the leader), a wrapper's command
// line (Job.Wrapper), which runs the recording child. The leader and the
// child are the test binary itself, re-run, as Go's os/signal tests do:
// the test binary's TestMain must call Dispatch first, so that it plays
// them when it is re-run as one of them. They are chosen by environment
// variable, which Start sets:
//
//	PBWRAP_TEST_LEADER=FILE   the leader; it appends what happens to its job to FILE
//	PBWRAP_TEST_CHILD=1       the recording child
//	PBWRAP_TEST_REPORT=FILE   where the child appends what it sees
//	PBWRAP_TEST_INPUT=FILE    where the child's record step copies its input
//	PBWRAP_TEST_SHELL=FILE    where the leader copies what it reads from the
//	                          terminal once the wrapper has ended (Job.Shell)
//
// The recording child runs its arguments as steps, in order. Arguments
// that start with "-" are not steps: they are reported as
// "arg ARG" (pbwrap adds some for known agents).
//
//	raw            put its terminal in raw mode
//	cooked-nosig   keep the terminal cooked (the default); a no-op, for clarity
//	size           report "size ROWS COLS"
//	watch          report signals as "signal NAME" (and sizes on SIGWINCH);
//	               die of TERM, HUP, INT and QUIT once reported
//	redraw         print "REDRAW n ROWSxCOLS" to stdout now and on each
//	               SIGCONT and SIGWINCH
//	record         copy stdin to the input file, in the background
//	record-hold:N  the same as record, but once N bytes have been read stop
//	               reading, and report "holding", until the test resumes it
//	               (Terminal.ResumeChild); then report "resumed"
//	echo           the same as record, and also show it on stdout, with the paste
//	               markers made visible as <200~> and <201~>
//	stdin-tty      report which terminal is on stdin, by device number:
//	               "stdin-tty rdev 0xN" (see StdinTTY), or "stdin-tty none"
//	pid            report "pid PID PPID"
//	env:NAME       report "env NAME=VALUE"
//	print:TEXT     write TEXT and CRLF to stdout
//	bp:on, bp:off  turn bracketed paste on or off, as an editor does
//	               (ESC[?2004h, ESC[?2004l), and report "bp on" or "bp off"
//	seq:NAME       write a named escape sequence (altscreen-bp: ESC[?1049;2004h;
//	               bp-cursor: ESC[?2004;25l)
//	write:QUOTED   write the bytes of the Go string literal QUOTED
//	               ("\x1b[?1049h"), as one write
//	out:N          write N bytes of Pattern to stdout
//	ready          write "READY" CRLF to stdout and report "ready"
//	until-input:N  wait until the input file holds N bytes
//	until-eof      read standard input until a read fails or ends, then
//	               report "input ended: ERROR" (as a program does on a
//	               terminal that hung up)
//	grandchild     start a background grandchild in the same process group,
//	               which reports its own signals, holds the terminal open
//	               and lives for 60 s
//	grandchild:nohup  the same, but one that ignores SIGHUP
//	nohup          ignore SIGHUP
//	sleep:D        sleep for the duration D
//	block          wait forever (until a signal kills it)
//	exit:N         exit with status N
//	die:SIG        kill itself with signal SIG (a number)
//	stop:SIG       stop itself with the signal named SIG (SIGSTOP, SIGTSTP)
//	               sent to its own pid, as Claude Code does, and report
//	               "stopping SIG"; once continued, report "continued" and
//	               go on with the next step
//
// The harness works on Linux, macOS and FreeBSD. Elsewhere Dispatch does
// nothing and the rest is not built.
package ptytest
