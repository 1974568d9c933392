// Package chatgpt drives ChatGPT (https://chatgpt.com/) as an MCP Apps
// host: `mcpconform run --host chatgpt`. EXPERIMENTAL.
//
// It is a webchat.Chat with ChatGPT's profile and hooks. It logs in from a
// Playwright storage state (MCPCONFORM_CHATGPT_STORAGE_STATE, written by
// `mcpconform login --host chatgpt`), starts a new conversation, picks the
// conformance connector from the @-mention picker, asks the model to call
// the suite tool, confirms the tool call if ChatGPT asks, and binds to the
// suite in the app's iframe (a sandbox on *.oaiusercontent.com with the
// View nested inside).
//
// What was verified, and what was not: the selectors and steps follow
// public descriptions of chatgpt.com (open-source MCP Apps conformance
// runners' ChatGPT adapters and DOM notes) and are exercised in CI against
// a local imitation with that structure (testdata/page.html). Nothing here
// was run against the live product; docs/hosted.md lists each assumption.
// Every selector can be overridden with MCPCONFORM_CHATGPT_* without a
// rebuild.
package chatgpt

import (
	"context"

	"github.com/mcpconform/mcpconform/hosts/webchat"
)

// Profile is ChatGPT's built-in profile.
func Profile() webchat.Profile {
	return webchat.Typical(webchat.Profile{
		Product:      "chatgpt",
		DisplayName:  "ChatGPT",
		URL:          "https://chatgpt.com/",
		LoginURL:     "https://chatgpt.com/auth/login",
		LoggedOutURL: `/auth/login|^https://auth\.openai\.com/`,
		Prompt:       "Call the {tool} tool with any nonce string.",
		// A ProseMirror contenteditable (a hidden fallback textarea shares
		// the name, not the id).
		Composer:      "#prompt-textarea",
		Send:          `[data-testid="send-button"]`,
		MentionOption: `[role="option"]:has-text("{app}")`,
		Turn:          "[data-message-author-role]",
		UserTurn:      `[data-message-author-role="user"]`,
		AppFrame:      []string{`iframe[src*="oaiusercontent.com"]`, "iframe"},
		ToolApprove:   `button:has-text("Confirm")`,
		ModalDismiss:  `button:has-text("Got it")`,
		LoggedOut:     `[data-testid="login-button"]`,
		DraftReplace:  webchat.None,
		CommitDrafts:  false,
		ThemeDark:     "html.dark",
		// Public adapters report ChatGPT opens ui/open-link without asking.
		OpenLinkConfirm: webchat.None,
		AllowedHosts:    []string{"chatgpt.com", "openai.com", "oaistatic.com", "oaiusercontent.com"},
	})
}

// New returns the ChatGPT driver (a webchat.Chat), configured from the
// environment, and NewWithOptions the driver with o; it is registered as
// --host chatgpt. Its one hook is ChatGPT's prompt step; the rest are
// webchat's defaults.
var New, NewWithOptions = webchat.Register(Profile, webchat.Hooks{SendPrompt: sendPrompt})

// sendPrompt picks the connector from the @-mention picker first (typed key
// by key: the picker opens on input events) and then types the prompt: the
// model only sees a developer-mode connector's tools once it is picked.
func sendPrompt(ctx context.Context, c *webchat.Chat, prompt string) error {
	composer, err := c.ClickVisible("Composer", "the composer")
	if err != nil {
		return err
	}
	if err := composer.Fill(""); err != nil {
		return c.ActionError("clearing the composer", "Composer", err)
	}
	if c.Profile.Sel("MentionOption") != "" {
		if err := c.PickMention(ctx); err != nil {
			return err
		}
		prompt = " " + prompt
	}
	if err := composer.PressSequentially(prompt); err != nil {
		return c.ActionError("typing the prompt", "Composer", err)
	}
	return c.SendComposer(ctx)
}
