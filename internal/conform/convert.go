package conform

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// Convert is `mcpconform report`: results saved by `run --json` written
// again in other formats, without running anything.
type Convert struct {
	// From are the saved results ("-" is Stdin); Compare, earlier
	// results the HTML page marks regressions and fixes against.
	From, Compare []string
	// Outputs are the reports to write, by format.
	Outputs report.Outputs
	// Expectations, when set, replaces the expectations the results carry.
	Expectations string
	// Merge combines results of the same host (shards) into one.
	Merge           bool
	AttachmentsRoot string
	Stdin           io.Reader // nil: os.Stdin
	Stdout          io.Writer
}

// Write reads the results and writes every report. Bad input (no
// results, no report, a bad report path or file) is a *UsageError; any
// other error is a report that could not be written.
func (cv Convert) Write() error {
	switch {
	case len(cv.From) == 0:
		return &UsageError{Err: errors.New("report needs --from FILE (the results written by mcpconform run --json)")}
	case len(cv.Outputs) == 0:
		return &UsageError{Err: errors.New("nothing to write: give --junit, --tap, --markdown, --json or --html")}
	}
	if err := cv.Outputs.Check(); err != nil {
		return &UsageError{Err: err}
	}
	// The page takes a host more than once (shards, a newer run to
	// compare); the other formats read the files as one run.
	outs, page := report.Outputs{}, report.Outputs{}
	for name, path := range cv.Outputs {
		if name == "html" {
			page[name] = path
		} else {
			outs[name] = path
		}
	}
	stdin := stdinOnce(cv.Stdin)
	var run, grid report.Run
	var older []report.Run
	var err error
	if len(outs) > 0 {
		if run, err = report.ReadRuns(cv.From, stdin(), cv.Merge); err != nil {
			return &UsageError{Err: err}
		}
	}
	if len(page) > 0 {
		if grid, older, err = report.ReadHTMLRuns(cv.From, cv.Compare, stdin); err != nil {
			return &UsageError{Err: err}
		}
	}
	if cv.Expectations != "" {
		exp, err := expectations.Load(cv.Expectations)
		if err != nil {
			return &UsageError{Err: err}
		}
		expectations.Apply(&run, exp)
		expectations.Apply(&grid, exp)
	}
	opts := report.Options{JUnit: report.JUnitOptions{AttachmentsRoot: cv.AttachmentsRoot},
		HTML: report.HTMLOptions{Compare: older, EvidenceDirs: report.EvidenceDirs(cv.From, cv.Compare)}}
	if err := errors.Join(report.Write(outs, run, opts, cv.Stdout), report.Write(page, grid, opts, cv.Stdout)); err != nil {
		return fmt.Errorf("writing reports: %w", err)
	}
	return nil
}

// stdinOnce lets --from - be read by both the other formats and --html:
// each call gives a reader of the same bytes, read from r (stdin when nil)
// only when one of them is first read, so a terminal is never waited on
// when no --from is -.
func stdinOnce(r io.Reader) func() io.Reader {
	if r == nil {
		r = os.Stdin
	}
	var once sync.Once
	var data []byte
	load := func() []byte {
		once.Do(func() { data, _ = io.ReadAll(r) })
		return data
	}
	return func() io.Reader { return &lazyReader{load: load} }
}

type lazyReader struct {
	load func() []byte
	r    *bytes.Reader
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.r == nil {
		l.r = bytes.NewReader(l.load())
	}
	return l.r.Read(p)
}
