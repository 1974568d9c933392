// Command mcpconform checks whether an MCP Apps host implements the host side
// of the MCP Apps extension, by driving the real host in a browser and
// running a conformance suite inside the app iframe.
//
// Package main holds the flags, the help text and the exit codes; the
// orchestration is internal/session, the benchmark internal/bench, the
// reports package report.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	ExitOK       = 0 // every selected test passed
	ExitFailures = 1 // at least one check failed
	ExitUsage    = 2 // bad flags, environment or input
	ExitInfra    = 3 // browser, host or suite trouble: the host could not be judged
	ExitNoTests  = 4 // nothing ran
	ExitSIGINT   = 130
	ExitSIGTERM  = 143
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitInfra
}

func usage(err error) error { return &exitError{code: ExitUsage, err: err} }

// usageOrInfra is what a command returns for err, the error of the package
// it calls: a *U (that package's UsageError) is a usage error with its
// cause, any other error trouble running (ExitInfra), nil success.
func usageOrInfra[U any, P interface {
	*U
	error
	Unwrap() error
}](err error) error {
	var ue P
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return usage(ue.Unwrap())
	}
	return &exitError{code: ExitInfra, err: err}
}

// untilSignal is ctx, ended by SIGINT or SIGTERM.
func untilSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// run is the whole CLI in this process: it runs the command in args (the
// program name excluded) and maps the error to an exit code after every
// deferred cleanup has run.
func run(args []string, stdout, stderr io.Writer) int { return runIO(args, os.Stdin, stdout, stderr) }

// runIO is run reading standard input from stdin.
func runIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp()
	app.Reader, app.Writer, app.ErrWriter = stdin, stdout, stderr
	err := app.Run(append([]string{"mcpconform"}, args...))
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.err != nil) {
		fmt.Fprintln(stderr, "mcpconform:", err)
	}
	return exitCode(err)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
