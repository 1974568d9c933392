// Package claude drives Claude (https://claude.ai/) as an MCP Apps host:
// `mcpconform run --host claude`. EXPERIMENTAL.
//
// It is a webchat.Chat with Claude's profile and hooks. It logs in from a
// Playwright storage state (MCPCONFORM_CLAUDE_STORAGE_STATE, written by
// `mcpconform login --host claude`), accepts the cookie banner (its overlay
// swallows clicks near the composer), asks the model to call the suite tool
// of the conformance connector, allows the tool call when Claude asks, and
// binds to the suite in the app's iframe (a sandbox on
// *.claudemcpcontent.com with the View nested inside).
//
// Claude drafts a ui/message into the composer instead of sending it (with
// a "Replace current text?" proposal when the composer is not empty); when
// the suite asks for the drafted message to be committed, the driver
// accepts the proposal and sends the draft, as the user would.
//
// What was verified, and what was not: the selectors and steps follow
// public descriptions of claude.ai (open-source MCP Apps conformance
// runners' Claude adapters and DOM notes) and are exercised in CI against a
// local imitation with that structure (testdata/page.html). Nothing here
// was run against the live product; docs/hosted.md lists each assumption.
// Every selector can be overridden with MCPCONFORM_CLAUDE_* without a
// rebuild.
package claude

import (
	"context"

	"github.com/mcpconform/mcpconform/hosts/webchat"
)

// Profile is Claude's built-in profile.
func Profile() webchat.Profile {
	return webchat.Typical(webchat.Profile{
		Product:      "claude",
		DisplayName:  "Claude",
		URL:          "https://claude.ai/new",
		LoginURL:     "https://claude.ai/login",
		LoggedOutURL: `^https://claude\.ai/login|/login(\?|$)`,
		Prompt:       "Use the {app} connector: call its {tool} tool with any nonce string.",
		// A ProseMirror contenteditable; a single Enter or the button sends.
		Composer:      `div.ProseMirror[contenteditable="true"]`,
		Send:          `button[aria-label="Send message"]`,
		MentionOption: webchat.None,
		Turn:          `[data-testid="user-message"], .font-claude-response, .font-claude-message`,
		UserTurn:      `[data-testid="user-message"]`,
		AppFrame:      []string{`iframe[src*="claudemcpcontent.com"]`, "iframe"},
		ToolApprove:   `[role="dialog"] button:has-text("Allow once")`,
		ModalDismiss:  `button:has-text("Accept All Cookies")`,
		LoggedOut:     webchat.None,
		DraftReplace:  `:is(button, a, [role="button"]):has-text("Replace current text")`,
		CommitDrafts:  true,
		ThemeDark:     `html[data-mode="dark"], html.dark`,
		// Claude asks before opening a link from an app.
		OpenLinkConfirm: `[role="dialog"] :is(button, a):has-text("Open link")`,
		AllowedHosts:    []string{"claude.ai", "anthropic.com", "claudeusercontent.com", "claudemcpcontent.com"},
	})
}

// New returns the Claude driver (a webchat.Chat), configured from the
// environment, and NewWithOptions the driver with o; it is registered as
// --host claude. Its one hook is Claude's prompt step; the rest are
// webchat's defaults (among them CommitMessage: the profile's CommitDrafts
// makes it accept Claude's drafted ui/message and send it).
var New, NewWithOptions = webchat.Register(Profile, webchat.Hooks{SendPrompt: sendPrompt})

// sendPrompt dismisses the cookie banner first (typing and Enter are
// swallowed while it is up), retries the typing until the composer holds
// the prompt, then sends.
func sendPrompt(ctx context.Context, c *webchat.Chat, prompt string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = c.DismissModals(ctx, 0); err != nil {
			return err
		}
		if err = c.FillComposer(ctx, prompt); err == nil {
			break
		}
	}
	if err != nil {
		return err
	}
	return c.SendComposer(ctx)
}
