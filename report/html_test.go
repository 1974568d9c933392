package report

import (
	"github.com/mcpconform/mcpconform/internal/testkit/golden"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

const htmlEvidenceDir = "testdata/html_evidence/reference/"

// htmlHostile is a host name and messages that would run script if the page
// ever wrote them as markup.
const htmlHostile = `evil<script>document.documentElement.dataset.pwned="host"</script>`

// htmlRuns is the page's fixture: the current run of two hosts (every kind
// a cell can show, evidence of every sort, hostile strings) and an earlier
// run of the first, to compare with.
func htmlRuns() (cur, old Run) {
	ms := time.Millisecond
	stable, draft := protocol.EditionStable, protocol.EditionDraft
	cite := func(ref, quote string) string { return ` [spec ` + ref + `: "` + quote + `"]` }
	initM := meta("lifecycle/initialize", protocol.ClauseMust, stable, "§Lifecycle L300-320")
	msgM := meta("messages/message-delivered", protocol.ClauseMust, stable, "§ui/message L998-1013; ext-apps #48")
	msgM.Name = "ui/message reaches the conversation"
	themeM := meta("display/theme-notified", protocol.ClauseShould, stable, "§Theming L895")
	toolM := meta("tools/app-tool-listed", protocol.ClauseMustNot, draft, "draft §App-Provided Tools L2644")
	visM := meta("visibility/app-tool-hidden", protocol.ClauseMust, stable, "§Visibility L1500")
	permM := meta("security/permissions-honoured", protocol.ClauseMay, stable, "§Permissions L1700-1710 (derived)")
	msgQuote := "The host MUST add the message to the conversation"

	ref := HostRun{
		Host: "reference", HostName: "mcp-reference-host", HostVersion: "0.4.1", Browser: "chromium 140.0.7339.16",
		Platform: "linux/amd64", SuiteVersion: "0.3.0", StartedAt: t0, Duration: 20 * time.Second,
		Cases: []Case{
			{TestMeta: initM, Status: protocol.StatusPass, Duration: 412 * ms},
			{TestMeta: msgM, Status: protocol.StatusFail, Duration: 5021 * ms,
				Message: "no ui/message <b>reached</b> the conversation within 5000ms" + cite(msgM.SpecRef, msgQuote),
				Evidence: []string{
					htmlEvidenceDir + "messages__message-delivered.jsonrpc.json",
					htmlEvidenceDir + "messages__message-delivered.png",
					htmlEvidenceDir + "messages__message-delivered.console.txt",
					"/nonexistent/mcpconform/reference/messages__message-delivered.png",
					"mcpconform-results/reference/trace.zip",
				}},
			{TestMeta: themeM, Status: protocol.StatusTimeout, Duration: 3000 * ms,
				Message: "no verdict within 3000ms while waiting for the host to toggleTheme" + cite(themeM.SpecRef, "Hosts SHOULD notify the View of theme changes")},
			{TestMeta: toolM, Status: protocol.StatusError, Duration: 9 * ms, Message: "harness error: page crashed"},
			{TestMeta: visM, Status: protocol.StatusSkip, Message: "unsupported: readModelToolList"},
			{TestMeta: permM, Status: protocol.StatusPass, Duration: 77 * ms},
		},
	}
	evil := HostRun{
		Host: htmlHostile, HostName: `<img src=x onerror="document.documentElement.dataset.pwned='name'">`, HostVersion: "1.0",
		StartedAt: t0.Add(time.Minute), Duration: 9 * time.Second, Infra: "the app iframe vanished </script>",
		Cases: []Case{
			{TestMeta: initM, Status: protocol.StatusPass, Duration: 300 * ms},
			{TestMeta: msgM, Status: protocol.StatusFail, Duration: 1000 * ms,
				Message: `<script>document.documentElement.dataset.pwned="message"</script>` + cite(msgM.SpecRef, msgQuote),
				Expect:  &Expectation{ID: msgM.ID, Reason: "drops messages (vendor bug 12)"}},
			{TestMeta: themeM, Status: protocol.StatusPass, Duration: 200 * ms, Expect: &Expectation{ID: themeM.ID, Reason: "was broken"}},
			{TestMeta: toolM, Status: protocol.StatusNotRun},
			{TestMeta: permM, Status: protocol.StatusTimeout, Duration: 4000 * ms, Attempts: 2,
				Expect: &Expectation{ID: permM.ID, Reason: "flaky prompt", Allow: []protocol.Status{protocol.StatusPass, protocol.StatusTimeout}}},
		},
	}
	cur = Run{Tool: "mcpconform", Version: "0.9.0", StartedAt: t0, Duration: 70 * time.Second, Expectations: "expectations/evil.yaml", Hosts: []HostRun{ref, evil}}

	was := ref
	was.StartedAt = t0.Add(-24 * time.Hour)
	was.Cases = []Case{
		{TestMeta: initM, Status: protocol.StatusFail, Message: "no answer"},
		{TestMeta: msgM, Status: protocol.StatusPass},
		{TestMeta: themeM, Status: protocol.StatusFail, Message: "not notified"},
		{TestMeta: visM, Status: protocol.StatusSkip, Message: "unsupported: readModelToolList"},
		{TestMeta: permM, Status: protocol.StatusPass},
	}
	old = Run{Tool: "mcpconform", Version: "0.8.0", StartedAt: was.StartedAt, Hosts: []HostRun{was}}
	return cur, old
}

func writeHTMLPage(t *testing.T, r Run, opt HTMLOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, r, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var htmlDataRE = regexp.MustCompile(`(?s)<script type="application/json" id="mcpconform-data">(.*?)</script>`)

// htmlDataOf is the JSON block of a page.
func htmlDataOf(t *testing.T, page string) htmlData {
	t.Helper()
	m := htmlDataRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no data block")
	}
	var d htmlData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return d
}

// TestHTMLGolden holds the data the page shows: the same results as the
// other formats, compared with an earlier run.
func TestHTMLGolden(t *testing.T) {
	cur, old := htmlRuns()
	page := writeHTMLPage(t, cur, HTMLOptions{Compare: []Run{old}})
	m := htmlDataRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data block")
	}
	var v any
	if err := json.Unmarshal([]byte(m[1]), &v); err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(v, "", "  ")
	got = append(got, '\n')
	golden.File(t, filepath.Join("testdata", "html_data.golden.json"), got)
}

func TestHTMLModel(t *testing.T) {
	cur, old := htmlRuns()
	d := htmlDataOf(t, writeHTMLPage(t, cur, HTMLOptions{Compare: []Run{old}}))
	if len(d.Hosts) != 2 || len(d.Rows) != 6 {
		t.Fatalf("grid is %d rows × %d hosts, want 6 × 2", len(d.Rows), len(d.Hosts))
	}
	// Rows are grouped by area in the order areas first appear.
	var ids []string
	for _, r := range d.Rows {
		ids = append(ids, r.ID)
	}
	if want := "lifecycle/initialize messages/message-delivered display/theme-notified tools/app-tool-listed visibility/app-tool-hidden security/permissions-honoured"; strings.Join(ids, " ") != want {
		t.Errorf("rows %v", ids)
	}
	row := func(id string) htmlRow {
		for _, r := range d.Rows {
			if r.ID == id {
				return r
			}
		}
		t.Fatalf("no row %s", id)
		return htmlRow{}
	}
	msg := row("messages/message-delivered")
	if msg.Quote != "The host MUST add the message to the conversation" {
		t.Errorf("quote %q", msg.Quote)
	}
	if c := msg.Cells[0]; c.Kind != "FAIL" || c.Change != "regressed" || c.Was != "PASS" || strings.Contains(c.Message, "[spec") {
		t.Errorf("reference cell %+v", c)
	}
	if c := msg.Cells[1]; c.Kind != "XFAIL" || c.Change != "" || !strings.Contains(c.Expectations, "vendor bug 12") {
		t.Errorf("evil cell %+v", c)
	}
	wantLinks := []htmlLink{
		{"§ui/message L998-1013", SpecBase + "2026-01-26/apps.mdx#L998-L1013"},
		{"ext-apps #48", "https://github.com/modelcontextprotocol/ext-apps/issues/48"},
	}
	if got, _ := json.Marshal(msg.SpecLinks); string(got) != mustJSONString(wantLinks) {
		t.Errorf("spec links %s", got)
	}
	if l := row("tools/app-tool-listed").SpecLinks; len(l) != 1 || l[0].URL != SpecBase+"draft/apps.mdx#L2644" {
		t.Errorf("draft link %+v", l)
	}
	kinds := map[string]string{}
	for _, r := range d.Rows {
		for i, c := range r.Cells {
			if c != nil {
				kinds[r.ID+"@"+d.Hosts[i].Host[:4]] = c.Kind
			}
		}
	}
	for k, want := range map[string]string{
		"display/theme-notified@evil": "STALE", "security/permissions-honoured@evil": "FLAKY", "tools/app-tool-listed@evil": "NOTRUN",
		"tools/app-tool-listed@refe": "ERROR", "display/theme-notified@refe": "TIMEOUT", "visibility/app-tool-hidden@refe": "SKIP",
	} {
		if kinds[k] != want {
			t.Errorf("%s is %q, want %q", k, kinds[k], want)
		}
	}
	if row("visibility/app-tool-hidden").Cells[1] != nil {
		t.Error("a check the host did not run has a cell")
	}
	if !row("display/theme-notified").Disagree || row("lifecycle/initialize").Disagree {
		t.Error("disagree marks wrong")
	}
	if got := mustJSONString(d.Changes); got != mustJSONString([]htmlChange{
		{"reference", "lifecycle/initialize", "fixed", "FAIL", "PASS"},
		{"reference", "messages/message-delivered", "regressed", "PASS", "FAIL"},
	}) {
		t.Errorf("changes %s", got)
	}
	if c := row("display/theme-notified").Cells[0]; c.Change != "changed" {
		t.Errorf("FAIL → TIMEOUT is %q, want changed", c.Change)
	}
	if c := row("tools/app-tool-listed").Cells[0]; c.Change != "new" {
		t.Errorf("a check absent before is %q, want new", c.Change)
	}
	h := d.Hosts[0]
	// Judged: PASS or FAIL only (a TIMEOUT, an ERROR and a SKIP are not).
	if h.Judged.Judged != 3 || h.Judged.Selected != 6 || h.MustJudged != 2 || h.MustPassed != 1 || h.ComparedWith == "" ||
		h.JudgedLine != "judged 3 of 6 (PASS 2, FAIL 1); 1 not judged: SKIP 1; 2 without a verdict: TIMEOUT 1, ERROR 1" {
		t.Errorf("reference header %+v", h)
	}
	if d.Hosts[1].ComparedWith != "" {
		t.Error("a host absent from the earlier run is marked compared")
	}
	// Evidence: the log parsed, the screenshot embedded, the console read,
	// a missing file and a trace listed.
	ev := msg.Cells[0].Evidence
	if len(ev) != 5 {
		t.Fatalf("evidence %+v", ev)
	}
	if ev[0].Kind != "jsonrpc" || len(ev[0].Lines) != 2 || ev[0].Lines[0].Dir != "out" || !strings.Contains(ev[0].Lines[0].Msg, `"method":"ui/message"`) {
		t.Errorf("jsonrpc %+v", ev[0])
	}
	if ev[1].Kind != "screenshot" || ev[1].Image != "img-1" || ev[1].Note != "" {
		t.Errorf("screenshot %+v", ev[1])
	}
	if ev[2].Kind != "console" || !strings.Contains(ev[2].Text, "ui/message dropped") {
		t.Errorf("console %+v", ev[2])
	}
	if ev[3].Image != "" || !strings.Contains(ev[3].Note, "not found") {
		t.Errorf("missing screenshot %+v", ev[3])
	}
	if ev[4].Kind != "file" || ev[4].Name != "trace.zip" {
		t.Errorf("trace %+v", ev[4])
	}
}

func mustJSONString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestHTMLSelfContained: the page references nothing outside itself, forbids
// requests by policy, allows only its own inline style and script, and never
// writes a host's string as markup.
func TestHTMLSelfContained(t *testing.T) {
	cur, old := htmlRuns()
	page := writeHTMLPage(t, cur, HTMLOptions{Compare: []Run{old}})
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil || !strings.Contains(csp[1], "default-src 'none'") || !strings.Contains(csp[1], "img-src data:;") {
		t.Fatalf("no request-forbidding CSP: %v", csp)
	}
	css := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	js := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(page)
	if css == nil || js == nil {
		t.Fatal("no inline style or script")
	}
	if !strings.Contains(csp[1], cspHash([]byte(css[1]))) || !strings.Contains(csp[1], cspHash([]byte(js[1]))) {
		t.Error("the CSP does not allow the page's own style and script by hash")
	}
	// Outside the data, no attribute points anywhere.
	static := regexp.MustCompile(`(?s)(<script[^>]*>|<style>).*?</(script|style)>`).ReplaceAllString(page, "")
	if m := regexp.MustCompile(`(?i)\b(src|href|action|srcset)\s*=`).FindAllString(static, -1); len(m) > 0 {
		t.Errorf("the page's markup references resources: %v", m)
	}
	if n := strings.Count(page, "<script"); n != 3 {
		t.Errorf("%d <script elements, want 3 (data, one screenshot, the script)", n)
	}
	for _, s := range []string{"<script>document", "<img src=x", "</script><script>alert"} {
		if strings.Contains(page, s) {
			t.Errorf("a host's string reached the page as markup: %q", s)
		}
	}
	// The screenshot is the evidence file, as a data: URI.
	png, _ := os.ReadFile(htmlEvidenceDir + "messages__message-delivered.png")
	if !strings.Contains(page, `<script type="text/plain" id="img-1">data:image/png;base64,`) || len(png) == 0 {
		t.Error("screenshot not embedded")
	}
}

func TestHTMLEvidenceLimits(t *testing.T) {
	cur, _ := htmlRuns()
	cur.Hosts = cur.Hosts[:1]
	d := htmlDataOf(t, writeHTMLPage(t, cur, HTMLOptions{MaxImageBytes: 50, MaxTextBytes: 40}))
	ev := d.Rows[1].Cells[0].Evidence
	if ev[1].Image != "" || !strings.Contains(ev[1].Note, "over the 50-byte limit") {
		t.Errorf("large screenshot %+v", ev[1])
	}
	if !strings.Contains(ev[2].Note, "cut to its last 40") || !strings.HasSuffix(ev[2].Text, "alert(2)>\n") {
		t.Errorf("long console %+v", ev[2])
	}
	if ev[0].Lines != nil || ev[0].Text == "" {
		t.Errorf("a cut JSON-RPC log is shown as text: %+v", ev[0])
	}
	// A relative path is found in EvidenceDirs.
	cur.Hosts[0].Cases[1].Evidence = []string{"reference/messages__message-delivered.png"}
	d = htmlDataOf(t, writeHTMLPage(t, cur, HTMLOptions{EvidenceDirs: []string{"nowhere", "testdata/html_evidence"}}))
	if ev := d.Rows[1].Cells[0].Evidence; ev[0].Image == "" {
		t.Errorf("not found in EvidenceDirs: %+v", ev)
	}
	// A path recorded on another machine is found by its last directories.
	cur.Hosts[0].Cases[1].Evidence = []string{"/home/runner/work/app/mcpconform-results/reference/evidence/reference/messages__message-delivered.png"}
	d = htmlDataOf(t, writeHTMLPage(t, cur, HTMLOptions{EvidenceDirs: []string{".", "testdata/html_evidence"}}))
	if ev := d.Rows[1].Cells[0].Evidence; ev[0].Image == "" {
		t.Errorf("a path from another machine is not found under EvidenceDirs: %+v", ev)
	}
	// Never by the file name alone: the host's folder must match.
	cur.Hosts[0].Cases[1].Evidence = []string{"/elsewhere/otherhost/messages__message-delivered.png"}
	d = htmlDataOf(t, writeHTMLPage(t, cur, HTMLOptions{EvidenceDirs: []string{"testdata/html_evidence"}}))
	if ev := d.Rows[1].Cells[0].Evidence; ev[0].Image != "" {
		t.Errorf("another host's screenshot was taken by its file name: %+v", ev)
	}
	cur.Hosts[0].Cases[1].Evidence = []string{"reference/messages__message-delivered.png"}
	// The budget: once spent, evidence is listed by path.
	d = htmlDataOf(t, writeHTMLPage(t, cur, HTMLOptions{MaxTotalBytes: 10, EvidenceDirs: []string{"testdata/html_evidence"}}))
	if ev := d.Rows[1].Cells[0].Evidence; ev[0].Image != "" || !strings.Contains(ev[0].Note, "budget") {
		t.Errorf("over budget: %+v", ev)
	}
}

// TestHTMLCellKind: a cell shows the status, or the baseline's reading of
// it; OPTIONAL (a MAY check found the feature absent) is its own kind.
func TestHTMLCellKind(t *testing.T) {
	for _, tc := range []struct {
		c    Case
		want string
	}{
		{Case{Status: protocol.StatusPass}, "PASS"},
		{Case{Status: protocol.StatusTimeout}, "TIMEOUT"},
		{Case{Status: protocol.Status("OPTIONAL")}, "OPTIONAL"},
		{Case{Status: protocol.StatusFail, Expect: &Expectation{}}, "XFAIL"},
		{Case{Status: protocol.StatusPass, Expect: &Expectation{}}, "STALE"},
		{Case{Status: protocol.StatusTimeout, Expect: &Expectation{Allow: []protocol.Status{protocol.StatusTimeout}}}, "FLAKY"},
		{Case{Status: protocol.StatusNotRun, Expect: &Expectation{}}, "NOTRUN"},
	} {
		if got := cellKind(tc.c); got != tc.want {
			t.Errorf("cellKind(%s, %+v) = %s, want %s", tc.c.Status, tc.c.Expect, got, tc.want)
		}
	}
}

func TestSplitCite(t *testing.T) {
	for _, tc := range []struct{ in, msg, ref, quote string }{
		{`got 3 [spec §A L1: "Hosts MUST say "hi""]`, "got 3", "§A L1", `Hosts MUST say "hi"`},
		{"plain message", "plain message", "", ""},
		{`x [spec broken`, `x [spec broken`, "", ""},
	} {
		msg, ref, quote := splitCite(tc.in)
		if msg != tc.msg || ref != tc.ref || quote != tc.quote {
			t.Errorf("splitCite(%q) = %q, %q, %q", tc.in, msg, ref, quote)
		}
	}
}
