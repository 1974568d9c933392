package generic

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"
	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/internal/freeport"
	"github.com/mcpconform/mcpconform/protocol"
)

// Hooks are the Go code of a host for what configuration cannot say. A
// host built into mcpconform is a Profile plus Hooks; a profile from the
// environment has none.
type Hooks struct {
	// Vars are the placeholders Prepare supplies (e.g. "token"); "url"
	// among them lets the profile leave URL empty.
	Vars []string
	// Prepare runs at the start of Setup, before the page opens: start
	// what the host needs, return the values of Vars. cleanup, if not nil,
	// runs at Teardown.
	Prepare func(ctx context.Context, env hosts.Env) (vars map[string]string, cleanup func() error, err error)
	// ModelTools, when set, answers readModelToolList with the tool list
	// the host's model sees (a JSON array of tools).
	ModelTools func(ctx context.Context) (json.RawMessage, error)
	// NewSessionTools, when set, answers readNewSessionToolList with the
	// tool list the host's model sees in a new session (a JSON array).
	NewSessionTools func(ctx context.Context) (json.RawMessage, error)
}

// Sentinel errors of Setup, wrapped by *SetupError. Both are
// infrastructure failures (the host could not be judged, exit code 3).
var (
	// ErrStep is a step of STEPS that did not complete.
	ErrStep = errors.New("a step of the host profile failed")
	// ErrAppNotShown means the steps ran but no frame carried the suite
	// within the app timeout. It also wraps bridge.ErrNoSuite.
	ErrAppNotShown = errors.New("the host never showed the app")
)

// SetupError is a failed Setup of a profile host: which variable and step
// to look at, and the screenshot taken when it failed.
type SetupError struct {
	Variable   string // the variable to fix, e.g. MCPCONFORM_X_STEPS
	Step       int    // 1-based step index, 0 when not a step
	What       string // the step as written, or what was waited for
	Screenshot string // path of the PNG of the page at the failure, "" if none
	// Elapsed is how long the failing step (or the wait for the app) ran.
	Elapsed time.Duration
	Err     error
	kind    error
}

func (e *SetupError) Error() string {
	var b strings.Builder
	b.WriteString(e.Variable)
	if e.Step > 0 {
		fmt.Fprintf(&b, " step %d (%s)", e.Step, e.What)
	} else if e.What != "" {
		fmt.Fprintf(&b, " (%s)", e.What)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Screenshot != "" {
		b.WriteString("; screenshot: " + e.Screenshot)
	}
	return b.String()
}

func (e *SetupError) Unwrap() []error { return []error{e.kind, e.Err} }

// Host drives a web host as its profile says. It embeds the browser base
// and has every capability method a profile can give; Supports (see
// caps.go) says which the profile configures, and only those count.
type Host struct {
	*browserhost.Base
	cfg   *config
	hooks Hooks

	logf    func(string, ...any)
	vars    map[string]string
	cleanup func() error
	// started is START's process, stopped at Teardown.
	started *startedCmd
	// toolTab is the tab of the last OPEN_TOOL (nil when none is open).
	toolTab playwright.Page

	// native are the page's native dialogs (CONFIRM=native).
	native browserhost.Dialogs
	// stopApproving ends APPROVE's clicks.
	stopApproving func()
	// input keeps APPROVE's clicks and the steps' own input apart: two
	// Playwright clicks at once on one page swallow each other's, each
	// reported done (README FAQ), and a click moves the focus a step
	// types into. Held around the input itself, never around a wait for
	// what an approval may be covering (see click).
	input sync.Mutex
}

// Lookup builds the host of the profile name from MCPCONFORM_<NAME>_*
// variables in l. Bad or missing variables give a *ProfileError
// (errors.Is ErrProfile, exit code 2) that names each variable to fix;
// nothing is started.
func Lookup(name string, l envconfig.Lookuper) (hosts.Host, error) {
	p, err := Load(name, l)
	if err != nil {
		return nil, err
	}
	return New(name, p, Hooks{})
}

// New builds a host from a profile given in Go, with Go hooks for what the
// profile cannot say. A zero StepTimeout is 30s, a zero StartTimeout 1m.
func New(name string, p Profile, hk Hooks) (hosts.Host, error) {
	if p.StepTimeout == 0 {
		p.StepTimeout = 30 * time.Second
	}
	if p.StartTimeout == 0 {
		p.StartTimeout = time.Minute
	}
	c, err := compile(name, p, hk)
	if err != nil {
		return nil, err
	}
	h := &Host{
		Base:  &browserhost.Base{AppFrame: c.frame},
		cfg:   c,
		hooks: hk,
	}
	return h, nil
}

// Unwrap returns the *Host behind a host Lookup or New returned.
func Unwrap(h hosts.Host) (*Host, bool) {
	c, ok := h.(*Host)
	return c, ok
}

// Name is the profile's canonical name.
func (h *Host) Name() string { return h.cfg.name }

// Capabilities are the capabilities the profile gives the host.
func (h *Host) Capabilities() []protocol.Kind {
	var out []protocol.Kind
	for _, k := range protocol.Kinds {
		if h.cfg.caps[k] {
			out = append(out, k)
		}
	}
	return out
}

// Steps are the profile's parsed steps.
func (h *Host) Steps() []Step { return append([]Step(nil), h.cfg.steps...) }

func (h *Host) variable(field string) string { return Var(h.cfg.name, field) }

// Setup runs the hooks, opens a page, checks every selector of the profile
// in the browser and runs the steps, which show the app. A failing step
// gives a *SetupError naming the variable and step, with the path of a
// screenshot of the page.
func (h *Host) Setup(ctx context.Context, env hosts.Env) error {
	h.logf = env.Logf
	if h.logf == nil {
		h.logf = func(string, ...any) {}
	}
	ports, err := freeport.Loopback(1)
	if err != nil {
		return fmt.Errorf("choosing a free port for {port}: %w", err)
	}
	h.vars = map[string]string{
		PhServer:  env.ServerURL,
		PhServer2: env.SecondServerURL,
		PhNonce:   randomHex(8),
		PhPort:    strconv.Itoa(ports[0]),
	}
	h.vars[PhURL] = expand(h.cfg.url, h.vars)
	if h.hooks.Prepare != nil {
		vars, cleanup, err := h.hooks.Prepare(ctx, env)
		h.cleanup = cleanup
		if err != nil {
			return err
		}
		for k, v := range vars {
			h.vars[k] = v
		}
	}
	if h.vars[PhURL] == "" {
		return fmt.Errorf("%w: %s is empty", ErrProfile, h.variable("URL"))
	}
	if h.cfg.start != "" {
		if err := h.startCommand(ctx); err != nil {
			return err
		}
	}
	opts := playwright.BrowserNewContextOptions{}
	if h.cfg.storageState != "" {
		opts.StorageStatePath = playwright.String(h.cfg.storageState)
	}
	if err := h.Open(env, opts); err != nil {
		return err
	}
	if h.cfg.confirm == ConfirmNative {
		h.native.Watch(h.Page, nativePolicy)
	}
	if err := h.checkSelectors(); err != nil {
		return err
	}
	if h.cfg.approve != "" {
		h.watchApprovals()
	}
	for _, st := range h.cfg.steps {
		t0 := time.Now()
		if err := h.runStep(ctx, h.Page, st, h.vars); err != nil {
			d := time.Since(t0)
			return &SetupError{Variable: h.variable("STEPS"), Step: st.Index, What: st.Describe(h.vars), Err: redacted{err: err}, kind: ErrStep, Elapsed: d, Screenshot: h.screenshot(fmt.Sprintf("step%d", st.Index))}
		}
		h.logf("%s step %d: %s (%s)", h.cfg.name, st.Index, st.Describe(h.vars), time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// BindSuite binds to the suite in the app frame the steps showed
// (hosts.FrameBinder); an app that never shows gives a *SetupError naming
// the variables to check, with a screenshot of the page.
func (h *Host) BindSuite(ctx context.Context, timeout time.Duration) (hosts.SuiteBridge, error) {
	t0 := time.Now()
	sb, err := h.Base.BindSuite(ctx, timeout)
	if err != nil {
		d := time.Since(t0)
		v, what := h.variable("APP_FRAME"), "frame path "+strings.Join(h.cfg.frame, "; ")
		if len(h.cfg.frame) == 0 {
			v, what = h.variable("STEPS"), "after the last step, every frame searched"
		}
		return nil, &SetupError{Variable: v, What: what, kind: ErrAppNotShown, Elapsed: d, Screenshot: h.screenshot("app-not-shown"),
			Err: redacted{err: fmt.Errorf("%w after %d step(s) (check the last steps of %s and %s): %w", ErrAppNotShown, len(h.cfg.steps), h.variable("STEPS"), h.variable("APP_FRAME"), redacted{err, true})}}
	}
	return sb, nil
}

// checkSelectors has the browser parse every selector of the profile on
// the blank page, so a malformed one is reported as the profile's fault
// before any step runs.
func (h *Host) checkSelectors() error {
	type sel struct{ v, where, s string }
	var all []sel
	// Placeholders that have no value yet ({tool}, {marker}) stand in as
	// a plain word.
	sample := map[string]string{PhTool: "tool", PhArguments: "{}", PhMarker: "marker", PhKey: "key"}
	for k, v := range h.vars {
		sample[k] = v
	}
	stepSels := func(v string, steps []Step) {
		for _, st := range steps {
			if selects(st.Verb) {
				all = append(all, sel{v, fmt.Sprintf(" step %d (%s)", st.Index, st), expand(st.Target, sample)})
			}
		}
	}
	stepSels("STEPS", h.cfg.steps)
	stepSels("OPEN_TOOL", h.cfg.openTool)
	for _, a := range []struct {
		v string
		a action
	}{{"CLOSE", h.cfg.close}, {"CANCEL", h.cfg.cancel}} {
		stepSels(a.v, a.a.steps)
		if a.a.sel != "" {
			all = append(all, sel{a.v, "", expand(a.a.sel, sample)})
		}
	}
	if h.cfg.modelTools.sel != "" {
		all = append(all, sel{"MODEL_TOOLS", "", h.cfg.modelTools.sel})
	}
	for i, f := range h.cfg.frame {
		all = append(all, sel{"APP_FRAME", fmt.Sprintf(" part %d", i+1), f})
	}
	if h.cfg.conversation != "" {
		all = append(all, sel{"CONVERSATION", "", h.cfg.conversation})
	}
	if h.cfg.userMessages != "" {
		all = append(all, sel{"USER_MESSAGES", "", h.cfg.userMessages})
	}
	if h.cfg.theme.toggle != "" && h.cfg.theme.toggle != ThemeEmulate {
		all = append(all, sel{"THEME_TOGGLE", "", h.cfg.theme.toggle})
	}
	if h.cfg.theme.attrSel != "" {
		all = append(all, sel{"THEME_ATTR", "", h.cfg.theme.attrSel})
	}
	if h.cfg.approve != "" {
		all = append(all, sel{"APPROVE", "", h.cfg.approve})
	}
	if h.cfg.confirm != "" && h.cfg.confirm != ConfirmNative {
		all = append(all, sel{"CONFIRM", "", expand(h.cfg.confirm, map[string]string{PhDialog: string(protocol.DialogDownload)})})
	}
	var problems []string
	for _, s := range all {
		if _, err := h.Page.Locator(s.s).Count(); err != nil {
			problems = append(problems, fmt.Sprintf("%s%s: the browser rejects the selector %q: %s", h.variable(s.v), s.where, s.s, browserhost.FirstLine(err)))
		}
	}
	if len(problems) > 0 {
		return &ProfileError{Name: h.cfg.name, Problems: problems}
	}
	return nil
}

// runStep runs one step in page within the profile's step timeout, with
// the placeholders of vars filled in.
func (h *Host) runStep(ctx context.Context, page playwright.Page, st Step, vars map[string]string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ms := float64(h.cfg.stepTimeout.Milliseconds())
	target := expand(st.Target, vars)
	text := expand(st.Text, vars)
	switch st.Verb {
	case VerbGoto:
		// Waits for the load event, as docs/profiles.md says.
		if _, err := page.Goto(target, playwright.PageGotoOptions{Timeout: &ms, WaitUntil: playwright.WaitUntilStateLoad}); err != nil {
			return fmt.Errorf("loading the page failed: %s", browserhost.FirstLine(err))
		}
		return nil
	case VerbPress:
		if err := h.typing(nil, ms, func() error { return browserhost.PressInPage(page, target) }); err != nil {
			return fmt.Errorf("pressing %q failed: %s", target, browserhost.FirstLine(err))
		}
		return nil
	case VerbFillForm:
		return h.fillForm(page, target, text)
	}
	loc := page.Locator(target).First()
	var err error
	switch st.Verb {
	case VerbClick:
		err = h.click(loc, h.cfg.stepTimeout)
	case VerbFill:
		err = h.typing(loc, ms, func() error { return loc.Fill(text, playwright.LocatorFillOptions{Timeout: &ms}) })
	case VerbSelect:
		err = h.typing(loc, ms, func() error {
			_, err := loc.SelectOption(playwright.SelectOptionValues{ValuesOrLabels: &[]string{text}}, playwright.LocatorSelectOptionOptions{Timeout: &ms})
			return err
		})
	case VerbWaitFor:
		err = loc.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &ms})
	case VerbWaitForText:
		err = page.Locator(target).Filter(playwright.LocatorFilterOptions{HasText: text}).First().
			WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &ms})
		if err != nil {
			if n, cerr := page.Locator(target).Count(); cerr == nil && n > 0 {
				got, _ := page.Locator(target).First().InnerText(playwright.LocatorInnerTextOptions{Timeout: playwright.Float(1000)})
				return fmt.Errorf("the selector %q matches, but no visible match shows %q within %s (the first reads %q)", target, text, h.cfg.stepTimeout, clip(got, 200))
			}
		}
	case VerbWaitForHidden:
		// No visible match left: the first visible one, if any, goes.
		err = page.Locator(target + " >> visible=true").First().WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateDetached, Timeout: &ms})
		if err != nil {
			return fmt.Errorf("an element matching %q is still visible after %s (%s): %s", target, h.cfg.stepTimeout, h.variable("STEP_TIMEOUT"), browserhost.FirstLine(err))
		}
		return nil
	}
	if err == nil {
		return nil
	}
	if n, cerr := page.Locator(target).Count(); cerr == nil && n == 0 {
		return fmt.Errorf("no element matches the selector %q within %s (%s)", target, h.cfg.stepTimeout, h.variable("STEP_TIMEOUT"))
	}
	return fmt.Errorf("the selector %q matches, but %s did not complete within %s: %s", target, st.Verb, h.cfg.stepTimeout, browserhost.FirstLine(err))
}

// approvalInterval is how often the approval watcher looks for APPROVE's
// button.
var approvalInterval = 250 * time.Millisecond

// watchApprovals clicks APPROVE's button whenever it shows, until
// Teardown, taking the input lock for each click.
func (h *Host) watchApprovals() {
	h.stopApproving = browserhost.AutoClick(h.Page.Locator(h.cfg.approve), approvalInterval, &h.input, func() {
		h.logf("%s: approved a tool call (%s)", h.cfg.name, h.variable("APPROVE"))
	})
}

// typing runs input that does not hit-test (typing, a key, a choice in a
// select) under the input lock: an approval clicked meanwhile would take
// the focus it types into. The wait for loc (nil for a key) to show comes
// first, without the lock: it may show only once an approval is answered.
func (h *Host) typing(loc playwright.Locator, ms float64, do func() error) error {
	if loc != nil {
		if err := loc.WaitFor(playwright.LocatorWaitForOptions{State: playwright.WaitForSelectorStateVisible, Timeout: &ms}); err != nil {
			return err
		}
	}
	h.input.Lock()
	defer h.input.Unlock()
	return do()
}

// click clicks loc within timeout. Under APPROVE the wait for loc to take
// a click (a trial click: visible, stable, not covered) comes first and
// without the input lock, since what covers loc may be an approval the
// watcher has yet to answer; the click itself is made under the lock, in
// a short bound, and when loc was covered again meanwhile (the next
// approval came up) the page is left to the watcher and the wait resumes.
func (h *Host) click(loc playwright.Locator, timeout time.Duration) error {
	if h.stopApproving == nil {
		ms := float64(timeout.Milliseconds())
		return loc.Click(playwright.LocatorClickOptions{Timeout: &ms})
	}
	deadline := time.Now().Add(timeout)
	for {
		left := float64(time.Until(deadline).Milliseconds())
		if left <= 0 {
			left = 1
		}
		if err := loc.Click(playwright.LocatorClickOptions{Trial: playwright.Bool(true), Timeout: &left}); err != nil {
			return err
		}
		h.input.Lock()
		err := loc.Click(playwright.LocatorClickOptions{Timeout: playwright.Float(min(left, clickUnderLockMs))})
		h.input.Unlock()
		if err == nil || !(errors.Is(err, playwright.ErrTimeout) || strings.Contains(err.Error(), "Timeout")) || !time.Now().Before(deadline) {
			return err
		}
	}
}

// clickUnderLockMs bounds a step's click made under the input lock: the
// trial before it found loc clickable, so only a prompt that came up in
// between holds it, and the watcher needs the lock to answer that one.
const clickUnderLockMs = 1000

// clip shortens s to at most n bytes for a message.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// screenshot saves the page as it is now in the run's evidence directory
// for the host (browserhost.Base.EvidenceDir) and returns the path (""
// when it could not, or when the run keeps no evidence).
func (h *Host) screenshot(tag string) string {
	if h.Page == nil || h.EvidenceDir == "" {
		return ""
	}
	p, err := browserhost.SaveScreenshot(h.Page, h.EvidenceDir, fmt.Sprintf("%s-setup-%s-%s-%s.png", h.cfg.name, tag, time.Now().Format("20060102-150405"), randomHex(3)))
	if err != nil {
		h.logf("screenshot: %v", err)
	}
	return p
}

// Teardown closes the browser context, runs the hooks' cleanup and stops
// START's process group.
func (h *Host) Teardown(ctx context.Context) error {
	if h.stopApproving != nil {
		h.stopApproving()
		h.stopApproving = nil
	}
	err := h.Close()
	if h.cleanup != nil {
		err = errors.Join(err, h.cleanup())
		h.cleanup = nil
	}
	if h.started != nil {
		err = errors.Join(err, h.started.stop())
		h.started = nil
	}
	return err
}

// nativePolicy accepts the page's native confirm() and alert() dialogs as
// they appear (a native dialog blocks the renderer, and with it a
// same-process View, so waiting for the suite to ask would deadlock) and
// dismisses prompts. ConfirmDialog reports the confirmations.
func nativePolicy(typ, msg string) (accept, record bool) {
	return typ != "prompt", typ == "confirm"
}

// redacted hides the query strings of URLs in an error's message (deep
// links carry tokens; the message lands in reports and logs), optionally
// keeps only its first line (Playwright appends call logs), and keeps the
// error's chain.
type redacted struct {
	err     error
	oneLine bool
}

var queryRE = regexp.MustCompile(`(https?://[^\s"'?]*)\?[^\s"']*`)

func (r redacted) Error() string {
	if r.oneLine {
		return Redact(browserhost.FirstLine(r.err))
	}
	return Redact(r.err.Error())
}
func (r redacted) Unwrap() error { return r.err }

// Redact replaces the query string of every http(s) URL in s with "?…".
func Redact(s string) string { return queryRE.ReplaceAllString(s, "$1?…") }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
