package report

import (
	"bytes"
	"io"
	"testing"
)

// render writes r with write (WriteTAP, WriteJSON, WriteMarkdown) and
// returns what it wrote; an error fails the test.
func render(t *testing.T, write func(io.Writer, Run) error, r Run) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return &buf
}

// renderJUnit is render for WriteJUnit, which takes options.
func renderJUnit(t *testing.T, r Run, opts JUnitOptions) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r, opts); err != nil {
		t.Fatal(err)
	}
	return &buf
}
