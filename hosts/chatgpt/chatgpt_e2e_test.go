package chatgpt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/chatgpt"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"
	"github.com/mcpconform/mcpconform/runner"
)

// A selector overridden through the environment, without a rebuild, is
// used; when it matches nothing, Setup fails fast naming the variable.
func TestBrokenSelectorOverrideFailsFast(t *testing.T) {
	_, vars := imitation(t)
	webchattest.OverrideFailsFast(t, "chatgpt", chatgpt.New, vars, "MCPCONFORM_CHATGPT_COMPOSER_SELECTOR", "#prompt-textarea-v2")
}

func TestEmptyStorageStateCountsAsMissing(t *testing.T) {
	_, vars := imitation(t)
	webchattest.EmptyStorageStateCountsAsMissing(t, "chatgpt", vars, chatgpt.NewWithOptions)
}

// An expired or foreign session lands on the login page: Setup says so and
// names the storage-state variable, without waiting for timeouts.
func TestLoggedOutSessionFailsFast(t *testing.T) {
	_, vars := imitation(t)
	other, _ := imitation(t) // another product instance: its session is not valid here
	state := filepath.Join(t.TempDir(), "other.json")
	if err := other.WriteStorageState(state, 0o600); err != nil {
		t.Fatal(err)
	}
	webchattest.Setenv(t, vars)
	t.Setenv("MCPCONFORM_CHATGPT_STORAGE_STATE", state)
	err, took, l := setupFails(t, 30*time.Second)
	if !strings.Contains(err.Error(), "login page") || !strings.Contains(err.Error(), "MCPCONFORM_CHATGPT_STORAGE_STATE") || !strings.Contains(err.Error(), "mcpconform login --host chatgpt") {
		t.Errorf("want the logged-out error, got %v", err)
	}
	if took > 15*time.Second {
		t.Errorf("took %s", took)
	}
	if strings.Contains(err.Error()+l.String(), other.Session) {
		t.Error("the session value leaked into the error or the log")
	}
}

// A storage state readable by others is used, with a warning that names
// the file and its mode, and its contents appear nowhere.
func TestLooseStorageStateModeWarns(t *testing.T) {
	p, vars := imitation(t)
	if err := os.Chmod(vars["MCPCONFORM_CHATGPT_STORAGE_STATE"], 0o644); err != nil {
		t.Fatal(err)
	}
	h := chatgpt.NewWithOptions(webchat.Options{Getenv: lookup(vars)})
	var l logs
	_, err := runner.SetUp(context.Background(), h, runner.Options{Env: env(&l, 30*time.Second)})
	defer h.Teardown(context.Background())
	if err != nil {
		t.Fatalf("setup: %v\n%s", err, l.String())
	}
	if !strings.Contains(l.String(), "has mode 0644") || !strings.Contains(l.String(), "chmod 600 "+vars["MCPCONFORM_CHATGPT_STORAGE_STATE"]) {
		t.Errorf("no mode warning in the log:\n%s", l.String())
	}
	if strings.Contains(l.String(), p.Session) {
		t.Error("the session value appears in the log")
	}
}

// The suite through the ChatGPT driver against the imitation (its driver
// sample in CI, every check when extended): the
// onboarding modal is dismissed, the connector is picked from the mention
// picker, the tool call is confirmed, the app is found by the built-in
// frame selector, and each check gets the status the imitation earns.
func TestSuiteThroughChatGPTDriver(t *testing.T) {
	p, vars := imitation(t)
	// The hooks really ran (WholeSuite: the modal was dismissed, the tool
	// call confirmed), and the prompt reached the model with the app picked
	// in the mention picker (the imitation's model ignores it otherwise).
	webchattest.WholeSuite(t, chatgpt.NewWithOptions(webchat.Options{Getenv: lookup(vars)}), p)
	builtin := chatgpt.Profile()
	if msgs := p.UserMessages(); len(msgs) == 0 || msgs[0] != builtin.ExpandedPrompt() {
		t.Errorf("the first user message is not the prompt: %q", msgs)
	}
}

// A selector Playwright cannot parse fails before anything is loaded.
func TestUnparsableSelectorFailsAtOnce(t *testing.T) {
	_, vars := imitation(t)
	webchattest.Setenv(t, vars, map[string]string{"MCPCONFORM_CHATGPT_SEND_SELECTOR": `button[data-testid="send-button"`})
	err, took, _ := setupFails(t, 30*time.Second)
	if !strings.Contains(err.Error(), "MCPCONFORM_CHATGPT_SEND_SELECTOR") || !strings.Contains(err.Error(), "not a valid selector") {
		t.Errorf("want an invalid-selector error naming the variable, got %v", err)
	}
	if took > 10*time.Second {
		t.Errorf("took %s", took)
	}
}

// The mention-picker hook is what enables the connector: with it turned
// off, the model never calls the tool and Setup says where it stopped.
func TestWithoutTheMentionHookTheAppNeverShows(t *testing.T) {
	p, vars := imitation(t)
	webchattest.Setenv(t, vars)
	t.Setenv("MCPCONFORM_CHATGPT_MENTION_OPTION_SELECTOR", "none")
	err, _, _ := setupFails(t, 5*time.Second)
	if !strings.Contains(err.Error(), "showed no app iframe") || !strings.Contains(err.Error(), "MCPCONFORM_CHATGPT_APP_FRAME_SELECTORS") {
		t.Errorf("want the missing-app error naming the frame selector, got %v", err)
	}
	if msgs := p.UserMessages(); len(msgs) != 1 {
		t.Errorf("the prompt was not sent exactly once: %q", msgs)
	}
}

// The modal hook matters: with it off, the onboarding modal swallows the
// clicks and Setup fails naming the selector it could not use. The modal
// is there from the load: popping up 400 ms later, it raced the driver's
// clicks, and a fast enough driver sent the prompt before it came.
func TestWithoutTheModalHookSetupFails(t *testing.T) {
	_, vars := imitation(t)
	vars["MCPCONFORM_CHATGPT_URL"] += "?modal-at-load"
	webchattest.Setenv(t, vars)
	t.Setenv("MCPCONFORM_CHATGPT_MODAL_DISMISS_SELECTOR", "none")
	t.Setenv("MCPCONFORM_CHATGPT_PAGE_TIMEOUT", "3s")
	err, _, _ := setupFails(t, 5*time.Second)
	if !strings.Contains(err.Error(), "covers it") || !strings.Contains(err.Error(), "MCPCONFORM_CHATGPT_MODAL_DISMISS_SELECTOR") {
		t.Errorf("want an error saying what covers the composer and naming the modal variable, got %v", err)
	}
}
