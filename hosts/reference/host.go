// Package reference is mcpconform's embedded MCP Apps web host: a small,
// spec-faithful chat product served by the binary (host page and sandbox
// proxy on two origins, a Go MCP client, a scripted agent). It is the default
// target of `mcpconform run` and the known-good baseline of every check.
package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/browserhost"
	"github.com/mcpconform/mcpconform/protocol"
)

// Selectors of the reference host page.
const (
	selComposer     = `[data-testid="composer"]`
	selSend         = `[data-testid="send"]`
	selConversation = `[data-testid="conversation"]`
	selThemeToggle  = `[data-testid="theme-toggle"]`
	selAppFrame     = `iframe[data-testid="app-frame"]`
	// Prompt is what the driver types to make the agent show the suite.
	Prompt = "Run the MCP Apps conformance suite"
)

// Host drives the reference host in a browser page.
type Host struct {
	*browserhost.Base
	srv     *Server
	defects DefectSet
}

// New returns the defect-free reference host; Setup starts its backend.
func New() *Host { return NewWithDefects(nil) }

// NewWithDefects returns a reference host that breaks the requirements the
// defects name (see Defects).
func NewWithDefects(d DefectSet) *Host {
	return &Host{Base: &browserhost.Base{AppFrame: []string{selAppFrame, "iframe"}}, defects: d}
}

func (h *Host) Name() string { return "reference" }

// Defects are the defects this host was built with.
func (h *Host) Defects() DefectSet { return h.defects }

// Server is the running backend, once Setup has run.
func (h *Host) Server() *Server { return h.srv }

// Setup starts the backend, opens the host page, asks the agent for the
// suite and waits for the app.
func (h *Host) Setup(ctx context.Context, env hosts.Env) (hosts.SuiteBridge, error) {
	servers := []string{env.ServerURL}
	if env.SecondServerURL != "" {
		servers = append(servers, env.SecondServerURL)
	}
	srv, err := NewServer(ctx, ServerOptions{MCPServers: servers, Defects: h.defects})
	if err != nil {
		return nil, err
	}
	h.srv = srv
	if err := h.Open(env, playwright.BrowserNewContextOptions{}); err != nil {
		return nil, err
	}
	if _, err := h.Page.Goto(srv.HostURL + "/"); err != nil {
		return nil, fmt.Errorf("opening the reference host page: %w", err)
	}
	if err := h.Page.Locator(selComposer).Fill(Prompt); err != nil {
		return nil, fmt.Errorf("typing the prompt: %w", err)
	}
	if err := h.Page.Locator(selSend).Click(); err != nil {
		return nil, fmt.Errorf("sending the prompt: %w", err)
	}
	timeout := env.AppTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return h.Bind(ctx, timeout)
}

// Teardown closes the page and the backend.
func (h *Host) Teardown(ctx context.Context) error {
	err := h.Close()
	if h.srv != nil {
		h.srv.Close()
	}
	return err
}

// ClickTrigger clicks the suite's trigger button for real.
func (h *Host) ClickTrigger(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	// The reference host sends ui/message straight into the conversation,
	// so there is never a drafted message to commit.
	return h.Click(ctx)
}

// ConfirmDialog accepts the host's confirmation dialog of that kind.
func (h *Host) ConfirmDialog(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	sel := fmt.Sprintf(`[data-testid="dialog-%s"] [data-testid="dialog-confirm"]`, req.Dialog)
	if err := h.ClickWhenVisible(sel, 5*time.Second); err != nil {
		return protocol.Result{OK: false, Error: fmt.Sprintf("no %s dialog appeared: %v", req.Dialog, err)}, nil
	}
	return protocol.Result{OK: true}, nil
}

// CheckLinkOpen reports whether a new tab opened the URL.
func (h *Host) CheckLinkOpen(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.LinkOpened(ctx, req.URL, 5*time.Second)
}

// ConversationContains waits for a marker in the conversation.
func (h *Host) ConversationContains(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.TextContains(ctx, selConversation, req.Marker, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// ToggleTheme clicks the host's own theme button until the theme is req.To.
func (h *Host) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	want := "theme-" + req.To
	for i := 0; i < 2; i++ {
		cls, err := h.Page.Locator("body").GetAttribute("class")
		if err != nil {
			return protocol.Result{}, err
		}
		if cls == want {
			return protocol.Result{OK: true}, nil
		}
		if err := h.Page.Locator(selThemeToggle).Click(); err != nil {
			return protocol.Result{}, err
		}
	}
	return protocol.Result{OK: false, Error: "the theme toggle did not reach " + req.To}, nil
}

// ReadModelToolList reads the agent's tool list straight from the backend.
func (h *Host) ReadModelToolList(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if h.srv == nil {
		return protocol.Result{}, errors.New("backend not started")
	}
	b, _ := json.Marshal(h.srv.Agent.ModelTools())
	return protocol.Result{OK: true, Value: b}, nil
}

// InspectFrame reports the app iframe's and the proxy iframe's attributes.
func (h *Host) InspectFrame(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.Inspect(ctx)
}

// ReadConsole waits for console lines matching the pattern.
func (h *Host) ReadConsole(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	return h.ConsoleMatching(ctx, req.Pattern, time.Duration(req.TimeoutMs)*time.Millisecond)
}

// ResetIsolation closes stray tabs and dialogs and restores the light theme.
func (h *Host) ResetIsolation(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if r, err := h.Reset(ctx); err != nil || !r.OK {
		return r, err
	}
	return h.ToggleTheme(ctx, protocol.Request{Kind: protocol.KindToggleTheme, To: "light"})
}
