package operator

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/testkit/ptytest"
	"github.com/mcpconform/mcpconform/internal/testkit/testwait"
	"github.com/mcpconform/mcpconform/protocol"
)

type outcome struct {
	r   protocol.Result
	err error
}

func perform(ctx context.Context, o *Operator, req protocol.Request) chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		r, err := o.Perform(ctx, req)
		ch <- outcome{r, err}
	}()
	return ch
}

func get(t *testing.T, ch chan outcome) outcome {
	t.Helper()
	return testwait.Recv(t, ch, 10*time.Second, "Perform never returned")
}

func TestTheTTYIsATerminalAndAPipeIsNot(t *testing.T) {
	tm := ptytest.Open(t)
	if !IsTerminal(tm.TTY) {
		t.Error("IsTerminal(pty) = false")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(r) {
		t.Error("IsTerminal(pipe) = true")
	}
}

// Prompts appear on the terminal and the person's answers resolve the
// capability.
func TestPromptsAppearAndAnswersResolve(t *testing.T) {
	tm := ptytest.Open(t)
	o := New(tm.TTY, tm.TTY, 10*time.Second)
	ctx := context.Background()

	ch := perform(ctx, o, protocol.Request{Seq: 1, Kind: protocol.KindClickTrigger})
	at := tm.WaitFor(`click the button labelled "Conformance trigger"`, 0)
	at = tm.WaitFor("press Enter when done", at)
	tm.Type("\r")
	if got := get(t, ch); got.err != nil || !got.r.OK {
		t.Fatalf("Enter after clickTrigger: %+v", got)
	}

	ch = perform(ctx, o, protocol.Request{Seq: 2, Kind: protocol.KindConversationContains, Marker: "MARK-123"})
	at = tm.WaitFor(`Does the conversation show "MARK-123"?`, at)
	at = tm.WaitFor("type y or n", at)
	tm.Type("maybe\r") // not an answer: asked again
	at = tm.WaitFor("please answer y or n", at)
	tm.Type("n\r")
	got := get(t, ch)
	if got.err != nil || got.r.OK || string(got.r.Value) != "false" || !strings.Contains(got.r.Error, `the conversation does not show "MARK-123"`) {
		t.Fatalf("n to conversationContains: %+v", got)
	}

	ch = perform(ctx, o, protocol.Request{Seq: 3, Kind: protocol.KindConversationContains, Marker: "MARK-456"})
	at = tm.WaitFor(`"MARK-456"`, at)
	tm.Type("Y\r")
	if got := get(t, ch); got.err != nil || !got.r.OK || string(got.r.Value) != "true" {
		t.Fatalf("Y to conversationContains: %+v", got)
	}

	ch = perform(ctx, o, protocol.Request{Seq: 4, Kind: protocol.KindCheckLinkOpen, URL: "https://example.com/x"})
	at = tm.WaitFor("Did the host open https://example.com/x", at)
	tm.Type("yes\r")
	if got := get(t, ch); got.err != nil || !got.r.OK || string(got.r.Value) != `"https://example.com/x"` {
		t.Fatalf("yes to checkLinkOpen: %+v", got)
	}

	ch = perform(ctx, o, protocol.Request{Seq: 5, Kind: protocol.KindConfirmDialog, Dialog: protocol.DialogDownload})
	at = tm.WaitFor("a file to be downloaded", at)
	tm.Type("n\r")
	if got := get(t, ch); got.err != nil || got.r.OK || !strings.Contains(got.r.Error, "no download confirmation appeared") {
		t.Fatalf("n to confirmDialog: %+v", got)
	}

	for _, c := range []struct {
		req  protocol.Request
		text string
	}{
		{protocol.Request{Seq: 6, Kind: protocol.KindToggleTheme, To: "dark"}, "Switch the host to its dark theme"},
		{protocol.Request{Seq: 7, Kind: protocol.KindCloseView, Marker: "V-1"}, `Close the View that shows "V-1"`},
		{protocol.Request{Seq: 8, Kind: protocol.KindCancelTool, Marker: "V-2"}, `Stop the running tool call whose View shows "V-2"`},
	} {
		ch = perform(ctx, o, c.req)
		at = tm.WaitFor(c.text, at)
		tm.Type("y\r")
		if got := get(t, ch); got.err != nil || !got.r.OK {
			t.Fatalf("y to %s: %+v", c.req.Kind, got)
		}
	}
	if n := strings.Count(tm.Screen(), "[operator "); n != 8 {
		t.Errorf("%d prompts shown, want 8", n)
	}
}

// No answer within the prompt's limit resolves the capability as failed,
// with the reason.
func TestATimeoutResolvesAsFailed(t *testing.T) {
	tm := ptytest.Open(t)
	o := New(tm.TTY, tm.TTY, 300*time.Millisecond)
	start := time.Now()
	got := get(t, perform(context.Background(), o, protocol.Request{Seq: 1, Kind: protocol.KindToggleTheme, To: "light"}))
	if got.err != nil || got.r.OK || got.r.Unsupported || got.r.Error != "the operator did not answer within 300ms" {
		t.Fatalf("unanswered prompt: %+v", got)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("the prompt gave up after %s, want 300ms", d)
	}
	tm.WaitFor("no answer within 300ms: recorded as failed", 0)

	// A conversation question unanswered reads as "not seen".
	got = get(t, perform(context.Background(), o, protocol.Request{Seq: 2, Kind: protocol.KindConversationContains, Marker: "M"}))
	if got.err != nil || got.r.OK || string(got.r.Value) != "false" {
		t.Fatalf("unanswered conversation question: %+v", got)
	}
}

// A line typed before the prompt appeared is not its answer.
func TestEarlierLinesDoNotAnswer(t *testing.T) {
	tm := ptytest.Open(t)
	o := New(tm.TTY, tm.TTY, 400*time.Millisecond)
	tm.Type("y\r")
	deadline := time.Now().Add(5 * time.Second)
	for len(o.lines) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the typed line never reached the operator's reader")
		}
		time.Sleep(5 * time.Millisecond)
	}
	got := get(t, perform(context.Background(), o, protocol.Request{Seq: 1, Kind: protocol.KindClickTrigger}))
	if got.r.OK || !strings.Contains(got.r.Error, "did not answer") {
		t.Fatalf("a stale line answered the prompt: %+v", got)
	}
}

// The context ending during a prompt (Ctrl-C) abandons it with the
// context's error.
func TestCancelDuringAPromptStopsIt(t *testing.T) {
	tm := ptytest.Open(t)
	o := New(tm.TTY, tm.TTY, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	ch := perform(ctx, o, protocol.Request{Seq: 1, Kind: protocol.KindCloseView, Marker: "X"})
	tm.WaitFor(`Close the View that shows "X"`, 0)
	cancel()
	if got := get(t, ch); !errors.Is(got.err, context.Canceled) {
		t.Fatalf("cancelled prompt: %+v", got)
	}
	tm.WaitFor("stopped:", 0)
}

func TestKindsAPersonCannotPerformAreUnsupported(t *testing.T) {
	o := New(strings.NewReader(""), &strings.Builder{}, time.Second)
	for _, k := range protocol.Kinds {
		if Supports(k) {
			continue
		}
		r, err := o.Perform(context.Background(), protocol.Request{Seq: 1, Kind: k})
		if err != nil || !r.Unsupported {
			t.Errorf("%s: %+v, %v; want unsupported", k, r, err)
		}
	}
	for _, k := range Kinds {
		if _, ok := question(protocol.Request{Kind: k}); !ok {
			t.Errorf("%s is in Kinds but has no question", k)
		}
	}
}

// Standard input at its end (the terminal closed) fails the prompt at
// once instead of waiting out its limit.
func TestAClosedInputFailsThePrompt(t *testing.T) {
	var out strings.Builder
	o := New(strings.NewReader(""), &out, time.Minute)
	start := time.Now()
	r, err := o.Perform(context.Background(), protocol.Request{Seq: 1, Kind: protocol.KindClickTrigger})
	if err != nil || r.OK || r.Error != "the operator's terminal closed before an answer" || time.Since(start) > 5*time.Second {
		t.Fatalf("closed input: %+v, %v after %s", r, err, time.Since(start))
	}
}

// A host built twice (checked, then run) makes two Operators on one
// terminal: the answer must reach the one that asks, not a reader of the
// other. Before the shared reader, each Operator read the terminal and
// `run --host connect --operator` lost answers to the checked copy.
func TestOperatorsOnOneTerminalShareItsLines(t *testing.T) {
	tm := ptytest.Open(t)
	idle := New(tm.TTY, tm.TTY, time.Minute)
	asking := New(tm.TTY, tm.TTY, time.Minute)
	if idle.lines != asking.lines {
		t.Fatal("two Operators on one terminal read it with a goroutine each: a line goes to whichever reads first")
	}
	ch := perform(context.Background(), asking, protocol.Request{Seq: 1, Kind: protocol.KindClickTrigger})
	tm.WaitFor("to answer)", 0)
	tm.Type("\r")
	if got := get(t, ch); got.err != nil || !got.r.OK {
		t.Fatalf("the asking Operator did not get the answer: %+v", got)
	}
}
