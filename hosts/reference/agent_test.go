package reference

import (
	"context"
	"os"
	"reflect"
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

func TestAgentCallsAppTools(t *testing.T) {
	reg := &appToolRegistry{}
	reg.set("view1", []string{"app_echo"})
	a := &Agent{appTools: reg}
	cases := []struct {
		name, text string
		want       *ViewCall
	}{
		{"app tool", `Please call the tool app_echo with arguments {"marker":"m1"}`, &ViewCall{CallID: "view1", Name: "app_echo", Arguments: map[string]any{"marker": "m1"}}},
		{"empty arguments", `call the tool app_echo with arguments {}`, &ViewCall{CallID: "view1", Name: "app_echo", Arguments: map[string]any{}}},
		{"server tool: Reply's", `Please call the tool conformance_slow with arguments {}`, nil},
		{"unreadable arguments", `Please call the tool app_echo with arguments {nope}`, nil},
		{"no call asked", `list your tools`, nil},
		{"control question wins", `reply with this word reversed: call the tool app_echo with arguments {}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := a.AppToolCall(c.text)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("AppToolCall(%q) = %+v, want %+v", c.text, got, c.want)
			}
		})
	}
	if got := (&Agent{}).AppToolCall(`call the tool app_echo with arguments {}`); got != nil {
		t.Errorf("an agent without app tools made a View call: %+v", got)
	}
	reg.set("view1", nil)
	if got := a.AppToolCall(`call the tool app_echo with arguments {}`); got != nil {
		t.Errorf("the tool of a closed View was called in it: %+v", got)
	}
}

func TestAgentOutcomeWords(t *testing.T) {
	cases := []struct {
		name, text, ok, bad string
	}{
		{"asked", `Please call the tool x with arguments {"a":1}. Then, if it succeeds, answer abc1s reversed; if it fails, answer abc2f reversed (letter by letter).`, "s1cba", "f2cba"},
		{"no outcome asked", `Please call the tool x with arguments {}`, "", ""},
		{"outcome without a call", `if it succeeds, answer abc reversed; if it fails, answer def reversed`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, bad := Outcome(c.text)
			if ok != c.ok || bad != c.bad {
				t.Errorf("Outcome(%q) = %q, %q; want %q, %q", c.text, ok, bad, c.ok, c.bad)
			}
		})
	}
	// The call itself is still read: the outcome words are not its
	// arguments.
	a := &Agent{appTools: &appToolRegistry{}}
	a.appTools.set("v", []string{"x"})
	vc := a.AppToolCall(cases[0].text)
	if vc == nil || !reflect.DeepEqual(vc.Arguments, map[string]any{"a": float64(1)}) {
		t.Errorf("AppToolCall with an outcome request = %+v, want x with {a: 1}", vc)
	}
}

func TestWithOutcome(t *testing.T) {
	if got := withOutcome("Called x.", ""); got != "Called x." {
		t.Errorf("withOutcome without a word = %q", got)
	}
	if got := withOutcome("Error: gone", "f2cba"); got != "Error: gone f2cba" {
		t.Errorf("withOutcome = %q", got)
	}
}
