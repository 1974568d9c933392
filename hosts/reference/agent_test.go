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
