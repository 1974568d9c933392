package webchat

import (
	"context"
	"time"
)

// Hooks are a product's own steps, where its pages differ from what the
// profile alone can drive. Each receives the Chat, whose Page, Profile and
// building blocks it uses. Every hook is optional: a nil one runs the
// default named in its comment.
type Hooks struct {
	// DismissModal closes product chrome that covers the page. wait is how
	// long a modal may take to appear (0: only what is visible now). No
	// modal is not an error. Default: Chat.DismissModals.
	DismissModal func(ctx context.Context, c *Chat, wait time.Duration) error
	// SendPrompt enters prompt in the composer and sends it. Default:
	// Chat.FillComposer, then Chat.SendComposer.
	SendPrompt func(ctx context.Context, c *Chat, prompt string) error
	// FindApp waits until the product shows the app's iframe, approving
	// the model's tool call if the product asks. Default: Chat.WaitApp.
	FindApp func(ctx context.Context, c *Chat, timeout time.Duration) error
	// CommitMessage sends a message the product drafted into its composer
	// for a ui/message. Default: Chat.CommitDraft, which does nothing
	// unless the profile says the product drafts (CommitDrafts).
	CommitMessage func(ctx context.Context, c *Chat) error
	// VerifyConversation reports whether marker appears in a turn of the
	// conversation within timeout. Default: Chat.TurnContains.
	VerifyConversation func(ctx context.Context, c *Chat, marker string, timeout time.Duration) (bool, error)
	// ToggleTheme puts the product in the light or dark theme. Default:
	// Chat.EmulateTheme (follow the emulated system colour scheme).
	ToggleTheme func(ctx context.Context, c *Chat, to string) error
}

// withDefaults fills every nil hook with its default.
func (h Hooks) withDefaults() Hooks {
	if h.DismissModal == nil {
		h.DismissModal = func(ctx context.Context, c *Chat, wait time.Duration) error { return c.DismissModals(ctx, wait) }
	}
	if h.SendPrompt == nil {
		h.SendPrompt = func(ctx context.Context, c *Chat, prompt string) error {
			if err := c.FillComposer(ctx, prompt); err != nil {
				return err
			}
			return c.SendComposer(ctx)
		}
	}
	if h.FindApp == nil {
		h.FindApp = func(ctx context.Context, c *Chat, timeout time.Duration) error { return c.WaitApp(ctx, timeout) }
	}
	if h.CommitMessage == nil {
		h.CommitMessage = func(ctx context.Context, c *Chat) error { return c.CommitDraft(ctx) }
	}
	if h.VerifyConversation == nil {
		h.VerifyConversation = func(ctx context.Context, c *Chat, marker string, timeout time.Duration) (bool, error) {
			return c.TurnContains(ctx, marker, timeout)
		}
	}
	if h.ToggleTheme == nil {
		h.ToggleTheme = func(ctx context.Context, c *Chat, to string) error { return c.EmulateTheme(ctx, to) }
	}
	return h
}
