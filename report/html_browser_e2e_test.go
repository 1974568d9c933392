package report

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/npmcache"
	"github.com/mcpconform/mcpconform/protocol"
)

// The browser tests open the HTML report in Chromium from file://. Without a
// Chromium they skip, naming what is missing, unless
// MCPCONFORM_REQUIRE_BROWSER=1 or CI=true, where they fail.
var (
	htmlBrowserOnce sync.Once
	htmlBrowser     *browser.Browser
	htmlBrowserErr  error
)

func browserForHTML(t *testing.T) *browser.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test drives a real browser")
	}
	htmlBrowserOnce.Do(func() { htmlBrowser, htmlBrowserErr = browser.Launch(browser.Options{}) })
	if htmlBrowserErr != nil {
		if npmcache.Required() || !errors.Is(htmlBrowserErr, browser.ErrNoBrowser) {
			t.Fatalf("%s needs Chromium: %v", t.Name(), htmlBrowserErr)
		}
		t.Skipf("%s skipped: no Chromium (apt-get install chromium, or set MCPCONFORM_BROWSER; MCPCONFORM_REQUIRE_BROWSER=1 or CI=true makes this a failure): %v", t.Name(), htmlBrowserErr)
	}
	return htmlBrowser
}

func TestMain(m *testing.M) {
	code := m.Run()
	if htmlBrowser != nil {
		htmlBrowser.Close()
	}
	os.Exit(code)
}

// htmlPage opens file in a fresh context where every request other than
// the file itself is refused and counted, and every console error and page
// error recorded.
type htmlPage struct {
	page     playwright.Page
	mu       sync.Mutex
	requests []string
	errors   []string
}

func openHTML(t *testing.T, file string) *htmlPage {
	t.Helper()
	b := browserForHTML(t)
	ctx, err := b.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1400, Height: 900}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	p := &htmlPage{}
	u := (&url.URL{Scheme: "file", Path: file}).String()
	if err := ctx.Route("**/*", func(r playwright.Route) {
		if r.Request().URL() == u {
			r.Continue()
			return
		}
		p.mu.Lock()
		p.requests = append(p.requests, r.Request().URL())
		p.mu.Unlock()
		r.Abort()
	}); err != nil {
		t.Fatal(err)
	}
	ctx.OnRequest(func(r playwright.Request) {
		if r.URL() != u && !strings.HasPrefix(r.URL(), "data:") {
			p.mu.Lock()
			p.requests = append(p.requests, "seen: "+r.URL())
			p.mu.Unlock()
		}
	})
	if p.page, err = ctx.NewPage(); err != nil {
		t.Fatal(err)
	}
	p.page.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() == "error" || m.Type() == "warning" {
			p.mu.Lock()
			p.errors = append(p.errors, m.Type()+": "+m.Text())
			p.mu.Unlock()
		}
	})
	p.page.OnPageError(func(e error) {
		p.mu.Lock()
		p.errors = append(p.errors, "page error: "+e.Error())
		p.mu.Unlock()
	})
	if _, err := p.page.Goto(u); err != nil {
		t.Fatal(err)
	}
	if _, err := p.page.WaitForFunction(`() => document.documentElement.dataset.ready === "1"`, nil, playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(10000)}); err != nil {
		t.Fatalf("the page never finished drawing: %v (console: %v)", err, p.errors)
	}
	return p
}

// clean fails the test for any request the page made and any console error.
func (p *htmlPage) clean(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.requests) > 0 {
		t.Errorf("the page made %d request(s): %v", len(p.requests), p.requests)
	}
	if len(p.errors) > 0 {
		t.Errorf("the page logged errors: %v", p.errors)
	}
}

func (p *htmlPage) eval(t *testing.T, js string, arg ...any) any {
	t.Helper()
	v, err := p.page.Evaluate(js, arg...)
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (p *htmlPage) count(t *testing.T, sel string) int {
	t.Helper()
	n, err := p.page.Locator(sel).Count()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (p *htmlPage) visibleRows(t *testing.T) []string {
	t.Helper()
	v := p.eval(t, `() => [...document.querySelectorAll("#grid tr[data-id]")].filter(r => r.offsetParent !== null).map(r => r.dataset.id)`)
	var ids []string
	for _, x := range v.([]any) {
		ids = append(ids, x.(string))
	}
	return ids
}

func writeHTMLFile(t *testing.T, dir string, r Run, opt HTMLOptions) string {
	t.Helper()
	path := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := WriteHTML(&b, r, opt); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHTMLPageInBrowser opens the report of the fixture (two hosts, one with
// hostile strings, compared with an earlier run) and uses it as a person
// would: by mouse and by keyboard.
func TestHTMLPageInBrowser(t *testing.T) {
	cur, old := htmlRuns()
	path := writeHTMLFile(t, t.TempDir(), cur, HTMLOptions{Compare: []Run{old}})
	p := openHTML(t, path)
	page := p.page

	// The grid: 6 checks × 2 hosts, 5 area groups.
	if n := p.count(t, "#grid tbody tr[data-id]"); n != 6 {
		t.Errorf("%d rows, want 6", n)
	}
	if n := p.count(t, "#grid thead th.host"); n != 2 {
		t.Errorf("%d host columns, want 2", n)
	}
	if n := p.count(t, "#grid tbody tr[data-id] button.cell"); n != 11 {
		t.Errorf("%d cells, want 11 (the second host did not run one check)", n)
	}
	// Hostile strings are text: shown verbatim, never run.
	if v := p.eval(t, `() => document.documentElement.dataset.pwned || ""`); v != "" {
		t.Fatalf("a host's string ran as script: %v", v)
	}
	head, _ := page.Locator("#grid thead th.host").Nth(1).InnerText()
	if !strings.Contains(head, htmlHostile) || !strings.Contains(head, "stopped early") {
		t.Errorf("second host header %q", head)
	}
	// The legend gives every kind a symbol and a word.
	legend, _ := page.Locator("#legend").InnerText()
	for _, k := range []string{"✓ pass", "✗ FAIL", "⏱ TIMEOUT", "‼ ERROR", "↷ skip", "∅ not run", "○ optional, not implemented", "✗ expected fail", "! stale expectation", "~ flaky, allowed"} {
		if !strings.Contains(legend, k) {
			t.Errorf("legend %q lacks %q", legend, k)
		}
	}
	// Header: judged count (PASS or FAIL: the TIMEOUT, ERROR and SKIP are
	// not) and MUST pass rate of the judged MUST and MUST NOT checks.
	head, _ = page.Locator("#grid thead th.host").First().InnerText()
	if !strings.Contains(head, "judged 3 of 6") || !strings.Contains(head, "MUST 1/2 (50%)") {
		t.Errorf("first host header %q", head)
	}

	// A FAIL cell opens to its message, the quoted spec sentence, a link to
	// the spec line and its evidence.
	fail := page.Locator(`tr[data-id="messages/message-delivered"] button.cell[data-col="0"]`)
	if txt, _ := fail.InnerText(); !strings.Contains(txt, "✗") || !strings.Contains(txt, "FAIL") || !strings.Contains(txt, "regressed") {
		t.Errorf("FAIL cell reads %q, want symbol, word and the regression", txt)
	}
	if err := fail.Click(); err != nil {
		t.Fatal(err)
	}
	if open := p.eval(t, `() => document.getElementById("detail").open`); open != true {
		t.Fatal("the cell did not open")
	}
	msg, _ := page.Locator("#detail .message").InnerText()
	if msg != "no ui/message <b>reached</b> the conversation within 5000ms" {
		t.Errorf("message %q", msg)
	}
	if q, _ := page.Locator("#detail blockquote").InnerText(); !strings.Contains(q, "The host MUST add the message to the conversation") {
		t.Errorf("quote %q", q)
	}
	if href, _ := page.Locator(`#detail a`).First().GetAttribute("href"); href != SpecBase+"2026-01-26/apps.mdx#L998-L1013" {
		t.Errorf("spec link %q", href)
	}
	if w := p.eval(t, `() => { const i = document.querySelector("#detail .ev-screenshot img"); return i && i.complete ? i.naturalWidth : -1 }`); w != 64 {
		t.Errorf("screenshot width %v, want the 64 px of the evidence file", w)
	}
	if n := p.count(t, "#detail table.rpc tr"); n != 2 {
		t.Errorf("%d JSON-RPC lines, want 2", n)
	}
	if c, _ := page.Locator("#detail .ev-console pre").InnerText(); !strings.Contains(c, "<img src=x onerror=alert(2)>") {
		t.Errorf("console %q", c)
	}
	// The thumbnail enlarges; Escape closes the enlargement, then the cell.
	if err := page.Locator("#detail button.thumb").Click(); err != nil {
		t.Fatal(err)
	}
	if open := p.eval(t, `() => document.getElementById("zoom").open`); open != true {
		t.Error("the screenshot did not enlarge")
	}
	page.Keyboard().Press("Escape")
	page.Keyboard().Press("Escape")
	if open := p.eval(t, `() => document.getElementById("detail").open || document.getElementById("zoom").open`); open != false {
		t.Error("Escape did not close the dialogs")
	}

	// Filters hide what they should.
	if _, err := page.Locator("#f-clause").SelectOption(playwright.SelectOptionValues{Values: &[]string{"SHOULD"}}); err != nil {
		t.Fatal(err)
	}
	if got := p.visibleRows(t); strings.Join(got, ",") != "display/theme-notified" {
		t.Errorf("clause SHOULD shows %v", got)
	}
	if got := p.count(t, `tbody[data-area="lifecycle"]:visible`); got != 0 {
		t.Error("an area with no row left is still shown")
	}
	page.Locator("#f-clause").SelectOption(playwright.SelectOptionValues{Values: &[]string{""}})
	page.Locator("#f-kind").SelectOption(playwright.SelectOptionValues{Values: &[]string{"STALE"}})
	if got := p.visibleRows(t); strings.Join(got, ",") != "display/theme-notified" {
		t.Errorf("outcome STALE shows %v", got)
	}
	page.Locator("#f-kind").SelectOption(playwright.SelectOptionValues{Values: &[]string{""}})
	page.Locator("#f-area").SelectOption(playwright.SelectOptionValues{Values: &[]string{"security"}})
	if got := p.visibleRows(t); strings.Join(got, ",") != "security/permissions-honoured" {
		t.Errorf("area security shows %v", got)
	}
	page.Locator("#f-area").SelectOption(playwright.SelectOptionValues{Values: &[]string{""}})
	page.Locator("#f-text").Fill("vendor-free text nobody wrote")
	if got := p.visibleRows(t); len(got) != 0 {
		t.Errorf("a search matching nothing shows %v", got)
	}
	page.Locator("#f-text").Fill("WITHIN 5000MS")
	if got := p.visibleRows(t); strings.Join(got, ",") != "messages/message-delivered" {
		t.Errorf("search in messages shows %v", got)
	}
	page.Locator("#f-text").Fill("")
	page.Locator("#f-disagree").Check()
	if got := p.visibleRows(t); strings.Join(got, ",") != "messages/message-delivered,display/theme-notified,tools/app-tool-listed,security/permissions-honoured" {
		t.Errorf("disagreeing rows %v", got)
	}
	page.Locator("#f-disagree").Uncheck()
	page.Locator("#f-changed").Check()
	if got := p.visibleRows(t); strings.Join(got, ",") != "lifecycle/initialize,messages/message-delivered,display/theme-notified" {
		t.Errorf("changed rows %v", got)
	}
	page.Locator("#f-changed").Uncheck()
	if n := len(p.visibleRows(t)); n != 6 {
		t.Errorf("with no filter %d rows show", n)
	}

	// The compare view: the regression and the fix, marked and summed up.
	if s, _ := page.Locator("#changes-summary").InnerText(); s != "1 regressed, 1 fixed" {
		t.Errorf("changes summary %q", s)
	}
	if n := p.count(t, `tr[data-id="messages/message-delivered"] button.cell[data-change="regressed"]`); n != 1 {
		t.Error("the regression is not marked")
	}
	if n := p.count(t, `tr[data-id="lifecycle/initialize"] button.cell[data-change="fixed"]`); n != 1 {
		t.Error("the fix is not marked")
	}

	// By keyboard: Tab reaches a cell, Enter opens it, Escape closes it and
	// gives the focus back.
	page.Locator("#f-changed").Focus()
	var focused string
	for i := 0; i < 10 && !strings.Contains(focused, "cell"); i++ {
		page.Keyboard().Press("Tab")
		focused, _ = p.eval(t, `() => document.activeElement.className + " " + (document.activeElement.dataset.row ?? "")`).(string)
	}
	if !strings.HasPrefix(focused, "cell ") {
		t.Fatalf("Tab never reached a cell (focus on %q)", focused)
	}
	page.Keyboard().Press("Enter")
	if open := p.eval(t, `() => document.getElementById("detail").open`); open != true {
		t.Fatal("Enter did not open the focused cell")
	}
	if title, _ := page.Locator("#detail-title").InnerText(); !strings.HasPrefix(title, "lifecycle/initialize on ") {
		t.Errorf("Enter opened %q", title)
	}
	p.eval(t, `() => { document.documentElement.dataset.detail = "open"; }`)
	page.Keyboard().Press("Escape")
	// The dialog's close event, which returns the focus, is a task later.
	if _, err := page.WaitForFunction(`() => document.documentElement.dataset.detail === "closed"`, nil); err != nil {
		t.Fatalf("Escape did not close the cell: %v", err)
	}
	back0, _ := p.eval(t, `() => document.activeElement.dataset.row + "/" + document.activeElement.dataset.col`).(string)
	// Arrow keys move between cells: right to the next host, down to the
	// next check.
	page.Keyboard().Press("ArrowRight")
	right, _ := p.eval(t, `() => document.activeElement.dataset.row + "/" + document.activeElement.dataset.col`).(string)
	page.Keyboard().Press("ArrowDown")
	down, _ := p.eval(t, `() => document.activeElement.dataset.row + "/" + document.activeElement.dataset.col`).(string)
	page.Keyboard().Press("ArrowLeft")
	page.Keyboard().Press("ArrowUp")
	again, _ := p.eval(t, `() => document.activeElement.dataset.row + "/" + document.activeElement.dataset.col`).(string)
	if back0 != "0/0" || right != "0/1" || down != "1/1" || again != "0/0" {
		t.Errorf("arrow keys: from %s, right %s, down %s, back %s; want 0/0, 0/1, 1/1, 0/0", back0, right, down, again)
	}
	back, _ := p.eval(t, `() => !document.getElementById("detail").open && document.activeElement.classList.contains("cell")`).(bool)
	if !back {
		t.Error("Escape did not close the cell and return the focus to it")
	}
	if v := p.eval(t, `() => document.documentElement.dataset.pwned || ""`); v != "" {
		t.Fatalf("a host's string ran as script: %v", v)
	}
	p.clean(t)

	if out := os.Getenv("MCPCONFORM_HTML_SCREENSHOT"); out != "" {
		if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(out), FullPage: playwright.Bool(true)}); err != nil {
			t.Error(err)
		}
	}
}

// TestHTMLPageDrawsALargeRun: the page for 66 checks × 5 hosts, every
// failing cell with its own screenshot, draws every cell; how long it took
// is logged (a figure, not a verdict: docs/reports.md quotes it).
func TestHTMLPageDrawsALargeRun(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	var run Run
	run.StartedAt = t0
	shots := 0
	var size int64
	for h := 0; h < 5; h++ {
		hr := HostRun{Host: fmt.Sprintf("host-%d", h), HostName: "Host", HostVersion: "1." + fmt.Sprint(h), StartedAt: t0}
		for c := 0; c < 66; c++ {
			m := meta(fmt.Sprintf("area%d/check-%02d", c/8, c), protocol.Clauses[c%5], protocol.EditionStable, fmt.Sprintf("§Part L%d", 100+c))
			cs := Case{TestMeta: m, Status: protocol.StatusPass, Duration: time.Duration(c) * time.Millisecond}
			if rng.Intn(4) == 0 {
				cs.Status, cs.Message = protocol.StatusFail, fmt.Sprintf("expected %d, got %d [spec %s: \"Hosts MUST do thing %d\"]", c, h, m.SpecRef, c)
				png := filepath.Join(dir, fmt.Sprintf("%d-%d.png", h, c))
				writeNoisePNG(t, png, rng, 320, 200)
				st, _ := os.Stat(png)
				size += st.Size()
				shots++
				cs.Evidence = []string{png}
			}
			hr.Cases = append(hr.Cases, cs)
		}
		run.Hosts = append(run.Hosts, hr)
	}
	path := writeHTMLFile(t, dir, run, HTMLOptions{})
	st, _ := os.Stat(path)
	p := openHTML(t, path)
	// The best of three loads: the machine is shared, and a load that had to
	// wait for the CPU says nothing about the page.
	best, start := 0.0, 0.0
	for i := 0; i < 3; i++ {
		if i > 0 {
			if _, err := p.page.Reload(); err != nil {
				t.Fatal(err)
			}
			if _, err := p.page.WaitForFunction(`() => document.documentElement.dataset.ready === "1"`, nil); err != nil {
				t.Fatal(err)
			}
		}
		ms := number(p.eval(t, `() => Number(document.documentElement.dataset.readyMs)`))
		if i == 0 || ms < best {
			best, start = ms, number(p.eval(t, `() => Number(document.documentElement.dataset.startMs)`))
		}
	}
	t.Logf("66 checks × 5 hosts, %d screenshots (%.1f MB of PNG), page %.1f MB: drawn %.0f ms after navigation start (best of 3; the script started at %.0f ms)", shots, float64(size)/1e6, float64(st.Size())/1e6, best, start)
	ms := best
	if n := p.count(t, "#grid button.cell"); n != 330 {
		t.Errorf("%d cells, want 330", n)
	}
	// How long it took is a figure for the log, not a verdict: these
	// machines are shared, and a timed assertion would fail on load alone.
	if ms <= 0 {
		t.Errorf("the page never recorded that it was drawn (readyMs %.0f)", ms)
	}
	p.clean(t)
}

// number is a number the page returned (an int or a float64), 0 for
// anything else.
func number(v any) float64 {
	n, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
	return n
}

func writeNoisePNG(t *testing.T, path string, rng *rand.Rand, w, h int) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(png.Encode(f, img), f.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestHTMLScreenshot takes the documentation's screenshots of a real page:
// MCPCONFORM_HTML_SCREENSHOT_PAGE names the page (written by report --html),
// MCPCONFORM_HTML_SCREENSHOT_DIR where html-report.png (the grid) and
// html-report-cell.png (the first regressed or failing cell, opened) go.
// It checks the page as TestHTMLPageInBrowser does: no request, no error.
func TestHTMLScreenshot(t *testing.T) {
	page, dir := os.Getenv("MCPCONFORM_HTML_SCREENSHOT_PAGE"), os.Getenv("MCPCONFORM_HTML_SCREENSHOT_DIR")
	if page == "" || dir == "" {
		t.Skip("TestHTMLScreenshot runs only with MCPCONFORM_HTML_SCREENSHOT_PAGE and MCPCONFORM_HTML_SCREENSHOT_DIR set")
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	p := openHTML(t, abs)
	if _, err := p.page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, "html-report.png"))}); err != nil {
		t.Fatal(err)
	}
	cell := p.page.Locator(`button.cell[data-change="regressed"], button.cell[data-kind="FAIL"]`).First()
	if err := cell.Click(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join(dir, "html-report-cell.png"))}); err != nil {
		t.Fatal(err)
	}
	p.clean(t)
}

// TestHTMLCoverageInBrowser: the coverage view draws one section per
// edition, a row per requirement, each check's status per host and the
// reason of the unjudged ones, with no request and no console error.
func TestHTMLCoverageInBrowser(t *testing.T) {
	r := coverageRun()
	p := openHTML(t, writeHTMLFile(t, t.TempDir(), r, HTMLOptions{}))
	defer p.clean(t)
	if hidden := p.eval(t, `() => document.getElementById("coverage").hidden`); hidden != false {
		t.Fatalf("the coverage section is hidden")
	}
	cov := htmlCoverageOf(r)
	want := 0
	for _, e := range cov.Editions {
		want += len(e.Requirements)
	}
	if got := p.count(t, "#coverage tr[data-req]"); got != want || p.count(t, "#coverage details.cov-edition") != len(cov.Editions) {
		t.Errorf("%d requirement rows in %d sections, want %d in %d", got, p.count(t, "#coverage details.cov-edition"), want, len(cov.Editions))
	}
	row := `#coverage details[data-edition="2026-01-26"] tr[data-req="host-not-allow-undeclared-domains"]`
	if got := p.eval(t, `(sel) => [...document.querySelectorAll(sel + " .cov-kind")].map(e => e.getAttribute("aria-label")).join("|")`, row); got != "a: FAIL|b: pass" {
		t.Errorf("the judged requirement's statuses read %q, want %q", got, "a: FAIL|b: pass")
	}
	if got := p.eval(t, `() => document.querySelector('#coverage details[data-edition="draft"] tr[data-req="host-warn-users-ui-requires"] td.cov-reason').textContent`); got != "human: a warning shown to the user" {
		t.Errorf("the unjudged requirement's reason reads %q", got)
	}
}

// A BLOCKED cell links to the row of the check that blocked it, and the
// legend names the kind.
func TestHTMLBlockedCellLinksToItsBlocker(t *testing.T) {
	p := openHTML(t, writeHTMLFile(t, t.TempDir(), oneHostRun(), HTMLOptions{}))
	link := p.page.Locator(`tr[data-id="display/theme-variables"] a.blocker`)
	href, err := link.GetAttribute("href")
	if err != nil || href != "#check-display/theme-toggle" {
		t.Fatalf("blocker link href %q (%v), want #check-display/theme-toggle", href, err)
	}
	if txt, _ := link.InnerText(); txt != "blocked by display/theme-toggle" {
		t.Errorf("blocker link reads %q", txt)
	}
	if v := p.eval(t, `() => { const r = document.getElementById("check-display/theme-toggle"); return r ? r.dataset.id : "" }`); v != "display/theme-toggle" {
		t.Errorf("the link's target row: %v, want the display/theme-toggle row", v)
	}
	if legend, _ := p.page.Locator("#legend").InnerText(); !strings.Contains(legend, "⊘ blocked") {
		t.Errorf("legend %q lacks ⊘ blocked", legend)
	}
}
