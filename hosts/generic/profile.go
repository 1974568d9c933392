package generic

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/protocol"
)

// Prefix starts every profile variable: MCPCONFORM_<PROFILE>_<FIELD>.
const Prefix = "MCPCONFORM_"

// Profile is a web host described by MCPCONFORM_<PROFILE>_* variables
// (read with go-envconfig) or, for a host built into mcpconform, by a Go
// value. docs/profiles.md is the reference of every field.
type Profile struct {
	// URL is the host's web UI, {url} in STEPS; it may use {port}.
	URL string `env:"URL, required"`
	// Steps make the host show the conformance app: goto, click, fill,
	// select, press and the waits, separated by ";" or newlines.
	Steps string `env:"STEPS, required"`
	// AppFrame is the path of iframe selectors from the top page to the
	// app's document, separated by ";"; empty: every frame is searched.
	AppFrame string `env:"APP_FRAME"`
	// StepTimeout bounds each step.
	StepTimeout time.Duration `env:"STEP_TIMEOUT, default=30s"`
	// Start is a shell command run before the steps ({server}, {server2},
	// {port} …), stopped with its whole process group after the run.
	Start string `env:"START"`
	// Ready says when START is up: an http(s) URL that answers, or
	// line:TEXT, a line of START's output containing TEXT.
	Ready string `env:"READY"`
	// StartTimeout bounds the wait for READY.
	StartTimeout time.Duration `env:"START_TIMEOUT, default=1m"`
	// Conversation is the element whose text is the conversation; it
	// enables conversationContains.
	Conversation string `env:"CONVERSATION"`
	// UserMessages matches each of the user's own messages in the
	// conversation (the turns the user sent); with CONVERSATION it
	// enables messageRole.
	UserMessages string `env:"USER_MESSAGES"`
	// ThemeToggle is the button that switches the host's theme, or
	// "emulate" to switch prefers-color-scheme; it enables toggleTheme.
	ThemeToggle string `env:"THEME_TOGGLE"`
	// ThemeAttr is SELECTOR@ATTRIBUTE, where the current theme reads.
	ThemeAttr string `env:"THEME_ATTR"`
	// Confirm is "native" (accept the page's confirm() dialogs as they
	// appear) or the selector of the confirm button of the host's own
	// dialog ({dialog} is open-link, download or sampling); it enables
	// confirmDialog.
	Confirm string `env:"CONFIRM"`
	// Dialogs are the dialogs the host asks before acting (default all).
	Dialogs []string `env:"DIALOGS"`
	// Approve is the selector of the button that approves a tool call when
	// the host asks the user before each one (the model's, or the app's own
	// tools/call); the driver clicks it whenever it is visible, as the user
	// would.
	Approve string `env:"APPROVE"`
	// OpenTool are steps that make the host call {tool} with {arguments}
	// and show its View; they enable openTool.
	OpenTool string `env:"OPEN_TOOL"`
	// OpenToolPage is where OPEN_TOOL runs: "new" (a new tab of the same
	// browser context, the default) or "same" (the page showing the suite).
	OpenToolPage string `env:"OPEN_TOOL_PAGE"`
	// Close closes the View showing {marker}: steps, or a selector clicked
	// nearest that View; it enables closeView.
	Close string `env:"CLOSE"`
	// Cancel stops the tool call whose View shows {marker}: steps, or a
	// selector clicked nearest that View; it enables cancelTool.
	Cancel string `env:"CANCEL"`
	// ModelTools is SELECTOR or SELECTOR@ATTRIBUTE: one element per tool
	// the model can call, named by its text or the attribute; it enables
	// readModelToolList.
	ModelTools string `env:"MODEL_TOOLS"`
	// NewSession are steps that start a new session of the host (a new
	// conversation) in a new tab of the same browser context, where
	// MODEL_TOOLS is then read; the tab is closed after. With MODEL_TOOLS
	// they enable readNewSessionToolList.
	NewSession string `env:"NEW_SESSION"`
	// Unsupported are capabilities declared unsupported.
	Unsupported []string `env:"UNSUPPORTED"`
	// StorageState is the path of a Playwright storage-state file (cookies
	// and local storage of a logged-in session).
	StorageState string `env:"STORAGE_STATE"`
	// Agent is "none" for a host with no agent (no model answers the
	// conversation: an Inspector, a development UI) or "present"; it
	// enables hasAgent. With "none" the checks that need the agent SKIP
	// at once instead of after the agent control question's 20 s window.
	Agent string `env:"AGENT"`
	// Views is "kept" for a host that keeps every View it shows open
	// beside the ones opened after it, until it is closed (a conversation
	// of cards), or "replaced" for one that shows one at a time; it
	// enables keepsViews. With "kept" (which needs OPEN_TOOL_PAGE=same:
	// a new tab closes the last one, and its View) the suite runs its
	// probe checks side by side.
	Views string `env:"VIEWS"`
}

// The values of VIEWS.
const (
	ViewsKept     = "kept"
	ViewsReplaced = "replaced"
)

// The values of AGENT.
const (
	AgentNone    = "none"
	AgentPresent = "present"
)

// Variables is every profile variable, without MCPCONFORM_<PROFILE>_, in
// the order of Profile's fields.
var Variables = func() []string {
	var out []string
	t := reflect.TypeOf(Profile{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("env"), ",")
		out = append(out, name)
	}
	return out
}()

// Required are the variables a profile cannot do without.
var Required = []string{"URL", "STEPS"}

// ThemeEmulate is the THEME_TOGGLE value that switches the page's
// prefers-color-scheme instead of clicking a button.
const ThemeEmulate = "emulate"

// ConfirmNative is the CONFIRM value for hosts that ask with the browser's
// own confirm() dialog.
const ConfirmNative = "native"

// OPEN_TOOL_PAGE values.
const (
	OpenToolNew  = "new"  // a new tab of the browser context (default)
	OpenToolSame = "same" // the page that shows the suite
)

// ReadyLine starts a READY value that waits for a line of START's output.
const ReadyLine = "line:"

// Sentinel errors. A *ProfileError wraps ErrProfile (and ErrNoProfile when
// no variable of the profile is set at all).
var (
	// ErrProfile is bad input: a missing, empty or malformed profile
	// variable. The CLI maps it to exit code 2.
	ErrProfile = errors.New("bad host profile")
	// ErrNoProfile means no MCPCONFORM_<PROFILE>_* variable is set.
	ErrNoProfile = errors.New("no such host profile")
)

// ProfileError lists everything wrong with a profile, each problem naming
// the variable (and step) to fix.
type ProfileError struct {
	Name     string
	Problems []string
	none     bool
}

func (e *ProfileError) Error() string {
	if len(e.Problems) == 1 {
		return fmt.Sprintf("host profile %q: %s", e.Name, e.Problems[0])
	}
	return fmt.Sprintf("host profile %q has %d problems:\n  - %s", e.Name, len(e.Problems), strings.Join(e.Problems, "\n  - "))
}

// Unwrap gives ErrProfile, and ErrNoProfile when nothing was set.
func (e *ProfileError) Unwrap() []error {
	if e.none {
		return []error{ErrProfile, ErrNoProfile}
	}
	return []error{ErrProfile}
}

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// Key is the variable infix of a profile name: "my-host" → "MY_HOST".
func Key(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// Canonical is the name a profile is listed and reported under:
// "MY_HOST" → "my-host".
func Canonical(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", "-"))
}

// Var is the full name of a profile variable: Var("my-host", "URL") is
// MCPCONFORM_MY_HOST_URL.
func Var(name, field string) string { return Prefix + Key(name) + "_" + field }

// Load reads the profile name from l (MCPCONFORM_<NAME>_* variables). A
// variable set to the empty string counts as missing: that is what an
// unset CI secret expands to. The error is a *ProfileError naming every
// variable to fix.
func Load(name string, l envconfig.Lookuper) (Profile, error) {
	var p Profile
	if !nameRE.MatchString(name) {
		return p, &ProfileError{Name: name, Problems: []string{fmt.Sprintf("%q is not a profile name: use letters, digits, - and _, starting with a letter (it becomes %s<NAME>_*)", name, Prefix)}}
	}
	if isReserved(name, nil) {
		return p, &ProfileError{Name: Canonical(name), Problems: []string{fmt.Sprintf("%q is a host built into mcpconform: its %s* variables configure that host, not a profile; choose another name", Canonical(name), Prefix+Key(name)+"_")}}
	}
	pl := envconfig.PrefixLookuper(Prefix+Key(name)+"_", l)
	var problems []string
	set := 0
	for _, v := range Variables {
		val, ok := pl.Lookup(v)
		if ok {
			set++
		}
		switch {
		case ok && strings.TrimSpace(val) == "":
			problems = append(problems, fmt.Sprintf("%s is set but empty (an unset CI secret or variable expands to \"\"): %s", Var(name, v), emptyHint(v)))
		case !ok && isRequired(v):
			problems = append(problems, fmt.Sprintf("%s is not set: %s", Var(name, v), requiredHint(v)))
		}
	}
	if set == 0 {
		return p, &ProfileError{Name: Canonical(name), none: true, Problems: []string{fmt.Sprintf(
			"no variable of it is set: define at least %s and %s (see docs/profiles.md)", Var(name, "URL"), Var(name, "STEPS"))}}
	}
	if len(problems) > 0 {
		return p, &ProfileError{Name: Canonical(name), Problems: problems}
	}
	err := envconfig.ProcessWith(context.Background(), &envconfig.Config{
		Target:   &p,
		Lookuper: pl,
		Mutators: []envconfig.Mutator{envconfig.MutatorFunc(func(_ context.Context, key, _, _, cur string) (string, bool, error) {
			cur = strings.TrimSpace(cur)
			if cur == "" { // caught above; a guard should the lookuper change its mind
				return "", true, fmt.Errorf("%s is empty", Var(name, key))
			}
			return cur, false, nil
		})},
	})
	if err != nil {
		return p, &ProfileError{Name: Canonical(name), Problems: []string{decodeProblem(name, err)}}
	}
	return p, nil
}

func isRequired(v string) bool {
	for _, r := range Required {
		if r == v {
			return true
		}
	}
	return false
}

func requiredHint(v string) string {
	switch v {
	case "URL":
		return "set it to the host's web UI, e.g. http://127.0.0.1:6274"
	case "STEPS":
		return `say how the host shows the app, e.g. "goto {url}; click [data-testid=open-app]"`
	}
	return "set it"
}

func emptyHint(v string) string {
	if isRequired(v) {
		return "give it a value (" + requiredHint(v) + ")"
	}
	return "give it a value or unset it"
}

// decodeProblem turns an envconfig decoding error into a sentence naming
// the variable.
func decodeProblem(name string, err error) string {
	msg := err.Error()
	t := reflect.TypeOf(Profile{})
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		v, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if strings.HasPrefix(msg, f.Name+":") || strings.Contains(msg, v+":") {
			return fmt.Sprintf("%s: %s", Var(name, v), strings.TrimSpace(strings.TrimPrefix(msg, f.Name+":")))
		}
	}
	return fmt.Sprintf("%s*: %v", Prefix+Key(name)+"_", err)
}

// config is a validated profile, ready for a Host.
type config struct {
	name         string
	url          string
	steps        []Step
	frame        []string
	stepTimeout  time.Duration
	conversation string
	userMessages string
	theme        themeConfig
	confirm      string // ConfirmNative or a selector
	approve      string // APPROVE's selector, or ""
	dialogs      map[protocol.Dialog]bool
	unsupported  map[protocol.Kind]bool
	storageState string
	caps         map[protocol.Kind]bool
	placeholders []string

	start        string
	ready        readySpec
	startTimeout time.Duration
	openTool     []Step
	openToolSame bool
	close        action
	cancel       action
	modelTools   attrSpec
	newSession   []Step
	agent        string // AgentNone, AgentPresent, or "" (not said)
	views        string // ViewsKept, ViewsReplaced, or "" (not said)
}

// readySpec is READY: a URL to wait for, or a text START prints.
type readySpec struct{ url, line string }

// action is CLOSE or CANCEL: steps, or a selector clicked nearest the
// View.
type action struct {
	steps []Step
	sel   string
}

func (a action) set() bool { return a.sel != "" || len(a.steps) > 0 }

// attrSpec is SELECTOR[@ATTRIBUTE].
type attrSpec struct{ sel, attr string }

type themeConfig struct {
	toggle   string // selector, ThemeEmulate or ""
	attrSel  string
	attrName string
}

// compile validates p and collects every problem, each naming its
// variable. extra are placeholders a Go hook supplies.
func compile(name string, p Profile, hk Hooks) (*config, error) {
	c := &config{
		name:         Canonical(name),
		url:          p.URL,
		stepTimeout:  p.StepTimeout,
		conversation: strings.TrimSpace(p.Conversation),
		userMessages: strings.TrimSpace(p.UserMessages),
		confirm:      strings.TrimSpace(p.Confirm),
		approve:      strings.TrimSpace(p.Approve),
		storageState: p.StorageState,
		dialogs:      map[protocol.Dialog]bool{},
		unsupported:  map[protocol.Kind]bool{},
	}
	var problems []string
	bad := func(v, format string, args ...any) {
		problems = append(problems, Var(name, v)+": "+fmt.Sprintf(format, args...))
	}
	c.placeholders = append([]string{PhURL, PhServer, PhServer2, PhNonce, PhPort}, hk.Vars...)
	urlFromHook := false
	for _, v := range hk.Vars {
		if v == PhURL {
			urlFromHook = true
		}
	}

	switch {
	case p.URL == "" && urlFromHook:
	case p.URL == "":
		problems = append(problems, Var(name, "URL")+" is not set: "+requiredHint("URL"))
	default:
		sample := expand(p.URL, map[string]string{PhPort: "5"})
		if err := checkPlaceholders(p.URL, []string{PhPort}); err != nil {
			bad("URL", "%v", err)
		} else if u, err := url.Parse(sample); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("URL", "%q is not an absolute http(s) URL", p.URL)
		}
	}
	if strings.TrimSpace(p.Steps) == "" {
		problems = append(problems, Var(name, "STEPS")+" is not set: "+requiredHint("STEPS"))
	} else {
		steps, sp := ParseSteps(Var(name, "STEPS"), p.Steps, c.placeholders)
		c.steps = steps
		problems = append(problems, sp...)
	}
	if f := strings.TrimSpace(p.AppFrame); f != "" {
		frame, err := ParseFramePath(f)
		if err != nil {
			bad("APP_FRAME", "%v", err)
		}
		c.frame = frame
	}
	if p.StepTimeout <= 0 {
		bad("STEP_TIMEOUT", "must be a positive duration such as 30s, got %s", p.StepTimeout)
	}
	if c.conversation != "" {
		if err := CheckSelector(c.conversation); err != nil {
			bad("CONVERSATION", "%v", err)
		}
	}
	if c.userMessages != "" {
		if err := CheckSelector(c.userMessages); err != nil {
			bad("USER_MESSAGES", "%v", err)
		} else if c.conversation == "" {
			bad("USER_MESSAGES", "is set but %s is not: name the element whose text is the conversation, where the messages are looked for", Var(name, "CONVERSATION"))
		}
	}

	// Theme: a button and where the theme reads, or emulation.
	c.theme.toggle = strings.TrimSpace(p.ThemeToggle)
	if a := strings.TrimSpace(p.ThemeAttr); a != "" {
		if spec, err := parseAttrSpec(a, true); err != nil {
			bad("THEME_ATTR", "%v", err)
		} else {
			c.theme.attrSel, c.theme.attrName = spec.sel, spec.attr
		}
	}
	switch {
	case c.theme.toggle == "" && p.ThemeAttr != "":
		bad("THEME_ATTR", "is set but %s is not: name the button that switches the theme (or %q)", Var(name, "THEME_TOGGLE"), ThemeEmulate)
	case c.theme.toggle == "", strings.EqualFold(c.theme.toggle, ThemeEmulate):
		if c.theme.toggle != "" {
			c.theme.toggle = ThemeEmulate
		}
	case p.ThemeAttr == "":
		bad("THEME_TOGGLE", "is a button but %s is not set: say where the current theme reads, e.g. html@data-theme", Var(name, "THEME_ATTR"))
	default:
		if err := CheckSelector(c.theme.toggle); err != nil {
			bad("THEME_TOGGLE", "%v", err)
		}
	}

	// Confirmation dialogs.
	switch {
	case c.confirm == "":
		if len(p.Dialogs) > 0 {
			bad("DIALOGS", "is set but %s is not: say how to confirm them (%q or a button selector)", Var(name, "CONFIRM"), ConfirmNative)
		}
	case strings.EqualFold(c.confirm, ConfirmNative):
		c.confirm = ConfirmNative
	default:
		if err := checkPlaceholders(c.confirm, []string{PhDialog}); err != nil {
			bad("CONFIRM", "%v", err)
		} else if err := CheckSelector(c.confirm); err != nil {
			bad("CONFIRM", "%v", err)
		}
	}
	if len(p.Dialogs) == 0 {
		for _, d := range protocol.Dialogs {
			c.dialogs[d] = true
		}
	}
	for _, d := range p.Dialogs {
		if k, ok := foldMatch(d, protocol.Dialogs); ok {
			c.dialogs[k] = true
		} else {
			bad("DIALOGS", "unknown dialog %q: use %s", strings.TrimSpace(d), orList(dialogNames()))
		}
	}

	for _, u := range p.Unsupported {
		if k, ok := foldMatch(u, protocol.Kinds); ok {
			c.unsupported[k] = true
		} else {
			bad("UNSUPPORTED", "unknown capability %q: use %s", strings.TrimSpace(u), orList(kindNames()))
		}
	}
	// Variables that take no placeholder: a placeholder-shaped token in
	// them would be literal text, which is never what was meant.
	for _, f := range []struct{ v, val string }{{"APP_FRAME", p.AppFrame}, {"CONVERSATION", p.Conversation}, {"THEME_TOGGLE", p.ThemeToggle},
		{"THEME_ATTR", p.ThemeAttr}, {"DIALOGS", strings.Join(p.Dialogs, ",")}, {"APPROVE", p.Approve}, {"OPEN_TOOL_PAGE", p.OpenToolPage},
		{"MODEL_TOOLS", p.ModelTools}, {"UNSUPPORTED", strings.Join(p.Unsupported, ",")}, {"STORAGE_STATE", p.StorageState}, {"AGENT", p.Agent}, {"VIEWS", p.Views}} {
		if err := checkPlaceholders(f.val, nil); err != nil {
			bad(f.v, "%v", err)
		}
	}
	c.compileStart(name, p, bad)
	c.compileActions(name, p, bad, &problems)
	if m := strings.TrimSpace(p.ModelTools); m != "" {
		a, err := parseAttrSpec(m, false)
		if err != nil {
			bad("MODEL_TOOLS", "%v", err)
		}
		c.modelTools = a
	}
	if strings.TrimSpace(p.NewSession) != "" {
		steps, sp := parseSteps(Var(name, "NEW_SESSION"), p.NewSession, c.placeholders, true)
		c.newSession = steps
		problems = append(problems, sp...)
		if c.modelTools.sel == "" {
			bad("NEW_SESSION", "is set but %s is not: the new session's tool list is read with it", Var(name, "MODEL_TOOLS"))
		}
	}

	if a := strings.TrimSpace(p.Agent); a != "" {
		if k, ok := foldMatch(a, []string{AgentNone, AgentPresent}); ok {
			c.agent = k
		} else {
			bad("AGENT", "%q is not %q (no model answers the host's conversation) or %q", a, AgentNone, AgentPresent)
		}
	}
	if v := strings.TrimSpace(p.Views); v != "" {
		if k, ok := foldMatch(v, []string{ViewsKept, ViewsReplaced}); !ok {
			bad("VIEWS", "%q is not %q (every View stays open beside later ones) or %q (one at a time)", v, ViewsKept, ViewsReplaced)
		} else if c.views = k; k == ViewsKept && (len(c.openTool) == 0 || !c.openToolSame) {
			bad("VIEWS", "is %q but %s does not open tools in the suite's page (%s=%s): a new tab closes the last one, and its View", k, Var(name, "OPEN_TOOL"), Var(name, "OPEN_TOOL_PAGE"), OpenToolSame)
		}
	}
	if p.StorageState != "" {
		if st, err := os.Stat(p.StorageState); err != nil {
			bad("STORAGE_STATE", "%v", err)
		} else if st.IsDir() {
			bad("STORAGE_STATE", "%s is a directory, not a Playwright storage-state file", p.StorageState)
		}
	}
	if len(problems) > 0 {
		return nil, &ProfileError{Name: c.name, Problems: problems}
	}
	c.caps = c.capabilities(hk)
	return c, nil
}

// capabilities is what the profile configures, minus what it declares
// unsupported.
func (c *config) capabilities(hk Hooks) map[protocol.Kind]bool {
	caps := map[protocol.Kind]bool{
		// A browser can always do these.
		protocol.KindClickTrigger:   true,
		protocol.KindCheckLinkOpen:  true,
		protocol.KindCheckDownload:  true,
		protocol.KindInspectFrame:   true,
		protocol.KindReadConsole:    true,
		protocol.KindResetIsolation: true,
		// The message record of the frames around the View (browserhost).
		protocol.KindReadFrameMessages: true,
		// What the host page showed the user (browserhost).
		protocol.KindObservePrompts: true,
		// These need the profile (or Go) to say how.
		protocol.KindConfirmDialog:        c.confirm != "",
		protocol.KindConversationContains: c.conversation != "",
		protocol.KindToggleTheme:          c.theme.toggle != "",
		protocol.KindReadModelToolList:    hk.ModelTools != nil || c.modelTools.sel != "",
		protocol.KindOpenTool:             len(c.openTool) > 0,
		protocol.KindCloseView:            c.close.set(),
		protocol.KindCancelTool:           c.cancel.set(),
		protocol.KindReadNewSessionToolList: hk.NewSessionTools != nil ||
			(len(c.newSession) > 0 && c.modelTools.sel != ""),
		protocol.KindHasAgent:    c.agent != "",
		protocol.KindKeepsViews:  c.views != "",
		protocol.KindMessageRole: c.conversation != "" && c.userMessages != "",
	}
	for k := range c.unsupported {
		caps[k] = false
	}
	return caps
}

// why says why the profile lacks capability k.
func (c *config) why(k protocol.Kind) string {
	if c.unsupported[k] {
		return "declared in UNSUPPORTED"
	}
	switch k {
	case protocol.KindConfirmDialog:
		return "CONFIRM is not set"
	case protocol.KindConversationContains:
		return "CONVERSATION is not set"
	case protocol.KindToggleTheme:
		return "THEME_TOGGLE is not set"
	case protocol.KindReadModelToolList:
		return "MODEL_TOOLS is not set"
	case protocol.KindOpenTool:
		return "OPEN_TOOL is not set"
	case protocol.KindCloseView:
		return "CLOSE is not set"
	case protocol.KindCancelTool:
		return "CANCEL is not set"
	case protocol.KindReadNewSessionToolList:
		return "NEW_SESSION is not set"
	case protocol.KindHasAgent:
		return "AGENT is not set"
	case protocol.KindKeepsViews:
		return "VIEWS is not set"
	case protocol.KindMessageRole:
		if c.conversation == "" {
			return "CONVERSATION and USER_MESSAGES are not set"
		}
		return "USER_MESSAGES is not set"
	}
	return "not configured"
}

// parseAttrSpec parses SELECTOR@ATTRIBUTE (the last @ whose right-hand
// side is an attribute name); without needAttr a bare SELECTOR is one too.
func parseAttrSpec(a string, needAttr bool) (attrSpec, error) {
	i := strings.LastIndexByte(a, '@')
	if i > 0 && i < len(a)-1 && !strings.ContainsAny(a[i+1:], " []()=\"'>:.#,") {
		if err := CheckSelector(a[:i]); err != nil {
			return attrSpec{}, err
		}
		return attrSpec{sel: a[:i], attr: a[i+1:]}, nil
	}
	if needAttr {
		return attrSpec{}, fmt.Errorf("%q is not SELECTOR@ATTRIBUTE, e.g. html@data-theme or body@class", a)
	}
	if i == len(a)-1 {
		return attrSpec{}, fmt.Errorf("%q ends with @: give SELECTOR or SELECTOR@ATTRIBUTE, e.g. li.tool@data-name", a)
	}
	if err := CheckSelector(a); err != nil {
		return attrSpec{}, err
	}
	return attrSpec{sel: a}, nil
}

func dialogNames() []string {
	var out []string
	for _, d := range protocol.Dialogs {
		out = append(out, string(d))
	}
	return out
}

func kindNames() []string {
	var out []string
	for _, k := range protocol.Kinds {
		out = append(out, string(k))
	}
	return out
}

// foldMatch returns the key that name, trimmed, names regardless of case.
func foldMatch[K ~string](name string, keys []K) (K, bool) {
	name = strings.TrimSpace(name)
	for _, k := range keys {
		if strings.EqualFold(name, string(k)) {
			return k, true
		}
	}
	var zero K
	return zero, false
}
