// Command mcpconform checks whether an MCP Apps host implements the host side
// of the MCP Apps extension, by driving the real host in a browser and
// running a conformance suite inside the app iframe.
//
// main stays thin: it runs the CLI and maps the error to an exit code after
// every deferred cleanup has run.
package main

import (
	"errors"
	"fmt"
	"os"
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

func main() {
	err := newApp().Run(os.Args)
	code := exitCode(err)
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.err != nil) {
		fmt.Fprintln(os.Stderr, "mcpconform:", err)
	}
	os.Exit(code)
}
