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
//   - a request to list tools ("list … tools", "which tools") answers with
//     the names of the tools the model can see;
//   - "model context" repeats the model context the app last provided;
//   - anything else gets a short acknowledgement.
type Agent struct {
	conns   []*conn
	defects DefectSet

	mu           sync.Mutex
	modelContext []json.RawMessage
}

// Launch is what the page needs to show a tool's app.
type Launch struct {
	ServerID  string          `json:"serverId"`
	Tool      *mcp.Tool       `json:"tool"`
	CallID    string          `json:"callId"`
	Arguments map[string]any  `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Resource  *uiResource     `json:"resource"`
}

var (
	runSuite  = regexp.MustCompile(`(?i)\b(run|start|open|launch)\b.*\bconformance\b`)
	listTools = regexp.MustCompile(`(?i)\b(list|which|what)\b.*\btools?\b`)
	askCtx    = regexp.MustCompile(`(?i)\bmodel context\b`)
)

// SuiteTool is the tool the agent calls to start the conformance app.
const SuiteTool = "conformance_suite"

// ModelTools lists the tools the model may see: those whose visibility
// includes "model" (S L400), from every connected server.
func (a *Agent) ModelTools() []string {
	var names []string
	for _, c := range a.conns {
		for _, t := range c.allTools() {
			if slices.Contains(visibility(t), "model") || a.defects["app-only-tools-to-model"] {
				names = append(names, t.Name)
			}
		}
	}
	sort.Strings(names)
	return names
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
	switch {
	case runSuite.MatchString(text):
		l, err := a.launch(ctx, SuiteTool, map[string]any{"nonce": nonce()})
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
		return "Model context from the app: " + strings.Join(parts, " "), nil, nil
	default:
		return "Noted. (This is the reference host's scripted agent: ask it to run the conformance suite or to list its tools.)", nil, nil
	}
}

func (a *Agent) launch(ctx context.Context, name string, args map[string]any) (*Launch, error) {
	for _, c := range a.conns {
		t := c.tool(name)
		if t == nil || !slices.Contains(visibility(t), "model") {
			continue
		}
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, fmt.Errorf("tools/call %s: %w", name, err)
		}
		l := &Launch{ServerID: c.id, Tool: t, CallID: nonce(), Arguments: args, Result: toJSON(res)}
		if uri := resourceURI(t); uri != "" {
			if l.Resource, err = c.readUI(ctx, uri); err != nil {
				return nil, err
			}
		}
		return l, nil
	}
	return nil, fmt.Errorf("no connected server offers the model a tool named %s", name)
}

func nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
