package conform

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/expectations"
)

// LoadExpectations reads the expectations file (none when "") and checks that
// an existing update target parses, before anything runs: a grammar error
// names the file and the line instead of surprising at the end of a long
// run.
func LoadExpectations(file, update string) (*expectations.Expectations, error) {
	var exp *expectations.Expectations
	if file != "" {
		var err error
		if exp, err = expectations.Load(file); err != nil {
			return nil, err
		}
	}
	if update != "" && update != file {
		if _, err := readExpectations(update); err != nil {
			return nil, fmt.Errorf("--update-expectations: %w", err)
		}
	}
	return exp, nil
}

// readExpectations loads an existing expectations file, or returns nil when there
// is none yet.
func readExpectations(path string) (*expectations.Expectations, error) {
	exp, err := expectations.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return exp, err
}

// Reports say where a run's results go.
type Reports struct {
	Outputs report.Outputs
	Options report.Options
	// UpdateExpectations, when set, is rewritten to accept the run.
	UpdateExpectations string
}

// Write applies the expectations to run (so every report renders expected
// failures), then writes every report and the updated expectations file. Every
// file is written even when another fails; the errors are joined.
func (r Reports) Write(run *report.Run, exp *expectations.Expectations, stdout io.Writer) error {
	expectations.Apply(run, exp)
	errs := []error{report.Write(r.Outputs, *run, r.Options, stdout)}
	if r.UpdateExpectations != "" {
		errs = append(errs, updateExpectations(r.UpdateExpectations, *run))
	}
	return errors.Join(errs...)
}

// updateExpectations rewrites path to accept run: the hosts that ran get their
// current failures, the file's other hosts are kept as they were.
func updateExpectations(path string, run report.Run) error {
	prev, err := readExpectations(path)
	if err != nil {
		return fmt.Errorf("--update-expectations: %w", err)
	}
	data, err := expectations.Update(prev, run)
	if err != nil {
		return fmt.Errorf("--update-expectations %s: %w", path, err)
	}
	return report.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
