package webchat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/fixtures/mcpserver"
)

// None is the value that turns an optional step off (a product without a
// mention picker, without an open-link confirmation, …). An empty value
// counts as unset, so a missing CI secret or variable (GitHub Actions
// expands it to "") never wipes a built-in selector.
const None = "none"

// Profile is everything about a chat product that is data: where it lives,
// how its pages are addressed (Playwright selectors: CSS, or Playwright's
// extensions such as :has-text()), what to type and how long to wait. The
// product package supplies the built-in values; every field with an env tag
// can be overridden without a rebuild by MCPCONFORM_<PRODUCT>_<TAG>.
//
// Selectors and the prompt may contain {app} (AppName) and {tool} (the
// suite tool's name).
type Profile struct {
	// Product is the host name ("chatgpt"); it makes the variable prefix.
	Product string
	// DisplayName is how messages name the product ("ChatGPT").
	DisplayName string

	// URL is the page a new conversation starts on.
	URL string `env:"URL"`
	// LoginURL is where `mcpconform login` opens the browser.
	LoginURL string `env:"LOGIN_URL"`
	// LoggedOutURL is a regular expression: a page URL that matches it
	// means the session is gone (the product redirected to its login).
	LoggedOutURL string `env:"LOGGED_OUT_URL"`
	// StorageState is the path of a Playwright storage state holding a
	// logged-in session (never inline JSON; see LoadStorageState).
	StorageState string `env:"STORAGE_STATE"`
	// AppName is the connector's name as the product shows it.
	AppName string `env:"APP_NAME"`
	// Prompt is what the driver sends to make the model call the suite
	// tool (after the mention, for products with a mention picker).
	Prompt string `env:"PROMPT"`

	// Composer is the message input; Send the button that sends it.
	Composer string `env:"COMPOSER_SELECTOR"`
	Send     string `env:"SEND_SELECTOR"`
	// MentionOption is the entry for AppName in the product's @-mention
	// picker; None for products without one.
	MentionOption string `env:"MENTION_OPTION_SELECTOR"`
	// Turn matches each message of the conversation (user and assistant),
	// never the composer: a marker counts as in the conversation only
	// inside a turn.
	Turn string `env:"TURN_SELECTOR"`
	// UserTurn matches the user's own turns among Turn's (the rest are
	// the assistant's); None when the product's turns do not tell.
	UserTurn string `env:"USER_TURN_SELECTOR"`
	// AppFrame is the app iframe's address, iframe selectors from the top
	// page down, separated by ";" in the variable.
	AppFrame []string `env:"APP_FRAME_SELECTORS, delimiter=;"`
	// ToolApprove is the button that lets the model's tool call run when
	// the product asks first; None when it never asks.
	ToolApprove string `env:"TOOL_APPROVE_SELECTOR"`
	// ModalDismiss closes product chrome that covers the page (onboarding
	// pop-ups, cookie banners); None when there is none.
	ModalDismiss string `env:"MODAL_DISMISS_SELECTOR"`
	// LoggedOut is visible only to a logged-out visitor (a log-in button).
	LoggedOut string `env:"LOGGED_OUT_SELECTOR"`
	// DraftReplace accepts the product's proposal to replace the
	// composer's text with a drafted ui/message; None when it has none.
	DraftReplace string `env:"DRAFT_REPLACE_SELECTOR"`
	// CommitDrafts says the product drafts ui/message into the composer
	// instead of sending it, so the driver sends the draft for the user.
	CommitDrafts bool `env:"COMMIT_DRAFTS"`
	// ThemeDark matches only while the product shows its dark theme.
	ThemeDark string `env:"THEME_DARK_SELECTOR"`
	// The confirm buttons of the product's dialogs before it opens a link,
	// downloads a file or lets the app sample the model; None for a
	// dialog the product does not show.
	OpenLinkConfirm string `env:"OPEN_LINK_CONFIRM_SELECTOR"`
	DownloadConfirm string `env:"DOWNLOAD_CONFIRM_SELECTOR"`
	SamplingConfirm string `env:"SAMPLING_CONFIRM_SELECTOR"`

	// PageTimeout bounds each page step (load, a selector to appear).
	PageTimeout time.Duration `env:"PAGE_TIMEOUT"`
	// ModalWait is how long Setup waits for a modal that may pop up late.
	ModalWait time.Duration `env:"MODAL_WAIT"`
	// DraftTimeout bounds the wait for a drafted ui/message to appear.
	DraftTimeout time.Duration `env:"DRAFT_TIMEOUT"`
	// AllowedHosts are the host names (and their subdomains) the product's
	// pages load from; a run against the product must let the browser's
	// loopback guard pass them (comma-separated in the variable).
	AllowedHosts []string `env:"ALLOWED_HOSTS"`

	overridden map[string]bool
}

// Typical fills the fields a built-in profile leaves zero with what chat
// products typically have: the app named mcpconform, dialogs confirmed with
// a "Download" or "Allow" button, 30 s page steps, a 3 s modal wait and a
// 10 s draft wait. A field the profile sets, None included, is kept.
func Typical(p Profile) Profile {
	if p.AppName == "" {
		p.AppName = "mcpconform"
	}
	if p.DownloadConfirm == "" {
		p.DownloadConfirm = `[role="dialog"] button:has-text("Download")`
	}
	if p.SamplingConfirm == "" {
		p.SamplingConfirm = `[role="dialog"] button:has-text("Allow")`
	}
	if p.PageTimeout == 0 {
		p.PageTimeout = 30 * time.Second
	}
	if p.ModalWait == 0 {
		p.ModalWait = 3 * time.Second
	}
	if p.DraftTimeout == 0 {
		p.DraftTimeout = 10 * time.Second
	}
	return p
}

// Prefix is the environment prefix of the profile, e.g. MCPCONFORM_CHATGPT_.
func (p *Profile) Prefix() string {
	return "MCPCONFORM_" + strings.ToUpper(strings.ReplaceAll(p.Product, "-", "_")) + "_"
}

// Var is the environment variable of a field (by Go name), e.g.
// Var("Composer") = "MCPCONFORM_CLAUDE_COMPOSER_SELECTOR".
func (p *Profile) Var(field string) string {
	f, ok := reflect.TypeOf(Profile{}).FieldByName(field)
	if !ok {
		panic("webchat: no profile field " + field)
	}
	name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
	return p.Prefix() + strings.TrimSpace(name)
}

// Overridden reports whether the field's value came from the environment.
func (p *Profile) Overridden(field string) bool { return p.overridden[p.Var(field)] }

// Source says where a field's value came from, for error messages.
func (p *Profile) Source(field string) string {
	if p.Overridden(field) {
		return "set by " + p.Var(field)
	}
	return "built-in; override with " + p.Var(field)
}

// Sel is the expanded selector of a field ("" when None).
func (p *Profile) Sel(field string) string {
	v := reflect.ValueOf(p).Elem().FieldByName(field).String()
	if v == None {
		return ""
	}
	return p.expand(v)
}

// Describe names a selector field, its value and where it came from.
func (p *Profile) Describe(field string) string {
	if p.Sel(field) == "" {
		return fmt.Sprintf("%s selector: none (%s)", label(field), p.Source(field))
	}
	return fmt.Sprintf("%s selector %q (%s)", label(field), p.Sel(field), p.Source(field))
}

// Frames is the expanded app-frame chain.
func (p *Profile) Frames() []string {
	out := make([]string, len(p.AppFrame))
	for i, s := range p.AppFrame {
		out[i] = p.expand(s)
	}
	return out
}

// ExpandedPrompt is the prompt with {app} and {tool} filled in.
func (p *Profile) ExpandedPrompt() string { return p.expand(p.Prompt) }

func (p *Profile) expand(s string) string {
	return strings.NewReplacer("{app}", p.AppName, "{tool}", mcpserver.ToolSuite).Replace(s)
}

func label(field string) string {
	var b strings.Builder
	for i, r := range field {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

// selectorFields are validated and checked against the page; required
// ones may not be None.
var (
	requiredSelectors = []string{"Composer", "Send", "Turn"}
	optionalSelectors = []string{"UserTurn", "MentionOption", "ToolApprove", "ModalDismiss", "LoggedOut", "DraftReplace", "ThemeDark", "OpenLinkConfirm", "DownloadConfirm", "SamplingConfirm"}
)

// LoadProfile applies MCPCONFORM_<PRODUCT>_* from getenv (os.Getenv when
// nil) over the built-in profile and validates the result. Empty values
// count as unset.
func LoadProfile(builtin Profile, getenv func(string) string) (*Profile, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	p := builtin
	p.AppFrame = append([]string(nil), builtin.AppFrame...)
	p.AllowedHosts = append([]string(nil), builtin.AllowedHosts...)
	p.overridden = map[string]bool{}
	seen := map[string]bool{}
	look := envconfig.LookuperFunc(func(key string) (string, bool) {
		v := getenv(key)
		if v == "" {
			return "", false
		}
		seen[key] = true
		return v, true
	})
	if err := envconfig.ProcessWith(context.Background(), &envconfig.Config{
		Target:           &p,
		Lookuper:         envconfig.PrefixLookuper(p.Prefix(), look),
		DefaultOverwrite: true,
	}); err != nil {
		// envconfig names the Go field; name the variable instead.
		msg := err.Error()
		if field, rest, ok := strings.Cut(msg, ": "); ok {
			if _, known := reflect.TypeOf(Profile{}).FieldByName(field); known {
				msg = p.Var(field) + ": " + rest
			}
		}
		return nil, fmt.Errorf("%s profile: %s", builtin.Product, msg)
	}
	for k := range seen {
		p.overridden[k] = true
	}
	return &p, p.validate()
}

func (p *Profile) validate() error {
	var errs []error
	if p.URL == "" || !strings.HasPrefix(p.URL, "http") {
		errs = append(errs, fmt.Errorf("%s must be an http(s) URL, got %q", p.Var("URL"), p.URL))
	}
	if p.Prompt == "" || p.Prompt == None {
		errs = append(errs, fmt.Errorf("%s is empty: the driver has nothing to ask the model", p.Var("Prompt")))
	}
	for _, f := range requiredSelectors {
		if p.Sel(f) == "" {
			errs = append(errs, fmt.Errorf("%s cannot be %q: the driver needs the %s", p.Var(f), None, label(f)))
		}
	}
	if len(p.AppFrame) == 0 || slicesContainsEmpty(p.AppFrame) {
		errs = append(errs, fmt.Errorf("%s needs at least one iframe selector and no empty ones, got %q", p.Var("AppFrame"), p.AppFrame))
	}
	if p.LoggedOutURL != "" && p.LoggedOutURL != None {
		if _, err := regexp.Compile(p.LoggedOutURL); err != nil {
			errs = append(errs, fmt.Errorf("%s is not a regular expression: %v", p.Var("LoggedOutURL"), err))
		}
	}
	for _, d := range []struct {
		f string
		v time.Duration
	}{{"PageTimeout", p.PageTimeout}, {"ModalWait", p.ModalWait}, {"DraftTimeout", p.DraftTimeout}} {
		if d.v < 0 || (d.f == "PageTimeout" && d.v == 0) {
			errs = append(errs, fmt.Errorf("%s must be a positive duration, got %s", p.Var(d.f), d.v))
		}
	}
	return errors.Join(errs...)
}

func slicesContainsEmpty(s []string) bool {
	for _, v := range s {
		if strings.TrimSpace(v) == "" {
			return true
		}
	}
	return false
}

// loggedOutURL reports whether u is the product's login page.
func (p *Profile) loggedOutURL(u string) bool {
	if p.LoggedOutURL == "" || p.LoggedOutURL == None {
		return false
	}
	re, err := regexp.Compile(p.LoggedOutURL)
	return err == nil && re.MatchString(u)
}
