package generic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// A development host with a conversation pane and no model (the reference
// page under no-agent), whose profile says AGENT=none: every check that
// needs the agent SKIPs saying so, without the control question's 20 s
// window waited out (its message is the declared one, not "did not
// answer": no question was asked), and what needs no agent (ui/message
// reaching the conversation) is judged as before.
func TestAgentNoneSkipsTheAgentChecksAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h := referencePage(t, "no-model", Profile{
		// No model calls the suite's tool: the user does, from the tool
		// picker.
		Steps:        "goto {url}/\nclick [data-testid=tool-picker]\nclick [data-testid=tool-option][data-tool=\"" + reference.SuiteTool + "\"]\nfill [data-testid=tool-args]={\"nonce\":\"{nonce}\"}\nclick [data-testid=tool-call]",
		AppFrame:     referenceAppFrame,
		Conversation: `[data-testid="conversation"]`,
		UserMessages: `[data-testid="conversation"] [data-role="user"]`,
		Agent:        AgentNone,
	}, "no-agent")
	agentChecks := []string{"visibility/app-tool-hidden", "model-context/next-turn", "model-context/last-wins", "tools/host-calls-app-tool"}
	hr, err := runner.Run(ctx, h, runner.Options{Env: env(t, time.Minute), Stall: 2 * time.Minute, Logf: t.Logf,
		Selection: runner.Selection{Globs: append([]string{"messages/add-to-conversation"}, agentChecks...)}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range hr.Cases {
		seen[c.ID] = true
		switch {
		case c.ID == "messages/add-to-conversation":
			if c.Status != protocol.StatusPass {
				t.Errorf("%s needs no agent: %s %q", c.ID, c.Status, c.Message)
			}
		case c.Status != protocol.StatusSkip || !strings.Contains(c.Message, "AGENT=none"):
			// The declared reason, not "the host's agent did not answer
			// ... within 20000 ms": no control question was asked.
			t.Errorf("%s: %s %q, want a SKIP naming AGENT=none", c.ID, c.Status, c.Message)
		}
	}
	for _, id := range agentChecks {
		if !seen[id] {
			t.Errorf("%s did not run", id)
		}
	}
}
