package webchat

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func testProfile() Profile {
	return Profile{
		Product:       "chatgpt",
		DisplayName:   "ChatGPT",
		URL:           "https://chatgpt.com/",
		LoggedOutURL:  "/auth/login",
		AppName:       "mcpconform",
		Prompt:        "Call {tool}.",
		Composer:      "#prompt-textarea",
		Send:          `[data-testid="send-button"]`,
		MentionOption: `[role="option"]:has-text("{app}")`,
		Turn:          "[data-message-author-role]",
		AppFrame:      []string{`iframe[src*="oaiusercontent.com"]`, "iframe"},
		ModalDismiss:  `button:has-text("Got it")`,
		CommitDrafts:  true,
		PageTimeout:   30 * time.Second,
		DraftTimeout:  10 * time.Second,
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestProfileBuiltinsWithoutEnvironment(t *testing.T) {
	p, err := LoadProfile(testProfile(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if p.Composer != "#prompt-textarea" || p.Overridden("Composer") || !p.CommitDrafts || p.PageTimeout != 30*time.Second {
		t.Errorf("built-ins not kept: %+v", p)
	}
	if got := p.Sel("MentionOption"); got != `[role="option"]:has-text("mcpconform")` {
		t.Errorf("{app} not expanded: %s", got)
	}
	if got := p.ExpandedPrompt(); got != "Call conformance_suite." {
		t.Errorf("{tool} not expanded: %s", got)
	}
	if p.StorageState != "" {
		t.Errorf("storage state %q without the variable", p.StorageState)
	}
	if got := p.Source("Composer"); got != "built-in; override with MCPCONFORM_CHATGPT_COMPOSER_SELECTOR" {
		t.Errorf("source: %s", got)
	}
}

func TestProfileEnvironmentOverrides(t *testing.T) {
	p, err := LoadProfile(testProfile(), env(map[string]string{
		"MCPCONFORM_CHATGPT_COMPOSER_SELECTOR":      "textarea#prompt",
		"MCPCONFORM_CHATGPT_APP_FRAME_SELECTORS":    `iframe[title="app, outer"] ; iframe`,
		"MCPCONFORM_CHATGPT_COMMIT_DRAFTS":          "false",
		"MCPCONFORM_CHATGPT_PAGE_TIMEOUT":           "5s",
		"MCPCONFORM_CHATGPT_MODAL_DISMISS_SELECTOR": "none",
		"MCPCONFORM_CHATGPT_STORAGE_STATE":          "/secrets/chatgpt.json",
		"MCPCONFORM_CHATGPT_ALLOWED_HOSTS":          "chatgpt.com,oaiusercontent.com",
		"MCPCONFORM_CLAUDE_SEND_SELECTOR":           "ignored: another product's prefix",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Composer != "textarea#prompt" || !p.Overridden("Composer") || p.Source("Composer") != "set by MCPCONFORM_CHATGPT_COMPOSER_SELECTOR" {
		t.Errorf("composer override: %q %s", p.Composer, p.Source("Composer"))
	}
	// Selectors contain commas, so the chain is split on ";".
	if !reflect.DeepEqual(p.AppFrame, []string{`iframe[title="app, outer"]`, "iframe"}) {
		t.Errorf("app frame chain: %q", p.AppFrame)
	}
	if p.CommitDrafts || p.PageTimeout != 5*time.Second || p.StorageState != "/secrets/chatgpt.json" {
		t.Errorf("overrides not applied: %+v", p)
	}
	if p.Sel("ModalDismiss") != "" || !strings.Contains(p.Describe("ModalDismiss"), "none (set by MCPCONFORM_CHATGPT_MODAL_DISMISS_SELECTOR)") {
		t.Errorf("none does not turn the step off: %q / %s", p.Sel("ModalDismiss"), p.Describe("ModalDismiss"))
	}
	if p.Send != `[data-testid="send-button"]` {
		t.Errorf("another product's variable applied: %q", p.Send)
	}
	if !reflect.DeepEqual(p.AllowedHosts, []string{"chatgpt.com", "oaiusercontent.com"}) {
		t.Errorf("allowed hosts: %q", p.AllowedHosts)
	}
}

// GitHub Actions expands a missing secret or variable to "": an empty
// value must count as unset, never wipe a built-in or set a path.
func TestProfileEmptyValuesCountAsUnset(t *testing.T) {
	p, err := LoadProfile(testProfile(), env(map[string]string{
		"MCPCONFORM_CHATGPT_COMPOSER_SELECTOR": "",
		"MCPCONFORM_CHATGPT_STORAGE_STATE":     "",
		"MCPCONFORM_CHATGPT_PAGE_TIMEOUT":      "",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Composer != "#prompt-textarea" || p.Overridden("Composer") || p.StorageState != "" || p.Overridden("StorageState") || p.PageTimeout != 30*time.Second {
		t.Errorf("empty values were applied: %+v", p)
	}
}

func TestProfileValidationNamesVariables(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{"MCPCONFORM_CHATGPT_COMPOSER_SELECTOR": "none"}, []string{"MCPCONFORM_CHATGPT_COMPOSER_SELECTOR cannot be \"none\""}},
		{map[string]string{"MCPCONFORM_CHATGPT_URL": "chatgpt.com"}, []string{"MCPCONFORM_CHATGPT_URL must be an http(s) URL"}},
		{map[string]string{"MCPCONFORM_CHATGPT_APP_FRAME_SELECTORS": "iframe;;iframe"}, []string{"MCPCONFORM_CHATGPT_APP_FRAME_SELECTORS"}},
		{map[string]string{"MCPCONFORM_CHATGPT_LOGGED_OUT_URL": "(unclosed"}, []string{"MCPCONFORM_CHATGPT_LOGGED_OUT_URL is not a regular expression"}},
		{map[string]string{"MCPCONFORM_CHATGPT_PAGE_TIMEOUT": "soon"}, []string{"MCPCONFORM_CHATGPT_PAGE_TIMEOUT"}},
		{map[string]string{"MCPCONFORM_CHATGPT_COMMIT_DRAFTS": "maybe"}, []string{"MCPCONFORM_CHATGPT_COMMIT_DRAFTS"}},
		{map[string]string{"MCPCONFORM_CHATGPT_PROMPT": "none", "MCPCONFORM_CHATGPT_TURN_SELECTOR": "none"}, []string{"MCPCONFORM_CHATGPT_PROMPT", "MCPCONFORM_CHATGPT_TURN_SELECTOR"}},
	} {
		_, err := LoadProfile(testProfile(), env(tc.env))
		if err == nil {
			t.Errorf("%v: no error", tc.env)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", tc.env, err, w)
			}
		}
	}
}

func TestProfileVariableNames(t *testing.T) {
	p := testProfile()
	p.Product = "claude-web"
	for field, want := range map[string]string{
		"Composer":     "MCPCONFORM_CLAUDE_WEB_COMPOSER_SELECTOR",
		"StorageState": "MCPCONFORM_CLAUDE_WEB_STORAGE_STATE",
		"AppFrame":     "MCPCONFORM_CLAUDE_WEB_APP_FRAME_SELECTORS",
		"PageTimeout":  "MCPCONFORM_CLAUDE_WEB_PAGE_TIMEOUT",
	} {
		if got := p.Var(field); got != want {
			t.Errorf("Var(%s) = %s, want %s", field, got, want)
		}
	}
	// Every env-tagged field has a distinct variable.
	seen := map[string]string{}
	for _, f := range envFields() {
		v := p.Var(f.Name)
		if other, dup := seen[v]; dup {
			t.Errorf("%s and %s share %s", f.Name, other, v)
		}
		seen[v] = f.Name
	}
}

// envFields are Profile's fields read from the environment.
func envFields() []reflect.StructField {
	var out []reflect.StructField
	ty := reflect.TypeOf(Profile{})
	for i := 0; i < ty.NumField(); i++ {
		if f := ty.Field(i); f.Tag.Get("env") != "" {
			out = append(out, f)
		}
	}
	return out
}

// docs/hosted.md lists every variable a profile reads.
func TestEveryVariableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/hosted.md")
	if err != nil {
		t.Fatal(err)
	}
	p := Profile{Product: "<host>"}
	for _, f := range envFields() {
		v := p.Var(f.Name)
		if !strings.Contains(string(doc), "`"+v+"`") {
			t.Errorf("docs/hosted.md does not document %s (field %s)", v, f.Name)
		}
	}
}

func TestAllowedHostsBeforeSetup(t *testing.T) {
	c := New(testProfile(), Hooks{}, Options{Getenv: env(map[string]string{"MCPCONFORM_CHATGPT_ALLOWED_HOSTS": "chatgpt.com, cdn.example"})})
	got, err := c.AllowedHosts()
	if err != nil || !reflect.DeepEqual(got, []string{"chatgpt.com", "cdn.example"}) {
		t.Fatalf("AllowedHosts = %q, %v", got, err)
	}
	c = New(testProfile(), Hooks{}, Options{Getenv: env(map[string]string{"MCPCONFORM_CHATGPT_PAGE_TIMEOUT": "x"})})
	if _, err := c.AllowedHosts(); err == nil || !strings.Contains(err.Error(), "MCPCONFORM_CHATGPT_PAGE_TIMEOUT") {
		t.Fatalf("a bad variable: %v", err)
	}
}

// Typical fills only the zero fields: a profile's own values, None
// included, stay.
func TestTypicalFillsOnlyZeroFields(t *testing.T) {
	p := Typical(Profile{Product: "x"})
	if p.AppName != "mcpconform" || p.PageTimeout != 30*time.Second || p.ModalWait != 3*time.Second || p.DraftTimeout != 10*time.Second ||
		p.DownloadConfirm != `[role="dialog"] button:has-text("Download")` || p.SamplingConfirm != `[role="dialog"] button:has-text("Allow")` {
		t.Errorf("Typical(zero) = %+v", p)
	}
	own := Profile{Product: "x", AppName: "mine", DownloadConfirm: None, SamplingConfirm: "#ok", PageTimeout: time.Second, ModalWait: 2 * time.Second, DraftTimeout: 5 * time.Second}
	if got := Typical(own); !reflect.DeepEqual(got, own) {
		t.Errorf("Typical changed set fields: %+v, want %+v", got, own)
	}
}
