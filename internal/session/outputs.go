package session

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/baseline"
	"github.com/mcpconform/mcpconform/report"
)

// LoadBaseline reads the expectations file (none when "") and checks that
// an existing update target parses, before anything runs: a grammar error
// names the file and the line instead of surprising at the end of a long
// run.
func LoadBaseline(expectations, update string) (*baseline.Expectations, error) {
	var exp *baseline.Expectations
	if expectations != "" {
		var err error
		if exp, err = baseline.Load(expectations); err != nil {
			return nil, err
		}
	}
	if update != "" && update != expectations {
		if _, err := readBaseline(update); err != nil {
			return nil, fmt.Errorf("--update-baseline: %w", err)
		}
	}
	return exp, nil
}

// readBaseline loads an existing baseline file, or returns nil when there
// is none yet.
func readBaseline(path string) (*baseline.Expectations, error) {
	exp, err := baseline.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return exp, err
}

// Reports say where a run's results go.
type Reports struct {
	Outputs report.Outputs
	Options report.Options
	// UpdateBaseline, when set, is rewritten to accept the run.
	UpdateBaseline string
}

// Write applies the baseline to run (so every report renders expected
// failures), then writes every report and the updated baseline. Every
// file is written even when another fails; the errors are joined.
func (r Reports) Write(run *report.Run, exp *baseline.Expectations, stdout io.Writer) error {
	baseline.Apply(run, exp)
	errs := []error{report.Write(r.Outputs, *run, r.Options, stdout)}
	if r.UpdateBaseline != "" {
		errs = append(errs, updateBaseline(r.UpdateBaseline, *run))
	}
	return errors.Join(errs...)
}

// updateBaseline rewrites path to accept run: the hosts that ran get their
// current failures, the file's other hosts are kept as they were.
func updateBaseline(path string, run report.Run) error {
	prev, err := readBaseline(path)
	if err != nil {
		return fmt.Errorf("--update-baseline: %w", err)
	}
	data, err := baseline.Update(prev, run)
	if err != nil {
		return fmt.Errorf("--update-baseline %s: %w", path, err)
	}
	return report.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
