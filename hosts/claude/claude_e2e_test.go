package claude_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/claude"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/testkit/webchattest"
	"github.com/mcpconform/mcpconform/protocol"
)

// A send-button selector overridden through the environment that matches
// nothing makes Setup fail fast, naming the variable.
func TestBrokenSendSelectorFailsFast(t *testing.T) {
	_, vars := imitation(t)
	webchattest.OverrideFailsFast(t, "claude", claude.New, vars, "MCPCONFORM_CLAUDE_SEND_SELECTOR", `button[aria-label="Send Message Now"]`)
}

func TestCommitAcceptsTheReplaceProposal(t *testing.T) {
	p, vars := imitation(t)
	var l webchattest.Logs
	h := prefilled{claude.NewWithOptions(webchat.Options{Getenv: webchattest.Lookup(vars)})}
	hr := run(t, h, &l, "messages/add-to-conversation")
	if len(hr.Cases) != 1 || hr.Cases[0].Status != protocol.StatusPass {
		t.Fatalf("want one PASS, got %+v\n%s", hr.Cases, l.String())
	}
	msgs := p.UserMessages()
	if marker(msgs) == "" {
		t.Errorf("the drafted marker message never reached the model: %q", msgs)
	}
	for _, m := range msgs {
		if strings.Contains(m, "half-written") {
			t.Errorf("the user's half-written text was sent instead of being replaced: %q", msgs)
		}
	}
}

func TestEmptyStorageStateCountsAsMissing(t *testing.T) {
	_, vars := imitation(t)
	webchattest.EmptyStorageStateCountsAsMissing(t, "claude", vars, claude.NewWithOptions)
}

// The suite through the Claude driver against the imitation (its driver
// sample in CI, every check when extended): the
// cookie banner is accepted, the tool call allowed, the app found by the
// built-in frame selector, and ui/message, which Claude only drafts, is
// committed by the driver so messages/add-to-conversation passes.
func TestSuiteThroughClaudeDriver(t *testing.T) {
	p, vars := imitation(t)
	webchattest.WholeSuite(t, claude.NewWithOptions(webchat.Options{Getenv: webchattest.Lookup(vars)}), p)
	// The drafted messages reached the model only because the driver sent
	// them: the imitation never sends a ui/message by itself.
	if marker(p.UserMessages()) == "" {
		t.Errorf("the model never received the drafted marker message: %q", p.UserMessages())
	}
}

// A draft that nobody sends is not in the conversation: with the commit
// hook turned off, messages/add-to-conversation fails, although the marker
// sits in the composer. This is the check the commit hook exists for, and
// it shows the turn selector does not count the composer.
func TestUncommittedDraftFailsTheCheck(t *testing.T) {
	p, vars := imitation(t)
	vars["MCPCONFORM_CLAUDE_COMMIT_DRAFTS"] = "false"
	var l webchattest.Logs
	hr := run(t, claude.NewWithOptions(webchat.Options{Getenv: webchattest.Lookup(vars)}), &l, "messages/add-to-conversation")
	if len(hr.Cases) != 1 || hr.Cases[0].Status != protocol.StatusFail || !strings.Contains(hr.Cases[0].Message, "did not appear in the conversation") {
		t.Fatalf("want one FAIL (marker not in the conversation), got %+v", hr.Cases)
	}
	if m := marker(p.UserMessages()); m != "" {
		t.Errorf("the draft reached the model without the commit hook: %q", m)
	}
}

// Without the cookie-banner hook, the banner swallows the clicks and the
// error says what covers the composer.
func TestWithoutTheCookieBannerHookSetupFails(t *testing.T) {
	_, vars := imitation(t)
	webchattest.Setenv(t, vars, map[string]string{
		"MCPCONFORM_CLAUDE_MODAL_DISMISS_SELECTOR": "none",
		"MCPCONFORM_CLAUDE_PAGE_TIMEOUT":           "2s",
	})
	err, _ := setupFails(t, 5*time.Second)
	if !strings.Contains(err.Error(), "cookie-banner") || !strings.Contains(err.Error(), "MCPCONFORM_CLAUDE_MODAL_DISMISS_SELECTOR") {
		t.Errorf("want an error naming the covering banner and the modal variable, got %v", err)
	}
}
