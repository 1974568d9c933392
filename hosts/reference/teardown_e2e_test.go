package reference_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
)

// hostPage starts a reference host on the package's fixtures and opens its
// page.
func hostPage(t *testing.T, ctx context.Context, defects ...string) playwright.Page {
	t.Helper()
	page, _ := openHost(t, ctx, playwright.BrowserNewContextOptions{}, defects)
	return page
}

func say(t *testing.T, page playwright.Page, text string) {
	t.Helper()
	if err := page.Locator(`[data-testid="composer"]`).Fill(text); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator(`[data-testid="send"]`).Click(); err != nil {
		t.Fatal(err)
	}
}

// openProbe asks the agent to open a probe View and waits for its
// tool-input report.
func openProbe(t *testing.T, page playwright.Page, probe string, delayMs int) {
	t.Helper()
	markProbe(probe)
	say(t, page, fmt.Sprintf(`Please call the tool %s with arguments {"probe":%q,"delayMs":%d}`, mcpserver.ToolSlow, probe, delayMs))
	waitReports(t, probe, "tool-input")
}

// asked holds, per probe name, when the test asked for its View
// (markProbe). The package's fixture server is never cleared, and a probe
// name is a literal of its test: under -count=2 the second run would
// otherwise find the first run's reports and go on before its own View
// had said anything.
var asked sync.Map // probe name → time.Time

// markProbe notes that a View of probe is asked for now: reports() counts
// only the probe's reports from here on.
func markProbe(probe string) { asked.Store(probe, time.Now()) }

// reports are the fixture server's reports for one probe, as event names
// (since markProbe, when it was called for the probe).
func reports(probe string) []string {
	var out []string
	since, _ := asked.Load(probe)
	for _, r := range fixtureSet().MainServer.Observations().Reports {
		if r.Probe == probe && (since == nil || !r.Time.Before(since.(time.Time))) {
			out = append(out, r.Event)
		}
	}
	return out
}

func waitReports(t *testing.T, probe string, events ...string) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := reports(probe)
		missing := false
		for _, e := range events {
			if !slices.Contains(got, e) {
				missing = true
			}
		}
		if !missing {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("probe %s: want reports %v, got %v", probe, events, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// "New conversation" tears down every View the graceful way: a running
// tool call is cancelled (the View hears tool-cancelled, the server gets
// notifications/cancelled), each View gets ui/resource-teardown and is
// removed only after answering, then the conversation is cleared.
func TestNewConversationTearsDownEveryView(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page := hostPage(t, ctx)
	done, running := "e2e-newchat-done-"+nonce(), "e2e-newchat-running-"+nonce()
	openProbe(t, page, done, 0)
	waitReports(t, done, "tool-result")
	openProbe(t, page, running, 60_000)
	cards := page.Locator(`[data-testid="app-card"]`)
	if n, _ := cards.Count(); n != 2 {
		t.Fatalf("%d app cards, want 2", n)
	}
	if ok, _ := cards.Nth(1).Locator(`[data-testid="tool-stop"]`).IsVisible(); !ok {
		t.Error("the running call's card shows no Stop control")
	}
	if ok, _ := cards.Nth(0).Locator(`[data-testid="tool-stop"]`).IsVisible(); ok {
		t.Error("the finished call's card still shows a Stop control")
	}
	if err := page.Locator(`[data-testid="new-conversation"]`).Click(); err != nil {
		t.Fatal(err)
	}
	ms := 15000.0
	if err := cards.First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: &ms}); err != nil {
		t.Fatalf("the app cards were not removed: %v", err)
	}
	if n, _ := page.Locator(`[data-testid="conversation"] > *`).Count(); n != 0 {
		t.Errorf("the conversation still has %d elements", n)
	}
	// The View answers teardown only after reporting "flushed": a host that
	// removed it without waiting would never let that report out.
	got := waitReports(t, done, "teardown", "flushed")
	if slices.Contains(got, "tool-cancelled") {
		t.Errorf("the finished call's View was told it was cancelled: %v", got)
	}
	got = waitReports(t, running, "tool-cancelled", "teardown", "flushed", "server:cancelled")
	if slices.Index(got, "tool-cancelled") > slices.Index(got, "teardown") {
		t.Errorf("the running call's View got teardown before tool-cancelled: %v", got)
	}
	if slices.Contains(got, "tool-result") {
		t.Errorf("the cancelled call's View got a tool-result: %v", got)
	}
}

// The same page, with the defect no-teardown-on-close: the View is removed
// without ui/resource-teardown, which this test's observation catches.
func TestNewConversationWithoutTeardownIsCaught(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page := hostPage(t, ctx, "no-teardown-on-close")
	probe := "e2e-newchat-defect-" + nonce()
	openProbe(t, page, probe, 0)
	if err := page.Locator(`[data-testid="new-conversation"]`).Click(); err != nil {
		t.Fatal(err)
	}
	ms := 15000.0
	if err := page.Locator(`[data-testid="app-card"]`).First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: &ms}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // nothing to wait for: the report must never come
	if got := reports(probe); slices.Contains(got, "teardown") {
		t.Fatalf("the defect host sent ui/resource-teardown after all: %v", got)
	}
}

// ui/notifications/request-teardown: the host accepts it, tears the View
// down gracefully and removes it.
func TestRequestTeardownRemovesTheView(t *testing.T) {
	_, fx := e2e(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	page := hostPage(t, ctx)
	probe := "e2e-request-teardown-" + nonce()
	markProbe(probe)
	say(t, page, fmt.Sprintf(`Please call the tool %s with arguments {"probe":%q,"delayMs":0,"mode":"request-teardown"}`, mcpserver.ToolSlow, probe))
	got := waitReports(t, probe, "teardown-requested", "teardown", "flushed")
	ms := 10000.0
	if err := page.Locator(`[data-testid="app-card"]`).First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: &ms}); err != nil {
		t.Fatalf("the View asked to be closed and was not removed: %v (reports %v)", err, got)
	}
	var params struct{ Reason string }
	for _, r := range fx.MainServer.Observations().Reports {
		if r.Probe == probe && r.Event == "teardown" {
			json.Unmarshal(r.Data, &params)
		}
	}
	if !strings.Contains(params.Reason, "asked") {
		t.Errorf("teardown reason %q, want the host's reason for an app-requested teardown", params.Reason)
	}
}

var nonceSeq int

func nonce() string {
	nonceSeq++
	return fmt.Sprintf("%d-%d", time.Now().UnixNano(), nonceSeq)
}

// The driver's closeView closes the View it is asked to and sees it go
// while a View shown after it stays: it once named the card by its place,
// and once the card was removed that place held the later one, so the
// wait for the removal ran out its 30 s (seen in CI under load).
func TestCloseViewWhileALaterViewStays(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h := reference.New()
	if err := h.Setup(ctx, env(t)); err != nil {
		t.Fatal(err)
	}
	defer h.Teardown(context.Background())
	first, later := "close-first", "close-later"
	for _, p := range []string{first, later} {
		markProbe(p)
		args, _ := json.Marshal(map[string]any{"probe": p, "delayMs": 0})
		r, err := h.OpenTool(ctx, protocol.Request{Kind: protocol.KindOpenTool, Tool: mcpserver.ToolSlow, Arguments: args})
		if err != nil || !r.OK {
			t.Fatalf("openTool %s: %+v %v", p, r, err)
		}
		waitReports(t, p, "tool-input")
	}
	start := time.Now()
	r, err := h.CloseView(ctx, protocol.Request{Kind: protocol.KindCloseView, Marker: first})
	if err != nil || !r.OK {
		t.Fatalf("closing the first of two probe Views (after %s): %+v %v", time.Since(start).Round(time.Millisecond), r, err)
	}
	waitReports(t, first, "teardown")
	// closeView returns once the host took the close; the card goes once
	// the View answered its teardown (a second of work, FLUSH_MS).
	waitReports(t, first, "flushed")
	cards := h.Page.Locator(`[data-testid="app-card"][data-tool="` + mcpserver.ToolSlow + `"]`)
	if err := cards.Nth(1).WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: playwright.Float(15000)}); err != nil {
		t.Fatalf("the closed View's card was not removed after its teardown was answered: %v", err)
	}
	if n, err := cards.Count(); err != nil || n != 1 {
		t.Fatalf("after closing one of two probe Views, %d probe cards are shown (%v): want the later one", n, err)
	}
	if slices.Contains(reports(later), "teardown") {
		t.Errorf("the later View got ui/resource-teardown: the close reached the wrong View (its reports %v)", reports(later))
	}
}
