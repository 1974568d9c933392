package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/report"
)

// htmlRuns reads the --from files of `report --html`. Unlike the other
// formats, the page takes the same host more than once:
//
//   - files whose checks of a host do not overlap are the shards of one
//     run and merge as with --merge (mergeHost);
//   - a file that repeats a check of a host already read is a newer run of
//     that host (later --from is newer): it becomes the host's column and
//     the run before it what the page compares the column with.
//
// compare (--compare, merged like --merge) comes first in the returned
// older runs, so it wins over a repeated --from.
func htmlRuns(froms, compare []string, stdin io.Reader) (cur report.Run, older []report.Run, err error) {
	if stdin == nil {
		stdin = os.Stdin
	}
	if len(compare) > 0 {
		old, err := readRuns(compare, stdin, true)
		if err != nil {
			return cur, nil, fmt.Errorf("--compare: %w", err)
		}
		older = append(older, old)
	}
	var order []string                      // hosts in the order first read
	layers := map[string][]report.HostRun{} // per host, its runs, oldest first
	var baselines []string
	for i, from := range froms {
		r, err := readRuns([]string{from}, stdin, false)
		if err != nil {
			return cur, nil, err
		}
		if i == 0 {
			cur.Tool, cur.Version = r.Tool, r.Version
		}
		if r.Baseline != "" && !contains(baselines, r.Baseline) {
			baselines = append(baselines, r.Baseline)
		}
		for _, h := range r.Hosts {
			ls := layers[h.Host]
			if len(ls) == 0 {
				order = append(order, h.Host)
			}
			if n := len(ls); n > 0 && disjoint(ls[n-1], h) {
				m := report.Run{Hosts: []report.HostRun{ls[n-1]}}
				if err := mergeHost(&m, h, from); err != nil {
					return cur, nil, err
				}
				ls[n-1] = m.Hosts[0]
			} else {
				ls = append(ls, h)
			}
			layers[h.Host] = ls
		}
	}
	var prev report.Run
	for _, host := range order {
		ls := layers[host]
		h := ls[len(ls)-1]
		cur.Hosts = append(cur.Hosts, h)
		if !h.StartedAt.IsZero() && (cur.StartedAt.IsZero() || h.StartedAt.Before(cur.StartedAt)) {
			cur.StartedAt = h.StartedAt
		}
		if len(ls) > 1 {
			prev.Hosts = append(prev.Hosts, ls[len(ls)-2])
		}
	}
	cur.Baseline = strings.Join(baselines, ", ")
	if len(prev.Hosts) > 0 {
		older = append(older, prev)
	}
	return cur, older, nil
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

// disjoint reports whether two runs of a host share no check.
func disjoint(a, b report.HostRun) bool {
	have := map[string]bool{}
	for _, c := range a.Cases {
		have[c.ID] = true
	}
	for _, c := range b.Cases {
		if have[c.ID] {
			return false
		}
	}
	return true
}

// htmlEvidenceDirs are where the page looks for evidence recorded with a
// relative path: the current directory, then each results file's.
func htmlEvidenceDirs(froms ...[]string) []string {
	dirs := []string{"."}
	for _, list := range froms {
		for _, f := range list {
			if f == "-" {
				continue
			}
			if d := filepath.Dir(f); !contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// writeHTMLReport writes the page for `report --html`.
func writeHTMLReport(w io.Writer, run report.Run, older []report.Run, dirs []string) error {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, run, report.HTMLOptions{Compare: older, EvidenceDirs: dirs}); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
