package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// Checks that run one after another (none side by side: TestDef.sideBySide),
// two of them with a probe View of their own, so that the video shows
// more than the suite's View.
var videoChecks = []string{"negotiation/ui-extension-advertised", "lifecycle/tool-cancelled", "tools/app-tools-limited"}

// TestRunVideoRecordsTheHostAndTheReportsLinkIt: run --video on the
// reference host saves a WebM of the host page under the evidence
// directory; the JSON links it with each check's start in it, the JUnit
// and Markdown link it, and the HTML page embeds it and seeks it to a
// check's start when the check's mark is clicked.
func TestRunVideoRecordsTheHostAndTheReportsLinkIt(t *testing.T) {
	e2etest.Require(t)
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	args := []string{"run", "--video", "--evidence-dir", p("evidence"), "--json", p("out.json"), "--html", p("out.html"),
		"--junit", p("out.xml"), "--markdown", p("out.md")}
	for _, id := range videoChecks {
		args = append(args, "--run", id)
	}
	stdout, stderr, code := mcpconform(t, nil, args...)
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	video := p("evidence/reference/video.webm")
	b, err := os.ReadFile(video)
	if err != nil {
		t.Fatalf("no video: %v\nstderr:\n%s", err, stderr)
	}
	if !bytes.HasPrefix(b, []byte{0x1a, 0x45, 0xdf, 0xa3}) || len(b) < 10_000 {
		t.Fatalf("video is %d bytes starting % x: not a WebM of a run", len(b), b[:min(len(b), 4)])
	}
	if _, err := os.Stat(p("evidence/reference/.video-recording")); !os.IsNotExist(err) {
		t.Errorf("the recording directory is left behind (%v)", err)
	}

	var res struct {
		Hosts []struct {
			Video string `json:"video"`
			Cases []struct {
				ID          string   `json:"id"`
				StartedAtMs *float64 `json:"startedAtMs"`
				DurationMs  float64  `json:"durationMs"`
			} `json:"cases"`
		} `json:"hosts"`
	}
	jb, err := os.ReadFile(p("out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jb, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Hosts) != 1 || res.Hosts[0].Video != video || len(res.Hosts[0].Cases) != len(videoChecks) {
		t.Fatalf("JSON hosts %+v, want one host linking %s with %d cases", res.Hosts, video, len(videoChecks))
	}
	offsets := map[string]float64{}
	for _, c := range res.Hosts[0].Cases {
		if c.StartedAtMs == nil || *c.StartedAtMs <= 0 || *c.StartedAtMs > 120_000 {
			t.Errorf("%s: startedAtMs %v, want an offset into the video", c.ID, c.StartedAtMs)
			continue
		}
		offsets[c.ID] = *c.StartedAtMs
	}
	// These checks run in order: each starts after the one before
	// ended, less a poll's slack. (The runner learns a check's start when
	// a poll first shows it running, so a start can be late by as long as
	// a poll takes: 144 ms once in CI on a loaded machine, against 50 ms
	// allowed before. A second still tells order from overlap.)
	for i := 1; i < len(videoChecks); i++ {
		a, b := res.Hosts[0].Cases[i-1], res.Hosts[0].Cases[i]
		if a.StartedAtMs != nil && b.StartedAtMs != nil && (*b.StartedAtMs <= *a.StartedAtMs || *b.StartedAtMs+1000 < *a.StartedAtMs+a.DurationMs) {
			t.Errorf("%s starts at %.0f ms, before %s ended (%.0f + %.0f ms)", b.ID, *b.StartedAtMs, a.ID, *a.StartedAtMs, a.DurationMs)
		}
	}
	if xb, _ := os.ReadFile(p("out.xml")); !strings.Contains(string(xb), `<property name="video" value="`+video+`">`) {
		t.Errorf("JUnit has no video property:\n%s", xb)
	}
	if mb, _ := os.ReadFile(p("out.md")); !strings.Contains(string(mb), "[video.webm](") {
		t.Errorf("Markdown has no video link:\n%s", mb)
	}

	// The HTML page: the video embedded, a mark per check at its offset.
	hb, err := os.ReadFile(p("out.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="mcpconform-data">(.*?)</script>`).FindSubmatch(hb)
	if m == nil {
		t.Fatal("no data block in the page")
	}
	var page struct {
		Hosts []struct {
			Video *struct{ Path, Media, Note string } `json:"video"`
		} `json:"hosts"`
		Rows []struct {
			ID    string `json:"id"`
			Cells []*struct {
				VideoAtMs *float64 `json:"videoAtMs"`
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(m[1], &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Hosts) != 1 || page.Hosts[0].Video == nil || page.Hosts[0].Video.Media == "" {
		t.Fatalf("page hosts %+v: want the video embedded", page.Hosts)
	}
	for _, r := range page.Rows {
		if c := r.Cells[0]; c == nil || c.VideoAtMs == nil || *c.VideoAtMs != offsets[r.ID] {
			t.Errorf("%s: page offset %v, want the JSON's %v", r.ID, c, offsets[r.ID])
		}
	}

	br, err := browser.Launch(browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	ctx, pg, err := br.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	var consoleErrors []string
	pg.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			consoleErrors = append(consoleErrors, m.Text())
		}
	})
	if _, err := pg.Goto((&url.URL{Scheme: "file", Path: p("out.html")}).String()); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.WaitForFunction(`() => { const v = document.querySelector("#videos video"); return v && v.readyState >= 1 && v.duration > 0; }`, nil,
		playwright.PageWaitForFunctionOptions{Timeout: playwright.Float(10000)}); err != nil {
		t.Fatalf("the page's video never loaded: %v (console errors %q)", err, consoleErrors)
	}
	last := videoChecks[len(videoChecks)-1]
	mark := pg.Locator(`#videos button.mark[data-id="` + last + `"]`)
	if err := mark.Click(); err != nil {
		t.Fatal(err)
	}
	at, err := pg.Evaluate(`() => document.querySelector("#videos video").currentTime * 1000`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := at.(float64)
	if want := offsets[last]; got < want-1 || got > want+1 {
		t.Errorf("clicking the mark of %s seeks to %.0f ms, want %.0f", last, got, want)
	}
	if len(consoleErrors) > 0 {
		t.Errorf("console errors: %q", consoleErrors)
	}
}

// TestRunVideoWithoutFFmpegFailsFast: with no FFmpeg that Playwright can
// use, --video stops before any check runs, with an infrastructure exit
// and a message naming the package to install, instead of a run without
// a video.
func TestRunVideoWithoutFFmpegFailsFast(t *testing.T) {
	e2etest.Require(t)
	dir := t.TempDir()
	t.Setenv("PLAYWRIGHT_BROWSERS_PATH", filepath.Join(dir, "browsers"))
	stdout, stderr, code := mcpconform(t, []string{"MCPCONFORM_FFMPEG=" + filepath.Join(dir, "no-ffmpeg")},
		"run", "--video", "--evidence-dir", filepath.Join(dir, "evidence"), "--run", videoChecks[0])
	if code != ExitInfra || !strings.Contains(stderr, "apt-get install ffmpeg") {
		t.Fatalf("exit %d, want %d naming apt-get install ffmpeg\nstdout:\n%s\nstderr:\n%s", code, ExitInfra, stdout, stderr)
	}
	// A check line starts with its status; the closing judged count
	// ("judged 0 of 0 (PASS 0, FAIL 0)") names statuses too.
	if regexp.MustCompile(`(?m)^\s*(PASS|FAIL|SKIP)\b`).MatchString(stdout) {
		t.Errorf("checks ran without a video:\n%s", stdout)
	}
}
