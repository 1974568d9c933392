package report

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// ReadRuns reads results files written by WriteJSON ("-" is stdin) and
// merges them into one run, which starts at the earliest start and lasts
// until the latest end. Without merge a host may appear only once, since
// (classname, name) must stay unique in JUnit; with merge, results of the
// same host (the shards of one run) become one host whose checks are the
// union, and a check present in two files is an error, so nothing is lost
// or doubled.
func ReadRuns(froms []string, stdin io.Reader, merge bool) (Run, error) {
	var merged Run
	where := map[string]string{}
	var baselines []string
	var end time.Time
	for i, from := range froms {
		var r Run
		var err error
		if from == "-" {
			if stdin == nil {
				stdin = os.Stdin
			}
			r, err = ReadJSON(stdin)
		} else {
			var f *os.File
			if f, err = os.Open(from); err == nil {
				r, err = ReadJSON(f)
				f.Close()
			}
		}
		if err != nil {
			return merged, fmt.Errorf("--from %s: %w", from, err)
		}
		var fresh []HostRun
		for _, h := range r.Hosts {
			prev, dup := where[h.Host]
			if dup && !merge {
				return merged, fmt.Errorf("host %q is in both %s and %s: merge results of different hosts only, or pass --merge to combine the shards of one run", h.Host, prev, from)
			}
			where[h.Host] = from
			if dup && i > 0 {
				if err := mergeHost(&merged, h, from); err != nil {
					return merged, err
				}
				continue
			}
			fresh = append(fresh, h)
		}
		r.Hosts = fresh
		if i == 0 {
			merged = r
			merged.Hosts = append([]HostRun(nil), r.Hosts...)
			end = r.StartedAt.Add(r.Duration)
		} else {
			merged.Hosts = append(merged.Hosts, r.Hosts...)
			if merged.StartedAt.IsZero() || r.StartedAt.IsZero() {
				// Without start times the best estimate is the sum.
				merged.Duration += r.Duration
			} else {
				if r.StartedAt.Before(merged.StartedAt) {
					merged.StartedAt = r.StartedAt
				}
				if e := r.StartedAt.Add(r.Duration); e.After(end) {
					end = e
				}
				merged.Duration = end.Sub(merged.StartedAt)
			}
		}
		if r.Expectations != "" && !slices.Contains(baselines, r.Expectations) {
			baselines = append(baselines, r.Expectations)
		}
	}
	merged.Expectations = strings.Join(baselines, ", ")
	return merged, nil
}

// mergeHost adds the checks of shard h to the host of the same name in m.
func mergeHost(m *Run, h HostRun, from string) error {
	for i := range m.Hosts {
		dst := &m.Hosts[i]
		if dst.Host != h.Host {
			continue
		}
		have := map[string]bool{}
		for _, c := range dst.Cases {
			have[c.ID] = true
		}
		for _, c := range h.Cases {
			if have[c.ID] {
				return fmt.Errorf("check %s of host %q is in more than one file (again in %s): the shards overlap", c.ID, h.Host, from)
			}
		}
		dst.Cases = append(dst.Cases, h.Cases...)
		sort.SliceStable(dst.Cases, func(a, b int) bool { return dst.Cases[a].ID < dst.Cases[b].ID })
		dst.Duration += h.Duration
		dst.Absent = append(dst.Absent, h.Absent...)
		if h.Infra != "" {
			dst.Infra = strings.TrimPrefix(dst.Infra+"; "+h.Infra, "; ")
		}
		if len(dst.HostInfo) == 0 {
			dst.HostInfo, dst.HostName, dst.HostVersion = h.HostInfo, h.HostName, h.HostVersion
		}
		if len(dst.Capabilities) == 0 {
			dst.Capabilities = h.Capabilities
		}
		if len(dst.Context) == 0 {
			dst.Context = h.Context
		}
		return nil
	}
	return fmt.Errorf("host %q: nothing to merge into", h.Host)
}

// Gating is the run the pass/fail verdict is judged on. With failOnShould
// false, failures of SHOULD, SHOULD NOT and MAY checks are reported
// everywhere but do not fail the run; MUST failures always do.
func Gating(run Run, failOnShould bool) Run {
	if failOnShould {
		return run
	}
	out := run
	out.Hosts = make([]HostRun, len(run.Hosts))
	for i, h := range run.Hosts {
		h.Cases = nil
		for _, c := range run.Hosts[i].Cases {
			lenient := c.Clause == protocol.ClauseShould || c.Clause == protocol.ClauseShouldNot || c.Clause == protocol.ClauseMay
			if lenient && (c.Status == protocol.StatusFail || c.Status == protocol.StatusTimeout) {
				continue
			}
			h.Cases = append(h.Cases, c)
		}
		out.Hosts[i] = h
	}
	return out
}
