// Package soak runs hosts again and again and reports what did not repeat:
// a run whose statuses differ from the first run's, a View tools/call the
// host never answered (a stall), a run that ended in an infrastructure
// failure. A verdict is only worth its reproducibility; `mcpconform soak`
// is how that is shown, with the machine loaded on purpose.
package soak

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/internal/conform"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// Case is one thing to soak: a host built with its parameters and reached
// over a bridge, as `mcpconform run` would.
type Case struct {
	Name   string // as reported
	Params hosts.Params
	Bridge string
}

// RelayRemount is the case of a host that re-renders the suite's View
// while the runner reaches it through the relay: the reference host with
// the rerender-once variation over --bridge relay.
const RelayRemount = "relay-remount"

// Default are the cases `mcpconform soak` runs without --case: the four
// third-party hosts and the relay remount.
var Default = []string{"inspector", "mcp-ui", "appbridge", "mcp-use", RelayRemount}

// CaseNamed is the case of a host name, or RelayRemount, built with base's
// settings and terminal.
func CaseNamed(name string, base hosts.Params) (Case, error) {
	p := base
	if name == RelayRemount {
		p.Name, p.Variations = "reference", []string{"rerender-once"}
		return Case{Name: name, Params: p, Bridge: runner.BridgeRelay}, nil
	}
	p.Name = name
	if _, err := hosts.New(p); err != nil {
		return Case{}, err
	}
	return Case{Name: name, Params: p, Bridge: runner.BridgeEvaluate}, nil
}

// StallSignature is how a check ends when one of the View's tools/call
// requests got no answer within the suite's time (fixtures/suite app.ts).
const StallSignature = "no response to tools/call within"

// Result is what Run saw of one case.
type Result struct {
	Case string `json:"case"`
	Runs int    `json:"runs"`
	// Differing are the runs (numbered from 1) whose statuses differ from
	// run 1's, and Differences each difference, with the message of the
	// run that did not pass ("run 3: a/b PASS → SKIP: cannot read …").
	Differing   []int    `json:"differing"`
	Differences []string `json:"differences,omitempty"`
	// Stalls are the checks, over all runs, that ended because the host
	// never answered one of the View's tools/call.
	Stalls []string `json:"stalls,omitempty"`
	// Infra are the runs that ended in an infrastructure failure, with it.
	Infra []string `json:"infra,omitempty"`
	// Durations of the runs.
	Durations []time.Duration `json:"durations"`
}

// OK reports whether every run repeated the first: no difference, no
// stall, no infrastructure failure.
func (r Result) OK() bool { return len(r.Differing) == 0 && len(r.Stalls) == 0 && len(r.Infra) == 0 }

// Options configure Run.
type Options struct {
	Runs int
	// Run is the template of each run's options (the runner's Selection,
	// Stall, Logf); AppTimeout bounds each host's app.
	Run conform.RunOptions
	// After is told of each run as it ends (progress), with how it
	// differs from the first (Result.Differences' lines of that run,
	// without their "run N: ").
	After func(c Case, run int, hr report.HostRun, differences []string)
}

// Run runs c o.Runs times in sess, each run with a fresh host, and
// compares every run with the first. The session must build c.Name with
// c.Params (Builder).
func Run(ctx context.Context, sess *conform.Session, c Case, o Options) Result {
	res := Result{Case: c.Name}
	var first map[string]report.Case
	for i := 1; i <= o.Runs && ctx.Err() == nil; i++ {
		ro := o.Run
		ro.Bridge = c.Bridge
		start := time.Now()
		hrs, err := sess.Run(ctx, []string{c.Name}, ro)
		if ctx.Err() != nil {
			// Interrupted: the run did not finish, and is not one.
			break
		}
		res.Runs++
		res.Durations = append(res.Durations, time.Since(start))
		var hr report.HostRun
		if len(hrs) == 1 {
			hr = hrs[0]
		}
		var diffs []string
		if hr.Infra != "" || err != nil {
			why := hr.Infra
			if why == "" {
				why = err.Error()
			}
			res.Infra = append(res.Infra, fmt.Sprintf("run %d: %s", i, why))
		} else {
			cases := map[string]report.Case{}
			for _, cs := range hr.Cases {
				cases[cs.ID] = cs
				if strings.Contains(cs.Message, StallSignature) {
					res.Stalls = append(res.Stalls, fmt.Sprintf("run %d: %s %s", i, cs.ID, cs.Message))
				}
			}
			if first == nil {
				first = cases
			} else if diffs = differences(first, cases); len(diffs) > 0 {
				res.Differing = append(res.Differing, i)
				for _, s := range diffs {
					res.Differences = append(res.Differences, fmt.Sprintf("run %d: %s", i, s))
				}
			}
		}
		if o.After != nil {
			o.After(c, i, hr, diffs)
		}
	}
	return res
}

// differences lists, sorted, the checks whose status in b is not a's,
// each with the message of the side that did not pass (b's when both
// did not), on one line.
func differences(a, b map[string]report.Case) []string {
	ids := map[string]bool{}
	for id := range a {
		ids[id] = true
	}
	for id := range b {
		ids[id] = true
	}
	var out []string
	for id := range ids {
		if a[id].Status == b[id].Status {
			continue
		}
		d := fmt.Sprintf("%s %s → %s", id, orNone(a[id].Status), orNone(b[id].Status))
		msg := b[id].Message
		if b[id].Status == protocol.StatusPass || msg == "" {
			msg = a[id].Message
		}
		if msg = strings.Join(strings.Fields(msg), " "); msg != "" {
			if r := []rune(msg); len(r) > maxMessage {
				msg = string(r[:maxMessage]) + "…"
			}
			d += ": " + msg
		}
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// maxMessage bounds a difference's message.
const maxMessage = 400

func orNone(s protocol.Status) string {
	if s == "" {
		return "(not run)"
	}
	return string(s)
}

// Builder is the session's NewHost for cases: each case's name builds its
// host with its parameters.
func Builder(cases []Case) func(name string) (hosts.Host, error) {
	return func(name string) (hosts.Host, error) {
		i := slices.IndexFunc(cases, func(c Case) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("no soak case %q", name)
		}
		return hosts.New(cases[i].Params)
	}
}

// Load keeps n CPUs busy (n processes that spin, pids) until stop is
// called: the loaded machine the soak proves its runs on.
func Load(n int) (pids []int, stop func(), err error) {
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			// Each spinner leads its own process group.
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
		}
	}
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			stop()
			return nil, nil, fmt.Errorf("starting a busy loop: %w", err)
		}
		cmds = append(cmds, c)
		pids = append(pids, c.Process.Pid)
	}
	return pids, stop, nil
}

// Print writes the table of results: one row per case.
func Print(w io.Writer, results []Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRUNS\tDIFFERING\tSTALLS\tINFRA\tMEDIAN RUN")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", r.Case, r.Runs, len(r.Differing), len(r.Stalls), len(r.Infra), median(r.Durations).Round(100*time.Millisecond))
	}
	tw.Flush()
	for _, r := range results {
		for _, l := range append(append(append([]string{}, r.Differences...), r.Stalls...), r.Infra...) {
			fmt.Fprintf(w, "%s: %s\n", r.Case, l)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
