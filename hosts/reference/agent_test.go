package reference

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAgentAnswersTheControlQuestion: the scripted model answers the
// suite's agent control question, built from the suite's own template, with
// the word reversed, and the answer does not merely repeat the question.
func TestAgentAnswersTheControlQuestion(t *testing.T) {
	src, err := os.ReadFile("../../fixtures/suite/tests/helpers.ts")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("agentControlQuestion\\(word: string\\): string \\{\\s*return `([^`]*)\\$\\{word\\}`").FindSubmatch(src)
	if m == nil {
		t.Fatal("helpers.ts has no agentControlQuestion template")
	}
	word := "mcpcq7kz2mk"
	reply, launch, err := (&Agent{}).Reply(context.Background(), string(m[1])+word)
	if err != nil || launch != nil {
		t.Fatalf("Reply = %q, %v, %v", reply, launch, err)
	}
	if !strings.Contains(reply, "km2zk7qcpcm") || strings.Contains(reply, word) {
		t.Errorf("reply %q: want the word reversed (km2zk7qcpcm), not the word itself", reply)
	}
	// Any other message is not mistaken for the control question.
	if reply, _, _ := (&Agent{}).Reply(context.Background(), "hello "+word); strings.Contains(reply, "km2zk7qcpcm") {
		t.Errorf("a plain message got the control answer: %q", reply)
	}
}

// TestAgentRepeatsModelContextReversed: asked for its model context
// reversed (model-context/* checks), the scripted model answers with the
// last context reversed, so the answer is the model's, not the displayed
// update's.
func TestAgentRepeatsModelContextReversed(t *testing.T) {
	a := &Agent{defects: DefectSet{}}
	a.SetModelContext([]byte(`{"content":[{"type":"text","text":"model context marker ctx-abc-1"}]}`))
	reply, _, err := a.Reply(context.Background(), "What model context do you have from the app? Reply with it reversed, letter by letter.")
	if err != nil || !strings.Contains(reply, "1-cba-xtc") || strings.Contains(reply, "ctx-abc-1") {
		t.Errorf("reply %q, %v: want the context reversed", reply, err)
	}
	plain, _, _ := a.Reply(context.Background(), "What model context do you have from the app?")
	if !strings.Contains(plain, "ctx-abc-1") {
		t.Errorf("plain reply %q: want the context as is", plain)
	}
}
