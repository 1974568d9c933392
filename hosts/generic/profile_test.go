package generic

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// good is a complete profile "demo"; each case of the tables edits it.
func good() map[string]string {
	return map[string]string{
		"MCPCONFORM_DEMO_URL":           "http://127.0.0.1:8080",
		"MCPCONFORM_DEMO_STEPS":         `goto {url}/chat?server={server}; fill textarea[name="prompt"]=Run the conformance suite {nonce}; press Enter; wait-for iframe.app`,
		"MCPCONFORM_DEMO_APP_FRAME":     `iframe[title="a;b"]; iframe`,
		"MCPCONFORM_DEMO_CONVERSATION":  `[data-testid="conversation"]`,
		"MCPCONFORM_DEMO_USER_MESSAGES": `[data-role="user"]`,
		"MCPCONFORM_DEMO_THEME_TOGGLE":  `button[aria-label="Toggle theme"]`,
		"MCPCONFORM_DEMO_THEME_ATTR":    `html@data-theme`,
		"MCPCONFORM_DEMO_CONFIRM":       `[data-dialog="{dialog}"] button.confirm`,
		"MCPCONFORM_DEMO_DIALOGS":       "open-link,download",
		"MCPCONFORM_DEMO_STEP_TIMEOUT":  "5s",
	}
}

func with(m map[string]string, kv ...string) map[string]string {
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "<unset>" {
			delete(m, kv[i])
		} else {
			m[kv[i]] = kv[i+1]
		}
	}
	return m
}

func TestLoadGoodProfile(t *testing.T) {
	p, err := Load("demo", envconfig.MapLookuper(good()))
	if err != nil {
		t.Fatal(err)
	}
	if p.StepTimeout != 5*time.Second || !reflect.DeepEqual(p.Dialogs, []string{"open-link", "download"}) {
		t.Fatalf("decoded %+v", p)
	}
	h, err := New("demo", p, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	core, ok := Unwrap(h)
	if !ok {
		t.Fatal("Unwrap failed")
	}
	steps := core.Steps()
	want := []struct{ verb, target, text string }{
		{"goto", "{url}/chat?server={server}", ""},
		{"fill", `textarea[name="prompt"]`, "Run the conformance suite {nonce}"},
		{"press", "Enter", ""},
		{"wait-for", "iframe.app", ""},
	}
	if len(steps) != len(want) {
		t.Fatalf("steps %+v", steps)
	}
	for i, w := range want {
		if s := steps[i]; s.Index != i+1 || s.Verb != w.verb || s.Target != w.target || s.Text != w.text {
			t.Errorf("step %d: %+v, want %+v", i+1, s, w)
		}
	}
	if !reflect.DeepEqual(core.AppFrame, []string{`iframe[title="a;b"]`, "iframe"}) {
		t.Errorf("frame path %q", core.AppFrame)
	}
	// Every kind a profile can configure but those good() leaves out.
	for _, k := range protocol.Kinds {
		want := false
		for _, g := range protocol.Kinds {
			want = want || (g == k && !slices.Contains([]protocol.Kind{protocol.KindReadModelToolList, protocol.KindOpenTool, protocol.KindCloseView, protocol.KindCancelTool, protocol.KindReadNewSessionToolList, protocol.KindHasAgent, protocol.KindKeepsViews}, k))
		}
		if got := hosts.Supports(h, k); got != want {
			t.Errorf("%s supported: %v, want %v", k, got, want)
		}
	}
	if h.Name() != "demo" {
		t.Errorf("name %q", h.Name())
	}
}

// badProfile is a profile "demo" refuses, with the substrings its error
// must all hold.
type badProfile struct {
	name string
	vars map[string]string
	want []string
}

// refused checks that Lookup refuses each profile with ErrProfile (not
// ErrNoProfile), saying all it must, and that hosts --check says the same.
func refused(t *testing.T, cases []badProfile) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Lookup("demo", envconfig.MapLookuper(c.vars))
			if err == nil {
				t.Fatalf("accepted: %T", h)
			}
			if !errors.Is(err, ErrProfile) || errors.Is(err, ErrNoProfile) {
				t.Fatalf("not (only) ErrProfile: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
			if r := Check("demo", envconfig.MapLookuper(c.vars)); r.OK() || r.Err.Error() != err.Error() {
				t.Errorf("Check disagrees with Lookup: %v", r.Err)
			}
		})
	}
}

// Every bad profile fails with ErrProfile and a message naming the
// variable (and step index) to fix.
func TestBadProfiles(t *testing.T) {
	storage := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(storage, []byte(`{}`), 0o600)
	refused(t, []badProfile{
		{"missing URL", with(good(), "MCPCONFORM_DEMO_URL", "<unset>"),
			[]string{"MCPCONFORM_DEMO_URL is not set"}},
		{"empty URL (unset CI secret)", with(good(), "MCPCONFORM_DEMO_URL", ""),
			[]string{"MCPCONFORM_DEMO_URL is set but empty", "unset CI secret"}},
		{"blank URL", with(good(), "MCPCONFORM_DEMO_URL", "  "),
			[]string{"MCPCONFORM_DEMO_URL is set but empty"}},
		{"empty STEPS", with(good(), "MCPCONFORM_DEMO_STEPS", ""),
			[]string{"MCPCONFORM_DEMO_STEPS is set but empty"}},
		{"empty optional variable", with(good(), "MCPCONFORM_DEMO_STORAGE_STATE", ""),
			[]string{"MCPCONFORM_DEMO_STORAGE_STATE is set but empty", "unset it"}},
		{"both required missing and one empty: all named at once",
			with(good(), "MCPCONFORM_DEMO_URL", "<unset>", "MCPCONFORM_DEMO_STEPS", "<unset>", "MCPCONFORM_DEMO_CONVERSATION", ""),
			[]string{"3 problems", "MCPCONFORM_DEMO_URL is not set", "MCPCONFORM_DEMO_STEPS is not set", "MCPCONFORM_DEMO_CONVERSATION is set but empty"}},
		{"not a URL", with(good(), "MCPCONFORM_DEMO_URL", "127.0.0.1:8080"),
			[]string{"MCPCONFORM_DEMO_URL", "not an absolute http(s) URL"}},
		{"unknown step verb", with(good(), "MCPCONFORM_DEMO_STEPS", "goto {url}; tap #go"),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", `unknown step "tap"`, "goto, click, fill, fill-form, select, press, wait-for, wait-for-text or wait-for-hidden"}},
		{"unbalanced bracket", with(good(), "MCPCONFORM_DEMO_STEPS", "goto {url}\nclick #a\nclick [data-testid=open-app"),
			[]string{"MCPCONFORM_DEMO_STEPS step 3", `unclosed "["`}},
		{"stray bracket", with(good(), "MCPCONFORM_DEMO_STEPS", "goto {url}; wait-for div]"),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", `unexpected "]"`}},
		{"unclosed quote", with(good(), "MCPCONFORM_DEMO_STEPS", `goto {url}; click [title="x]`),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "unclosed"}},
		{"selector ends with >>", with(good(), "MCPCONFORM_DEMO_STEPS", `goto {url}; click iframe >>`),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "ends with >>"}},
		{"fill without =", with(good(), "MCPCONFORM_DEMO_STEPS", `goto {url}; fill [name="q"]`),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "fill needs SELECTOR=TEXT"}},
		{"verb without argument", with(good(), "MCPCONFORM_DEMO_STEPS", `goto {url}; click`),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "click needs a selector"}},
		{"press with two keys", with(good(), "MCPCONFORM_DEMO_STEPS", `goto {url}; press Enter Tab`),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "press takes one key"}},
		{"unknown placeholder", with(good(), "MCPCONFORM_DEMO_STEPS", `goto {url}?t={token}`),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "unknown placeholder {token}", "{url}, {server}, {server2}, {nonce} or {port}", "{name:url}"}},
		{"first step not goto", with(good(), "MCPCONFORM_DEMO_STEPS", `click #go`),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "the first step must be goto"}},
		{"goto a non-URL", with(good(), "MCPCONFORM_DEMO_STEPS", `goto /chat`),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "absolute http(s) URL"}},
		{"only separators", with(good(), "MCPCONFORM_DEMO_STEPS", ` ; ;`),
			[]string{"MCPCONFORM_DEMO_STEPS has no steps"}},
		{"two bad steps", with(good(), "MCPCONFORM_DEMO_STEPS", "goto {url}; jump; click ("),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "MCPCONFORM_DEMO_STEPS step 3"}},
		{"bad frame path", with(good(), "MCPCONFORM_DEMO_APP_FRAME", `iframe.app; ; iframe`),
			[]string{"MCPCONFORM_DEMO_APP_FRAME", "part 2", "empty"}},
		{"bad step timeout", with(good(), "MCPCONFORM_DEMO_STEP_TIMEOUT", "soon"),
			[]string{"MCPCONFORM_DEMO_STEP_TIMEOUT"}},
		{"negative step timeout", with(good(), "MCPCONFORM_DEMO_STEP_TIMEOUT", "-1s"),
			[]string{"MCPCONFORM_DEMO_STEP_TIMEOUT", "positive"}},
		{"bad conversation selector", with(good(), "MCPCONFORM_DEMO_CONVERSATION", `div[role="log"`),
			[]string{"MCPCONFORM_DEMO_CONVERSATION", "unclosed"}},
		{"bad user-messages selector", with(good(), "MCPCONFORM_DEMO_USER_MESSAGES", `div[data-role="user"`),
			[]string{"MCPCONFORM_DEMO_USER_MESSAGES", "unclosed"}},
		{"user messages without a conversation", with(good(), "MCPCONFORM_DEMO_CONVERSATION", "<unset>"),
			[]string{"MCPCONFORM_DEMO_USER_MESSAGES: is set but MCPCONFORM_DEMO_CONVERSATION is not"}},
		{"theme button without attribute", with(good(), "MCPCONFORM_DEMO_THEME_ATTR", "<unset>"),
			[]string{"MCPCONFORM_DEMO_THEME_TOGGLE", "MCPCONFORM_DEMO_THEME_ATTR is not set"}},
		{"theme attribute without button", with(good(), "MCPCONFORM_DEMO_THEME_TOGGLE", "<unset>"),
			[]string{"MCPCONFORM_DEMO_THEME_ATTR", "MCPCONFORM_DEMO_THEME_TOGGLE is not"}},
		{"theme attribute without @", with(good(), "MCPCONFORM_DEMO_THEME_ATTR", "html"),
			[]string{"MCPCONFORM_DEMO_THEME_ATTR", "SELECTOR@ATTRIBUTE"}},
		{"unknown dialog", with(good(), "MCPCONFORM_DEMO_DIALOGS", "download,popup"),
			[]string{"MCPCONFORM_DEMO_DIALOGS", `unknown dialog "popup"`, "open-link, download or sampling"}},
		{"dialogs without confirm", with(good(), "MCPCONFORM_DEMO_CONFIRM", "<unset>"),
			[]string{"MCPCONFORM_DEMO_DIALOGS", "MCPCONFORM_DEMO_CONFIRM is not"}},
		{"unknown placeholder in confirm", with(good(), "MCPCONFORM_DEMO_CONFIRM", "#dlg-{kind} button"),
			[]string{"MCPCONFORM_DEMO_CONFIRM", "unknown placeholder {kind}", "{dialog}"}},
		{"unknown capability", with(good(), "MCPCONFORM_DEMO_UNSUPPORTED", "readConsole,teleport"),
			[]string{"MCPCONFORM_DEMO_UNSUPPORTED", `unknown capability "teleport"`, "clickTrigger"}},
		{"missing storage state", with(good(), "MCPCONFORM_DEMO_STORAGE_STATE", storage+".nope"),
			[]string{"MCPCONFORM_DEMO_STORAGE_STATE", "no such file"}},
	})
	// The storage state that exists is accepted.
	if _, err := Lookup("demo", envconfig.MapLookuper(with(good(), "MCPCONFORM_DEMO_STORAGE_STATE", storage))); err != nil {
		t.Fatal(err)
	}
}

func TestNoSuchProfileAndBadName(t *testing.T) {
	_, err := Lookup("nope", envconfig.MapLookuper(good()))
	if !errors.Is(err, ErrNoProfile) || !errors.Is(err, ErrProfile) ||
		!strings.Contains(err.Error(), "MCPCONFORM_NOPE_URL") || !strings.Contains(err.Error(), "MCPCONFORM_NOPE_STEPS") {
		t.Fatalf("want ErrNoProfile naming the variables, got %v", err)
	}
	for _, n := range []string{"", "9lives", "my host", "a.b"} {
		if _, err := Lookup(n, envconfig.MapLookuper(good())); !errors.Is(err, ErrProfile) || !strings.Contains(err.Error(), "not a profile name") {
			t.Errorf("%q: %v", n, err)
		}
	}
	// Names map to variables case- and dash-insensitively.
	m := map[string]string{}
	for k, v := range good() {
		m[strings.Replace(k, "_DEMO_", "_MY_HOST_", 1)] = v
	}
	for _, n := range []string{"my-host", "MY_HOST", "My-Host"} {
		h, err := Lookup(n, envconfig.MapLookuper(m))
		if err != nil || h.Name() != "my-host" {
			t.Errorf("%q: %v", n, err)
		}
	}
}

func TestStepSyntax(t *testing.T) {
	all := []string{PhURL, PhServer, PhServer2, PhNonce}
	for _, c := range []struct {
		in   string
		want []Step
	}{
		// The first top-level "=" ends fill's selector; quotes and brackets protect.
		{`goto {url}; fill [name="q"]=a=b`, []Step{{Verb: "goto", Target: "{url}"}, {Verb: "fill", Target: `[name="q"]`, Text: "a=b"}}},
		{`goto {url}; fill text="Name"="x; y"`, []Step{{Verb: "goto", Target: "{url}"}, {Verb: "fill", Target: `text="Name"`, Text: "x; y"}}},
		{`goto {url}; fill textarea= Don't stop ; press Control+Enter`, []Step{{Verb: "goto", Target: "{url}"}, {Verb: "fill", Target: "textarea", Text: "Don't stop"}, {Verb: "press", Target: "Control+Enter"}}},
		{`goto {url}; fill input='  spaced  '`, []Step{{Verb: "goto", Target: "{url}"}, {Verb: "fill", Target: "input", Text: "  spaced  "}}},
		{`goto {url}; fill input=`, []Step{{Verb: "goto", Target: "{url}"}, {Verb: "fill", Target: "input", Text: ""}}},
		{"goto {url}\n# a comment\n  WAIT-FOR  div:has-text(\"a;b\") ;; click role=button[name=\"Send\"]\n", []Step{{Verb: "goto", Target: "{url}"}, {Verb: "wait-for", Target: `div:has-text("a;b")`}, {Verb: "click", Target: `role=button[name="Send"]`}}},
		{`goto {url}; fill textarea={"nonce": "{nonce}"}`, []Step{{Verb: "goto", Target: "{url}"}, {Verb: "fill", Target: "textarea", Text: `{"nonce": "{nonce}"}`}}},
	} {
		steps, problems := ParseSteps("V", c.in, all)
		if len(problems) > 0 {
			t.Errorf("%q: %v", c.in, problems)
			continue
		}
		if len(steps) != len(c.want) {
			t.Errorf("%q: %+v", c.in, steps)
			continue
		}
		for i, w := range c.want {
			if s := steps[i]; s.Verb != w.Verb || s.Target != w.Target || s.Text != w.Text || s.Index != i+1 {
				t.Errorf("%q step %d: %+v, want %+v", c.in, i+1, s, w)
			}
		}
	}
	if got := expand("{url}/x?n={nonce}&k={kept}", map[string]string{"url": "http://h", "nonce": "42"}); got != "http://h/x?n=42&k={kept}" {
		t.Errorf("expand: %q", got)
	}
	s := Step{Verb: "goto", Target: "{url}/?autoConnect=SECRET"}
	f := Step{Verb: "fill", Target: "#password", Text: "hunter2"}
	if strings.Contains(s.String(), "SECRET") || strings.Contains(f.String(), "hunter2") {
		t.Errorf("a rendered step shows a secret: %s / %s", s, f)
	}
}

func TestThemeOf(t *testing.T) {
	for in, want := range map[string]string{
		"dark": "dark", "Light": "light", "theme-dark": "dark", "app dark-mode": "dark",
		"": "", "system": "", "dark light": "", "darker": "",
	} {
		if got := ThemeOf(in); got != want {
			t.Errorf("ThemeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// The host value has exactly the capabilities the profile configures: for
// every subset of the kinds with at most two kinds in or out, and 4096
// others drawn at random (every subset of 18 kinds is 262 144 of them),
// hosts.Supports (what the runner and the reports
// see) sees that subset and no more, and no other protocol kind; and
// hosts.Dispatch answers an unconfigured kind "unsupported" at once,
// without calling its method (the bare Host has no page: a call would
// panic, which Dispatch would report as a harness error instead).
func TestHostHasExactlyTheConfiguredCapabilities(t *testing.T) {
	n := len(protocol.Kinds)
	if n >= 31 {
		t.Fatalf("%d protocol.Kinds: the masks below no longer fit", n)
	}
	all := 1<<n - 1
	var masks []int
	for i := -1; i < n; i++ {
		for j := i; j < n; j++ {
			m := 0
			if i >= 0 {
				m |= 1 << i
			}
			if j >= 0 {
				m |= 1 << j
			}
			masks = append(masks, m, all^m)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4096 {
		masks = append(masks, rng.IntN(all+1))
	}
	for _, m := range masks {
		h := &Host{cfg: &config{name: "x", caps: map[protocol.Kind]bool{}}}
		want := map[protocol.Kind]bool{}
		for i, k := range protocol.Kinds {
			h.cfg.caps[k] = m&(1<<i) != 0
			want[k] = m&(1<<i) != 0
		}
		var v hosts.Host = h
		for _, k := range protocol.Kinds {
			if got := hosts.Supports(v, k); got != want[k] {
				t.Fatalf("mask %03x: %s supported %v, want %v", m, k, got, want[k])
			}
			if want[k] {
				continue
			}
			req := protocol.Request{Kind: k, Marker: "m", URL: "http://127.0.0.1/", Dialog: protocol.DialogDownload, To: "dark", Pattern: "x", TimeoutMs: 1, Tool: "t", Phase: protocol.PhaseMark}
			if err := req.Validate(); err != nil {
				t.Fatalf("the test's %s request is invalid: %v", k, err)
			}
			if got := hosts.Dispatch(context.Background(), v, req); got.OK || !got.Unsupported || !strings.HasPrefix(got.Error, protocol.Unsupported(k).Error+" (") {
				t.Fatalf("mask %03x: dispatching unconfigured %s gave %+v, want it unsupported", m, k, got)
			}
		}
		if c, ok := Unwrap(v); !ok || c != h {
			t.Fatalf("mask %03x: Unwrap", m)
		}
		if got := h.Capabilities(); len(got) != len(hosts.Capabilities(v)) {
			t.Fatalf("mask %03x: Capabilities %v, hosts.Capabilities %v", m, got, hosts.Capabilities(v))
		}
	}
	// Configured, every kind is the profile host's: it has every
	// capability method of the table.
	h := &Host{cfg: &config{name: "x", caps: map[protocol.Kind]bool{}}}
	for _, k := range protocol.Kinds {
		h.cfg.caps[k] = true
	}
	for _, k := range protocol.Kinds {
		if !hosts.Supports(h, k) {
			t.Errorf("everything configured: %s is not supported (the profile host lacks its method)", k)
		}
	}
}

// UNSUPPORTED removes capabilities even when configured; an unconfigured
// one is absent, and Check says why.
func TestUnsupportedAndCheck(t *testing.T) {
	vars := with(good(), "MCPCONFORM_DEMO_UNSUPPORTED", "clickTrigger, READCONSOLE", "MCPCONFORM_DEMO_CONVERSATION", "<unset>", "MCPCONFORM_DEMO_USER_MESSAGES", "<unset>")
	h, err := Lookup("demo", envconfig.MapLookuper(vars))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []protocol.Kind{protocol.KindClickTrigger, protocol.KindReadConsole, protocol.KindConversationContains, protocol.KindReadModelToolList} {
		if hosts.Supports(h, k) {
			t.Errorf("%s is supported", k)
		}
	}
	for _, k := range []protocol.Kind{protocol.KindToggleTheme, protocol.KindConfirmDialog, protocol.KindInspectFrame} {
		if !hosts.Supports(h, k) {
			t.Errorf("%s is not supported", k)
		}
	}
	r := Check("demo", envconfig.MapLookuper(vars))
	if !r.OK() || len(r.Steps) != 4 || len(r.Supported)+len(r.Unsupported) != len(protocol.Kinds) {
		t.Fatalf("check: %+v", r)
	}
	if r.Why[protocol.KindClickTrigger] != "declared in UNSUPPORTED" || r.Why[protocol.KindConversationContains] != "CONVERSATION is not set" {
		t.Errorf("why: %v", r.Why)
	}
	if len(r.Variables) != len(Variables) || r.Variables[0].Name != "MCPCONFORM_DEMO_URL" || !r.Variables[0].Set || !r.Variables[0].Required {
		t.Errorf("variables: %+v", r.Variables)
	}
}

type keyed map[string]string

func (k keyed) Lookup(s string) (string, bool) { v, ok := k[s]; return v, ok }
func (k keyed) Keys() []string {
	var out []string
	for s := range k {
		out = append(out, s)
	}
	return out
}

func TestProfilesDiscovery(t *testing.T) {
	vars := map[string]string{
		"MCPCONFORM_DEMO_URL":      "http://127.0.0.1:1",
		"MCPCONFORM_MY_HOST_URL":   "",                   // empty still defines it: --check will say so
		"MCPCONFORM_INSPECTOR_URL": "http://127.0.0.1:2", // the built-in's attach variable
		"MCPCONFORM_URL":           "x",
		"MCPCONFORM_lower_URL":     "x",
		"MCPCONFORM_ONLY_STEPS":    "goto {url}",
		"OTHER_X_URL":              "x",
	}
	want := []string{"demo", "my-host"}
	if got := Profiles(envconfig.MapLookuper(vars)); !reflect.DeepEqual(got, want) {
		t.Errorf("MapLookuper: %v", got)
	}
	if got := Profiles(keyed(vars)); !reflect.DeepEqual(got, want) {
		t.Errorf("Keyer: %v", got)
	}
	pre := map[string]string{}
	for k, v := range vars {
		pre["CI_"+k] = v
	}
	if got := Profiles(envconfig.PrefixLookuper("CI_", envconfig.MapLookuper(pre))); !reflect.DeepEqual(got, want) {
		t.Errorf("PrefixLookuper: %v", got)
	}
	if got := Profiles(envconfig.MultiLookuper(envconfig.MapLookuper(vars))); len(got) != 0 {
		t.Errorf("a lookuper that cannot list keys gave %v", got)
	}
	t.Setenv("MCPCONFORM_FROM_OS_URL", "http://127.0.0.1:3")
	if got := Profiles(envconfig.OsLookuper()); !contains(got, "from-os") {
		t.Errorf("OsLookuper: %v", got)
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// AGENT says whether a model answers the host's conversation: "none"
// offers hasAgent answering false (the agent checks SKIP at once), and
// "present" true; unset leaves the suite to ask the agent control
// question; anything else is refused naming the two values.
func TestAgentDeclaration(t *testing.T) {
	for _, c := range []struct {
		val  string
		want string // hasAgent's value, or "" when not offered
	}{{"none", "false"}, {" None ", "false"}, {"present", "true"}, {"<unset>", ""}} {
		h, err := Lookup("demo", envconfig.MapLookuper(with(good(), "MCPCONFORM_DEMO_AGENT", c.val)))
		if err != nil {
			t.Fatalf("AGENT=%q: %v", c.val, err)
		}
		if got := hosts.Supports(h, protocol.KindHasAgent); got != (c.want != "") {
			t.Fatalf("AGENT=%q: hasAgent supported %v", c.val, got)
		}
		if c.want == "" {
			r := hosts.Dispatch(context.Background(), h, protocol.Request{Kind: protocol.KindHasAgent})
			if !r.Unsupported || !strings.Contains(r.Error, "MCPCONFORM_DEMO_AGENT") {
				t.Errorf("AGENT unset: %+v, want unsupported naming the variable", r)
			}
			continue
		}
		r := hosts.Dispatch(context.Background(), h, protocol.Request{Kind: protocol.KindHasAgent})
		if !r.OK || string(r.Value) != c.want {
			t.Errorf("AGENT=%q: hasAgent %+v, want %s", c.val, r, c.want)
		}
	}
	refused(t, []badProfile{{"agent misspelt", with(good(), "MCPCONFORM_DEMO_AGENT", "nobody"), []string{"MCPCONFORM_DEMO_AGENT", `"nobody"`, `"none"`, `"present"`}}})
}

// VIEWS says whether the host keeps every View open beside later ones:
// "kept" offers keepsViews answering true (the probe checks run side by
// side), which needs OPEN_TOOL in the suite's page; "replaced" false;
// unset leaves keepsViews unsupported, naming the variable; anything
// else, and "kept" with OPEN_TOOL in new tabs, is refused.
func TestViewsDeclaration(t *testing.T) {
	same := with(good(), "MCPCONFORM_DEMO_OPEN_TOOL", "click [data-testid=tool-picker]; click [data-tool={tool}]; fill textarea={arguments}", "MCPCONFORM_DEMO_OPEN_TOOL_PAGE", "same")
	for _, c := range []struct {
		val  string
		want string // keepsViews' value, or "" when not offered
	}{{"kept", "true"}, {" Kept ", "true"}, {"replaced", "false"}, {"<unset>", ""}} {
		h, err := Lookup("demo", envconfig.MapLookuper(with(same, "MCPCONFORM_DEMO_VIEWS", c.val)))
		if err != nil {
			t.Fatalf("VIEWS=%q: %v", c.val, err)
		}
		r := hosts.Dispatch(context.Background(), h, protocol.Request{Kind: protocol.KindKeepsViews})
		if c.want == "" {
			if !r.Unsupported || !strings.Contains(r.Error, "MCPCONFORM_DEMO_VIEWS") {
				t.Errorf("VIEWS unset: %+v, want unsupported naming the variable", r)
			}
			continue
		}
		if !r.OK || string(r.Value) != c.want {
			t.Errorf("VIEWS=%q: keepsViews %+v, want %s", c.val, r, c.want)
		}
	}
	refused(t, []badProfile{
		{"views misspelt", with(same, "MCPCONFORM_DEMO_VIEWS", "many"), []string{"MCPCONFORM_DEMO_VIEWS", `"many"`, `"kept"`, `"replaced"`}},
		{"views kept in new tabs", with(good(), "MCPCONFORM_DEMO_VIEWS", "kept", "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?tool={tool:url}&args={arguments:url}"), []string{"MCPCONFORM_DEMO_VIEWS", "MCPCONFORM_DEMO_OPEN_TOOL_PAGE=same"}},
	})
}
