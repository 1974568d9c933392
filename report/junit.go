package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/mcpconform/mcpconform/protocol"
)

// JUnitOptions tunes WriteJUnit.
type JUnitOptions struct {
	// AttachmentsRoot, when set, makes the [[ATTACHMENT|path]] lines relative
	// to this directory, which is what GitLab needs ($CI_PROJECT_DIR; the
	// files must also be uploaded as artifacts). When empty the paths are
	// absolute, which is what the Jenkins attachments plugin documents.
	// Relative evidence paths are resolved against the working directory
	// first. A file outside the root keeps its absolute path.
	AttachmentsRoot string
}

// junitRoot names the <testsuites> element and prefixes every <testsuite>.
const junitRoot = "mcpconform"

// WriteJUnit writes r as one JUnit XML document, with one <testsuite> per
// host. The shape is the intersection of what GitLab, Jenkins,
// dorny/test-reporter and mikepenz/action-junit-report read:
//   - every testsuite and testcase has name and time (dorny crashes on a
//     missing name and shows NaN for a missing time);
//   - classname is "<host>.<area>" (GitLab shows it as the suite column,
//     Jenkins builds its package tree from the dots) and name is the rest of
//     the id, so (classname, name) is unique (GitLab keeps only the first of
//     duplicates);
//   - a reason is both the message attribute (Jenkins, dorny, mikepenz; on
//     one line) and the start of the element text (GitLab reads only the
//     text);
//   - a baselined failure is <skipped message="expected failure (baseline):
//     …">, so consumers that fail on any <failure> stay green, and a stale
//     baseline entry (the check now passes) is a <failure type="STALE">;
//   - evidence files are [[ATTACHMENT|path]] lines in the case's
//     <system-out> (GitLab, Jenkins attachments plugin).
func WriteJUnit(w io.Writer, r Run, opts JUnitOptions) error {
	all := junit.Testsuites{Name: junitRoot}
	var total time.Duration
	att, err := newAttacher(opts.AttachmentsRoot)
	if err != nil {
		return err
	}
	for i, h := range r.Hosts {
		// AddSuite copies the suite's counters, so it is called only once the
		// suite is complete.
		all.AddSuite(junitSuite(i, r, h, att))
		total += hostDuration(h)
	}
	if r.Duration > 0 {
		total = r.Duration
	}
	all.Time = secs(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	return all.WriteXML(w)
}

func junitSuite(index int, r Run, h HostRun, att attacher) junit.Testsuite {
	host := sanitize(h.Host)
	s := junit.Testsuite{
		ID:   index,
		Name: junitRoot + "/" + host,
		Time: secs(hostDuration(h)),
	}
	start := h.StartedAt
	if start.IsZero() {
		start = r.StartedAt
	}
	date := ""
	if !start.IsZero() {
		s.SetTimestamp(start)
		date = s.Timestamp
	}
	// Every property is written even when empty, so scripts reading them
	// can rely on the keys.
	s.AddProperty("host", host)
	s.AddProperty("host.name", sanitize(h.HostName))
	s.AddProperty("host.version", sanitize(h.HostVersion))
	s.AddProperty("platform", sanitize(h.Platform))
	s.AddProperty("browser", sanitize(h.Browser))
	s.AddProperty("suite.version", sanitize(h.SuiteVersion))
	s.AddProperty("tool.version", sanitize(r.Version))
	s.AddProperty("date", date)
	s.AddProperty("spec.editions", sanitize(strings.Join(editions(h.Cases), ",")))
	// How many checks got a verdict (PASS or FAIL) of those selected; see
	// Judged. JUnit's own counters cannot say it: a baselined failure is
	// <skipped>, and TIMEOUT a <failure>.
	j := h.Judged()
	s.AddProperty("checks.selected", strconv.Itoa(j.Selected))
	s.AddProperty("checks.judged", strconv.Itoa(j.Judged))
	s.AddProperty("checks.not-judged", strconv.Itoa(j.NotJudged))
	s.AddProperty("checks.no-verdict", strconv.Itoa(j.NoVerdict))
	s.AddProperty("judged", j.String())
	if r.Expectations != "" {
		s.AddProperty("baseline", sanitize(r.Expectations))
	}
	if h.Video != "" {
		// The host page's recording (run --video); each case's start in it
		// is in the JSON results (startedAtMs) and the HTML page.
		s.AddProperty("video", sanitize(h.Video))
	}

	seen := make(map[[2]string]int)
	for _, c := range h.Cases {
		tc := junitCase(host, h, c, att)
		// The suite should never repeat an id, but if it does, the second
		// case must not vanish from GitLab, so it gets a numbered name.
		key := [2]string{tc.Classname, tc.Name}
		seen[key]++
		if n := seen[key]; n > 1 {
			tc.Name = fmt.Sprintf("%s (%d)", tc.Name, n)
		}
		s.AddTestcase(tc)
	}
	if h.Infra != "" {
		s.SystemErr = &junit.Output{Data: sanitize(h.Infra)}
	}
	return s
}

func junitCase(host string, h HostRun, c Case, att attacher) junit.Testcase {
	id := sanitize(c.ID)
	area := c.Area()
	// name is the rest of the id after "area/", cut before sanitising so an
	// escape sequence cannot shift the cut. An id without a slash is both.
	name := c.ID
	if len(c.ID) > len(area) {
		name = c.ID[len(area)+1:]
	}
	tc := junit.Testcase{
		Classname: host + "." + sanitize(area),
		Name:      sanitize(name),
		Time:      secs(c.Duration),
	}
	why := reason(h, c)
	result := func(typ, msg string) *junit.Result {
		return &junit.Result{Message: junitAttr(msg), Type: typ, Data: junitText(msg, c, id)}
	}
	switch c.Outcome() {
	case OutcomePass:
	case OutcomeSkipped:
		if c.Status == protocol.StatusNotRun {
			why = notRun(why)
		}
		tc.Skipped = result(c.ReasonCode(), why)
	case OutcomeExpectedFail:
		tc.Skipped = result("expected-failure", "expected failure (baseline): "+why)
	case OutcomeFlaky:
		tc.Skipped = result("flaky-allowed", "allowed flaky "+sanitize(string(c.Status))+" (baseline): "+why)
	case OutcomeOptional:
		// A MAY not implemented: reported, never a failure or an error.
		tc.Skipped = result("optional", optional(why))
	case OutcomeStale:
		tc.Failure = result("STALE", "stale baseline entry: the check passes now; remove it from the baseline")
	default:
		switch c.Status {
		case protocol.StatusFail:
			tc.Failure = result("FAIL", why)
		case protocol.StatusTimeout:
			tc.Failure = result("TIMEOUT", why)
		default:
			// ERROR, and any status this version does not know: the check
			// could not be judged, which is what <error> means to every
			// consumer.
			tc.Error = result("ERROR", why)
		}
	}
	if lines := att.lines(c.Evidence); lines != "" {
		tc.SystemOut = &junit.Output{Data: lines}
	}
	return tc
}

// junitAttr is the message attribute: the reason folded onto one line,
// tabs as spaces. A line break or tab in an attribute has to be written as a
// character reference (&#xA;, &#x9;), which some parsers used by reporting
// tools (fast-xml-parser, as in test-results-parser) show verbatim; and
// the consumers that read the attribute (Jenkins, dorny, mikepenz) show it
// as a one-line title anyway. The element text keeps the line breaks.
func junitAttr(msg string) string {
	return strings.ReplaceAll(oneLine(msg), "\t", " ")
}

// junitText is the element text: the reason first, so that it equals the
// message attribute as a prefix, then what GitLab otherwise has no way to
// show: the status when the element does not say it, the baseline entry,
// the requirement and the id.
func junitText(msg string, c Case, id string) string {
	var lines []string
	if msg != "" {
		lines = append(lines, msg)
	}
	switch c.Outcome() {
	case OutcomeExpectedFail, OutcomeFlaky, OutcomeStale, OutcomeOptional:
		lines = append(lines, "status: "+sanitize(string(c.Status)))
	}
	if e := c.Expect; e != nil {
		line := "baseline: "
		if len(e.Allow) > 0 {
			line += "allows " + allowList(e)
		} else {
			line += "expected to fail"
		}
		if r := oneLine(sanitize(e.Reason)); r != "" {
			line += " (" + r + ")"
		}
		lines = append(lines, line)
	}
	if c.Clause != "" {
		line := "clause: " + sanitize(string(c.Clause))
		var ref []string
		if c.Edition != "" {
			ref = append(ref, "spec "+sanitize(string(c.Edition)))
		}
		if c.SpecRef != "" {
			ref = append(ref, sanitize(c.SpecRef))
		}
		if len(ref) > 0 {
			line += " (" + strings.Join(ref, ", ") + ")"
		}
		lines = append(lines, line)
	}
	lines = append(lines, "id: "+id)
	return strings.Join(lines, "\n")
}

// attacher renders evidence paths as [[ATTACHMENT|path]] lines.
type attacher struct {
	root string // absolute and clean, or "" for absolute paths
	cwd  string
}

func newAttacher(root string) (attacher, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return attacher{}, err
	}
	a := attacher{cwd: cwd}
	if root != "" {
		a.root = a.abs(root)
	}
	return a, nil
}

func (a attacher) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(a.cwd, p)
}

// lines returns one attachment line per evidence path, in order, skipping
// empty and repeated paths. The path is what GitLab's pattern
// \[\[ATTACHMENT\|([^\[\]\|]+?)\]\] can match: a path holding "[", "]",
// "|" or a line break could not be read back, so it is left out rather than
// written broken.
func (a attacher) lines(evidence []string) string {
	var out []string
	seen := map[string]bool{}
	for _, e := range evidence {
		if strings.TrimSpace(e) == "" {
			continue
		}
		p := a.abs(e)
		if a.root != "" {
			if rel, err := filepath.Rel(a.root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = rel
			}
		}
		p = filepath.ToSlash(sanitize(p))
		if p == "" || seen[p] || strings.ContainsAny(p, "[]|\n") {
			continue
		}
		seen[p] = true
		out = append(out, "[[ATTACHMENT|"+p+"]]")
	}
	return strings.Join(out, "\n")
}

// editions lists the distinct editions of cs, known editions first in
// protocol order, then any others in the order they appear.
func editions(cs []Case) []string {
	has := make(map[protocol.Edition]bool)
	var order []protocol.Edition
	for _, c := range cs {
		if c.Edition != "" && !has[c.Edition] {
			has[c.Edition] = true
			order = append(order, c.Edition)
		}
	}
	var out []string
	for _, e := range protocol.Editions {
		if has[e] {
			out = append(out, string(e))
			delete(has, e)
		}
	}
	for _, e := range order {
		if has[e] {
			out = append(out, string(e))
		}
	}
	return out
}
