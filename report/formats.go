package report

import (
	"github.com/mcpconform/mcpconform/internal/atomicfile"

	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Format is one report format, by the name its flag carries.
type Format struct {
	// Name is the flag and the format's name: junit, tap, json, markdown, html.
	Name string
	// File is the file name the format gets in a reports directory.
	File string
	// Write renders a finished run.
	Write func(w io.Writer, r Run, o Options) error
}

// Options are the writers' settings.
type Options struct {
	JUnit JUnitOptions
	HTML  HTMLOptions
}

// Formats is every report format, in the order they are written.
var Formats = []Format{
	{Name: "junit", File: "junit.xml", Write: func(w io.Writer, r Run, o Options) error { return WriteJUnit(w, r, o.JUnit) }},
	{Name: "tap", File: "results.tap", Write: func(w io.Writer, r Run, _ Options) error { return WriteTAP(w, r) }},
	{Name: "json", File: "results.json", Write: func(w io.Writer, r Run, _ Options) error { return WriteJSON(w, r) }},
	{Name: "markdown", File: "summary.md", Write: func(w io.Writer, r Run, _ Options) error { return WriteMarkdown(w, r) }},
	{Name: "html", File: "report.html", Write: func(w io.Writer, r Run, o Options) error { return WriteHTML(w, r, o.HTML) }},
}

// FormatNames lists the formats' names.
func FormatNames() []string {
	n := make([]string, len(Formats))
	for i, f := range Formats {
		n[i] = f.Name
	}
	return n
}

// Stdout is the path that means standard output.
const Stdout = "-"

// Outputs maps a format name to the path it is written to ("-" for
// standard output); formats not in the map are not written.
type Outputs map[string]string

// OutputsOf is paths without the formats whose path is empty (not asked
// for).
func OutputsOf(paths map[string]string) Outputs {
	o := Outputs{}
	for name, path := range paths {
		if path != "" {
			o[name] = path
		}
	}
	return o
}

// Check refuses unknown formats and more than one format on stdout.
func (o Outputs) Check() error {
	onStdout := 0
	for name, path := range o {
		if _, ok := formatByName(name); !ok {
			return fmt.Errorf("unknown report format %q: use one of %s", name, strings.Join(FormatNames(), ", "))
		}
		if path == Stdout {
			onStdout++
		}
	}
	if onStdout > 1 {
		return errors.New("only one report can go to stdout (-)")
	}
	return nil
}

// ToStdout reports whether a report goes to standard output (the console
// then writes to stderr).
func (o Outputs) ToStdout() bool {
	for _, p := range o {
		if p == Stdout {
			return true
		}
	}
	return false
}

// InDir writes every format into dir under its File name.
func InDir(dir string) Outputs {
	o := Outputs{}
	for _, f := range Formats {
		o[f.Name] = filepath.Join(dir, f.File)
	}
	return o
}

func formatByName(name string) (Format, bool) {
	for _, f := range Formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// Write writes every output of o: "-" to stdout, anything else to a file,
// atomically. Every report is written even when another fails; the errors
// are joined.
func Write(o Outputs, r Run, opts Options, stdout io.Writer) error {
	if err := o.Check(); err != nil {
		return err
	}
	var errs []error
	for _, f := range Formats {
		path, ok := o[f.Name]
		switch {
		case !ok || path == "":
		case path == Stdout:
			errs = append(errs, f.Write(stdout, r, opts))
		default:
			errs = append(errs, WriteFile(path, func(w io.Writer) error { return f.Write(w, r, opts) }))
		}
	}
	return errors.Join(errs...)
}

// WriteFile writes atomically: a crash mid-write never leaves half a
// report. Missing directories are created.
func WriteFile(name string, write func(io.Writer) error) error {
	return atomicfile.Write(name, 0o644, 0o755, write)
}
