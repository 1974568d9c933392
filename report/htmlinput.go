package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// ReadHTMLRuns reads the --from files of `report --html`. Unlike the other
// formats, the page takes the same host more than once:
//
//   - files whose checks of a host do not overlap are the shards of one
//     run and merge as with --merge;
//   - a file that repeats a check of a host already read is a newer run of
//     that host (a later --from is newer): it becomes the host's column,
//     and the run before it is what the page compares the column with.
//
// compare (--compare, merged as with --merge) comes first in the returned
// older runs, so it wins over a repeated --from. stdin gives a reader of
// standard input each time one is needed ("-" may be read more than once).
func ReadHTMLRuns(froms, compare []string, stdin func() io.Reader) (cur Run, older []Run, err error) {
	if len(compare) > 0 {
		old, err := ReadRuns(compare, stdin(), true)
		if err != nil {
			return cur, nil, fmt.Errorf("--compare: %w", err)
		}
		older = append(older, old)
	}
	var order []string               // hosts in the order first read
	layers := map[string][]HostRun{} // per host, its runs, oldest first
	var baselines []string
	for i, from := range froms {
		r, err := ReadRuns([]string{from}, stdin(), false)
		if err != nil {
			return cur, nil, err
		}
		if i == 0 {
			cur.Tool, cur.Version = r.Tool, r.Version
		}
		if r.Expectations != "" && !slices.Contains(baselines, r.Expectations) {
			baselines = append(baselines, r.Expectations)
		}
		for _, h := range r.Hosts {
			ls := layers[h.Host]
			if len(ls) == 0 {
				order = append(order, h.Host)
			}
			if n := len(ls); n > 0 && disjoint(ls[n-1], h) {
				m := Run{Hosts: []HostRun{ls[n-1]}}
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
	var prev Run
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
	cur.Expectations = strings.Join(baselines, ", ")
	if len(prev.Hosts) > 0 {
		older = append(older, prev)
	}
	return cur, older, nil
}

// disjoint reports whether two runs of a host share no check.
func disjoint(a, b HostRun) bool {
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

// EvidenceDirs are where the page looks for evidence recorded with a
// relative path: the current directory, then each results file's.
func EvidenceDirs(froms ...[]string) []string {
	dirs := []string{"."}
	for _, list := range froms {
		for _, f := range list {
			if f == "-" {
				continue
			}
			if d := filepath.Dir(f); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}
