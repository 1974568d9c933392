package reference

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Agent is the reference host's deterministic stand-in for a model. It
// answers from fixed rules, so conversation-based checks (hidden tools,
// messages, model context) run in CI without an LLM:
//
//   - "run the conformance suite" (any text naming a conformance run) calls
//     the conformance_suite tool with a fresh nonce and shows its app;
//   - "call the tool NAME with arguments {JSON}" calls that tool (it must be
//     visible to the model) and shows its app, if it has one; a tool a shown
//     View provides (draft §App-Provided Tools) is called in that View
//     (AppToolCall: the host page sends the View tools/call and writes its
//     answer into the conversation);
//     A call request may ask for its outcome ("if it succeeds, answer W1
//     reversed; if it fails, answer W2 reversed"): the answer then ends
//     with the matching word reversed (Outcome);
//   - a request to list tools ("list … tools", "which tools") answers with
//     the names of the tools the model can see;
//   - "reply with this word reversed ...: WORD" (the suite's agent control
//     question) answers with WORD reversed, so the suite sees a model
//     answer that the question's own text cannot fake;
//   - "model context" repeats the model context the app last provided
//     (reversed, letter by letter, when the message asks for it reversed);
//   - anything else gets a short acknowledgement.
type Agent struct {
	conns   []*conn
	defects DefectSet
	calls   callRegistry
	// appTools are the tools the shown Views provide (nil: none).
	appTools *appToolRegistry

	mu           sync.Mutex
	modelContext []json.RawMessage
}

// Launch is what the page needs to show a tool's app. The tool call runs
// on in the background (the View is shown while it runs, S §Lifecycle);
// the page waits for its outcome with /api/call/wait and may cancel it
// with /api/call/cancel.
type Launch struct {
	ServerID  string         `json:"serverId"`
	Tool      *mcp.Tool      `json:"tool"`
	CallID    string         `json:"callId"`
	Arguments map[string]any `json:"arguments"`
	Resource  *uiResource    `json:"resource"`
}

var (
	callTool = regexp.MustCompile(`(?is)\bcall the tool\s+([A-Za-z0-9_.\-]+)\s+with arguments\s+(\{.*\})`)
	// The outcome a call request asks to be told (the suite's
	// tools/closed-app-tool-errors).
	callOutcome = regexp.MustCompile(`(?i)\bif it succeeds, answer\s+([A-Za-z0-9_-]+)\s+reversed\b.*?\bif it fails, answer\s+([A-Za-z0-9_-]+)\s+reversed\b`)
	runSuite    = regexp.MustCompile(`(?i)\b(run|start|open|launch)\b.*\bconformance\b`)
	listTools   = regexp.MustCompile(`(?i)\b(list|which|what)\b.*\btools?\b`)
	askCtx      = regexp.MustCompile(`(?i)\bmodel context\b`)
	// The suite's agent control question (fixtures/suite/tests/helpers.ts,
	// agentControlQuestion).
	askReversed = regexp.MustCompile(`(?i)\breversed\b`)
	reverseWord = regexp.MustCompile(`(?i)\breply with this word reversed\b[^:]*:\s*([A-Za-z0-9_-]+)`)
)

// SuiteTool is the tool the agent calls to start the conformance app.
const SuiteTool = "conformance_suite"

// ModelTools lists the tools the model may see: those whose visibility
// includes "model" (S L400), from every connected server.
func (a *Agent) ModelTools() []string {
	var names []string
	for _, t := range a.ModelToolInfo() {
		names = append(names, t.Name)
	}
	return names
}

// ToolInfo describes one tool the model may see, for the page's tool
// picker.
type ToolInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Server is the connection's id ("s0", "s1").
	Server      string `json:"server"`
	InputSchema any    `json:"inputSchema,omitempty"`
	// HasApp is whether the tool has a UI resource (its call shows an app).
	HasApp bool `json:"hasApp"`
}

// ModelToolInfo is ModelTools with what a tool picker shows, sorted by
// name.
func (a *Agent) ModelToolInfo() []ToolInfo {
	var out []ToolInfo
	for _, c := range a.conns {
		for _, t := range c.allTools() {
			listed := slices.Contains(visibility(t), "model")
			// The defect model-list-guard-exact hides only the exact list
			// ["app"], as the SDK's isToolVisibilityAppOnly matches.
			if a.defects["model-list-guard-exact"] {
				listed = !slices.Equal(visibility(t), []string{"app"})
			}
			if listed || a.defects["app-only-tools-to-model"] {
				out = append(out, ToolInfo{Name: t.Name, Title: t.Title, Description: t.Description, Server: c.id, InputSchema: t.InputSchema, HasApp: resourceURI(t, a.defects) != ""})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CallTool calls a model-visible tool by name, as the agent does for "call
// the tool NAME with arguments {JSON}": the page's tool picker (the user
// calling a tool directly) takes exactly this path. It answers like Reply.
func (a *Agent) CallTool(ctx context.Context, name string, args map[string]any) (string, *Launch, error) {
	if args == nil {
		args = map[string]any{}
	}
	l, text, err := a.launch(ctx, name, args)
	if err != nil {
		return "", nil, err
	}
	if l == nil {
		return fmt.Sprintf("Called %s: %s", name, text), nil, nil
	}
	return fmt.Sprintf("Calling %s.", name), l, nil
}

// ViewCall is an agent's call of a tool a shown View provides (draft
// "Host → App: Call app-registered tool"): the host page sends the View
// of CallID a tools/call (ui/call-view-tool in the v2 dialect) and writes
// the View's answer into the conversation.
type ViewCall struct {
	CallID    string         `json:"callId"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	// What the answer ends with when the call succeeds or fails (Outcome).
	OnSuccess string `json:"onSuccess,omitempty"`
	OnError   string `json:"onError,omitempty"`
}

// AppToolCall is the agent's answer to "call the tool NAME with arguments
// {JSON}" when NAME is a tool a shown View provides; nil when the message
// asks for no such tool (Reply answers it, and a tool no one provides,
// such as one of a closed View, is an error there).
func (a *Agent) AppToolCall(text string) *ViewCall {
	m := callTool.FindStringSubmatch(text)
	if m == nil || a.appTools == nil || reverseWord.MatchString(text) {
		return nil
	}
	callID, ok := a.appTools.viewOf(m[1])
	if !ok {
		return nil
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
		return nil
	}
	if args == nil {
		args = map[string]any{}
	}
	return &ViewCall{CallID: callID, Name: m[1], Arguments: args}
}

// Outcome is what a call request asks the answer to end with when the
// call succeeds and when it fails (each word reversed), or "" and "" when
// it asks nothing.
func Outcome(text string) (onSuccess, onError string) {
	if m := callOutcome.FindStringSubmatch(text); m != nil && callTool.MatchString(text) {
		return reverse(m[1]), reverse(m[2])
	}
	return "", ""
}

// SetModelContext stores the app's latest model context; only the last
// update before the next user message reaches the model (S L1101).
func (a *Agent) SetModelContext(v json.RawMessage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.defects["model-context-dropped"]:
	case a.defects["model-context-accumulates"]:
		a.modelContext = append(a.modelContext, v)
	default:
		a.modelContext = []json.RawMessage{v}
	}
}

// Sample answers sampling/createMessage deterministically: it echoes the
// last user text, so a check can tell the answer belongs to its request.
func (a *Agent) Sample(params json.RawMessage) (map[string]any, error) {
	var p struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Messages) == 0 {
		return nil, fmt.Errorf("sampling/createMessage needs messages")
	}
	last := p.Messages[len(p.Messages)-1]
	var text string
	var block struct{ Type, Text string }
	var blocks []struct{ Type, Text string }
	if json.Unmarshal(last.Content, &block) == nil && block.Text != "" {
		text = block.Text
	} else if json.Unmarshal(last.Content, &blocks) == nil && len(blocks) > 0 {
		text = blocks[0].Text
	}
	res := map[string]any{
		"role":       "assistant",
		"content":    map[string]any{"type": "text", "text": "reference agent heard: " + text},
		"model":      "mcpconform-scripted-agent",
		"stopReason": "endTurn",
	}
	if a.defects["sampling-invalid-result"] {
		delete(res, "model")
		res["content"] = "not a content block"
	}
	return res, nil
}

// Reply answers one user message.
func (a *Agent) Reply(ctx context.Context, text string) (string, *Launch, error) {
	a.mu.Lock()
	mc := a.modelContext
	a.mu.Unlock()
	if m := reverseWord.FindStringSubmatch(text); m != nil {
		return "Reversed: " + reverse(m[1]), nil, nil
	}
	switch m := callTool.FindStringSubmatch(text); {
	case m != nil:
		var args map[string]any
		if err := json.Unmarshal([]byte(m[2]), &args); err != nil {
			return fmt.Sprintf("I could not read the arguments for %s: %v", m[1], err), nil, nil
		}
		return a.CallTool(ctx, m[1], args)
	case runSuite.MatchString(text):
		l, _, err := a.launch(ctx, SuiteTool, map[string]any{"nonce": nonce()})
		if err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("Calling %s.", SuiteTool), l, nil
	case listTools.MatchString(text):
		return "I can call these tools: " + strings.Join(a.ModelTools(), ", ") + ".", nil, nil
	case askCtx.MatchString(text):
		if len(mc) == 0 {
			return "The app has not provided any model context.", nil, nil
		}
		parts := make([]string, len(mc))
		for i, m := range mc {
			parts[i] = string(m)
		}
		if askReversed.MatchString(text) {
			return "Model context from the app, reversed: " + reverse(strings.Join(parts, " ")), nil, nil
		}
		return "Model context from the app: " + strings.Join(parts, " "), nil, nil
	default:
		return "Noted. (This is the reference host's scripted agent: ask it to run the conformance suite or to list its tools.)", nil, nil
	}
}

// launch calls a model-visible tool. A tool with a UI resource gets a Launch
// (the resource is read first, the call goes on in the background); a tool
// without one is run to completion and its text returned instead.
func (a *Agent) launch(ctx context.Context, name string, args map[string]any) (*Launch, string, error) {
	for _, c := range a.conns {
		t := c.tool(name)
		if t == nil || !slices.Contains(visibility(t), "model") {
			continue
		}
		l := &Launch{ServerID: c.id, Tool: t, CallID: nonce(), Arguments: args}
		uri := resourceURI(t, a.defects)
		if uri == "" {
			res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				return nil, "", fmt.Errorf("tools/call %s: %w", name, err)
			}
			return nil, resultText(res), nil
		}
		if a.defects["ui-html-from-tool-result"] {
			// The defect (an MCP-UI-era host): run the call first and render
			// a UI resource embedded in its result, if any, instead of
			// reading the tool's resource.
			res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				return nil, "", fmt.Errorf("tools/call %s: %w", name, err)
			}
			for _, content := range res.Content {
				if e, ok := content.(*mcp.EmbeddedResource); ok && e.Resource != nil && strings.HasPrefix(e.Resource.URI, "ui://") {
					l.Resource = &uiResource{URI: e.Resource.URI, MIMEType: e.Resource.MIMEType, HTML: e.Resource.Text, UI: map[string]any{}}
				}
			}
			if l.Resource == nil {
				if l.Resource, err = c.readUI(ctx, uri, a.defects); err != nil {
					return nil, "", err
				}
			}
			a.calls.finished(l.CallID, toJSON(res))
			return l, "", nil
		}
		var err error
		if l.Resource, err = c.readUI(ctx, uri, a.defects); err != nil {
			return nil, "", err
		}
		a.calls.start(c, l)
		return l, "", nil
	}
	return nil, "", fmt.Errorf("no connected server offers the model a tool named %s", name)
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return "(no text)"
	}
	return strings.Join(parts, " ")
}

// NewConversation forgets the model context (the page has torn down every
// View and cleared the conversation).
func (a *Agent) NewConversation() {
	a.mu.Lock()
	a.modelContext = nil
	a.mu.Unlock()
}

// reverse returns s with its characters in reverse order.
func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

func nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
