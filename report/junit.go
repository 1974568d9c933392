package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/mcpconform/mcpconform/protocol"
)

// JUnitOptions tunes WriteJUnit. It is empty for now; it is the place for
// attachment settings (screenshots referenced as [[ATTACHMENT|path]], which
// GitLab wants relative to $CI_PROJECT_DIR and Jenkins absolute).
type JUnitOptions struct{}

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
//   - a reason is both the message attribute (Jenkins, dorny, mikepenz) and
//     the start of the element text (GitLab reads only the text).
func WriteJUnit(w io.Writer, r Run, opts JUnitOptions) error {
	all := junit.Testsuites{Name: junitRoot}
	var total time.Duration
	for i, h := range r.Hosts {
		// AddSuite copies the suite's counters, so it is called only once the
		// suite is complete.
		all.AddSuite(junitSuite(i, r, h))
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

func junitSuite(index int, r Run, h HostRun) junit.Testsuite {
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

	seen := make(map[[2]string]int)
	for _, c := range h.Cases {
		tc := junitCase(host, h, c)
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

func junitCase(host string, h HostRun, c Case) junit.Testcase {
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
		return &junit.Result{Message: msg, Type: typ, Data: junitText(msg, c, id)}
	}
	switch c.Status {
	case protocol.StatusPass:
	case protocol.StatusFail:
		tc.Failure = result("FAIL", why)
	case protocol.StatusTimeout:
		tc.Failure = result("TIMEOUT", why)
	case protocol.StatusSkip:
		tc.Skipped = result("", why)
	case protocol.StatusNotRun:
		tc.Skipped = result("", notRun(why))
	default:
		// ERROR, and any status this version does not know: the check could
		// not be judged, which is what <error> means to every consumer.
		tc.Error = result("ERROR", why)
	}
	return tc
}

// junitText is the element text: the reason first, so that it equals the
// message attribute as a prefix, then the requirement and the id, which
// GitLab otherwise has no way to show.
func junitText(msg string, c Case, id string) string {
	var lines []string
	if msg != "" {
		lines = append(lines, msg)
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
