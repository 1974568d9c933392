// Package operator asks a person at a terminal to do, in a host that
// mcpconform cannot drive, what a check needs done: click the View's
// trigger button, confirm a dialog, look at the conversation, switch the
// theme, close the View, stop a tool call, say whether a link opened.
//
// Each capability request becomes one prompt with a time limit. An answer
// resolves the request (done or yes: OK; n: failed, with the person's
// "no" as the reason); no answer within the limit resolves it as failed
// with that reason. The context ending (Ctrl-C: the terminal sends SIGINT
// and the command's context ends) abandons the prompt with the context's
// error, which stops the run; the command still writes its reports.
//
// The time a prompt waits is not counted against the check's own limit in
// the suite, up to a minute a request (the suite's DRIVER_GRACE_MS): a
// person slower than that gets TIMEOUT for the check even when the
// prompt's limit is longer (hosts/connect then withdraws the prompt by
// cancelling its context).
package operator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/mcpconform/mcpconform/protocol"
)

// DefaultTimeout is how long a prompt waits for its answer unless told
// otherwise (--operator-timeout).
const DefaultTimeout = 30 * time.Second

// TriggerLabel is the text of the suite's trigger button (fixtures/suite
// engine.ts), which clickTrigger asks the person to click.
const TriggerLabel = "Conformance trigger"

// Kinds are the capabilities a person can perform, in protocol.Kinds
// order. The rest need a driver (reading the model's tool list, the
// iframe's attributes, the console, downloads) or make no sense by hand.
var Kinds = []protocol.Kind{
	protocol.KindClickTrigger, protocol.KindConfirmDialog, protocol.KindCheckLinkOpen,
	protocol.KindConversationContains, protocol.KindToggleTheme,
	protocol.KindCancelTool, protocol.KindCloseView,
}

// ErrNoTerminal is why an operator cannot be had: standard input is not
// a terminal (a CI job, a pipe), so no person can answer.
var ErrNoTerminal = errors.New("--operator needs a person at a terminal, and standard input is not one (a CI job, a pipe or a redirect); run without --operator, and the checks that need a person skip by name")

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return f != nil && term.IsTerminal(int(f.Fd())) }

// Operator is a person at a terminal, asked one prompt at a time.
type Operator struct {
	out     io.Writer
	timeout time.Duration
	lines   chan string
	mu      sync.Mutex // one prompt at a time
	asked   int
}

// New is an operator who reads answers from in, one line each, and sees
// prompts on out; each prompt waits up to timeout (≤ 0: DefaultTimeout).
// One goroutine reads in for the life of the process (or until in ends),
// the same for every Operator on one terminal.
func New(in io.Reader, out io.Writer, timeout time.Duration) *Operator {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Operator{out: out, timeout: timeout, lines: linesOf(in)}
}

// terminals are the lines of each terminal (an *os.File) read so far. A
// command builds its hosts more than once (checked, then once per pass),
// and each connect host makes an Operator: with a reader each, two
// goroutines would read one terminal and the person's answer would go to
// whichever read first, often an Operator nobody asks (the answers were
// lost that way). One reader per terminal, shared by every Operator on it.
var (
	terminalsMu sync.Mutex
	terminals   = map[*os.File]chan string{}
)

// linesOf is the channel of in's lines, read by one goroutine until in
// ends (then closed); shared when in is a file already read.
func linesOf(in io.Reader) chan string {
	f, isFile := in.(*os.File)
	if isFile {
		terminalsMu.Lock()
		defer terminalsMu.Unlock()
		if ch, ok := terminals[f]; ok {
			return ch
		}
	}
	ch := make(chan string, 16)
	if isFile {
		terminals[f] = ch
	}
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			ch <- sc.Text()
		}
		close(ch)
	}()
	return ch
}

// Timeout is how long each prompt waits.
func (o *Operator) Timeout() time.Duration { return o.timeout }

// Answer is what the person said to a prompt.
type Answer int

const (
	// Yes: the person did it (Enter or y), or says yes to a question.
	Yes Answer = iota
	// No: the person could not do it, or says no (n).
	No
	// NoAnswer: the prompt's time ran out.
	NoAnswer
	// Closed: the terminal closed (standard input ended).
	Closed
)

// Question is one prompt.
type Question struct {
	// Kind names the capability, shown first.
	Kind protocol.Kind
	// Text says exactly what to do or what to look at.
	Text string
	// YesNo asks for y or n; otherwise Enter (or y) means done and n
	// means could not.
	YesNo bool
}

// Ask shows q and waits for an answer, up to the operator's timeout.
// Lines typed before the prompt appeared do not count. The error is
// ctx's when it ended first.
func (o *Operator) Ask(ctx context.Context, q Question) (Answer, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for drained := false; !drained; {
		select {
		case _, ok := <-o.lines:
			drained = !ok
		default:
			drained = true
		}
	}
	o.asked++
	how := "press Enter when done, or type n and Enter if you cannot"
	if q.YesNo {
		how = "type y or n, then Enter"
	}
	fmt.Fprintf(o.out, "\n[operator %d · %s] %s\n  (%s; %s to answer)\n> ", o.asked, q.Kind, q.Text, how, o.timeout)
	timer := time.NewTimer(o.timeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintf(o.out, "\n  stopped: %v\n", context.Cause(ctx))
			return NoAnswer, ctx.Err()
		case <-timer.C:
			fmt.Fprintf(o.out, "\n  no answer within %s: recorded as failed\n", o.timeout)
			return NoAnswer, nil
		case line, ok := <-o.lines:
			if !ok {
				fmt.Fprintf(o.out, "\n  the terminal closed: recorded as failed\n")
				return Closed, nil
			}
			switch a := strings.ToLower(strings.TrimSpace(line)); {
			case a == "y" || a == "yes" || (a == "" && !q.YesNo):
				fmt.Fprintf(o.out, "  recorded: yes\n")
				return Yes, nil
			case a == "n" || a == "no":
				fmt.Fprintf(o.out, "  recorded: no\n")
				return No, nil
			default:
				fmt.Fprintf(o.out, "  please answer y or n\n> ")
			}
		}
	}
}

// Supports reports whether a person can perform kind k (Kinds).
func Supports(k protocol.Kind) bool {
	for _, s := range Kinds {
		if s == k {
			return true
		}
	}
	return false
}

// Perform asks the person to do req and turns the answer into the
// capability's result: yes is OK, no and no answer are OK:false with the
// reason. A kind a person cannot perform is unsupported. The error is
// ctx's when it ended during the prompt.
func (o *Operator) Perform(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	q, ok := question(req)
	if !ok {
		return protocol.Unsupported(req.Kind), nil
	}
	a, err := o.Ask(ctx, q)
	if err != nil {
		return protocol.Result{}, err
	}
	switch a {
	case Yes:
		r := protocol.Result{OK: true}
		switch req.Kind {
		case protocol.KindConversationContains:
			r.Value = []byte("true")
		case protocol.KindCheckLinkOpen:
			r.Value, _ = json.Marshal(req.URL)
		}
		return r, nil
	case No:
		r := protocol.Result{OK: false, Error: "the operator answered no: " + refusal(req)}
		if req.Kind == protocol.KindConversationContains {
			r.Value = []byte("false")
		}
		return r, nil
	}
	r := protocol.Result{OK: false, Error: fmt.Sprintf("the operator did not answer within %s", o.timeout)}
	if a == Closed {
		r.Error = "the operator's terminal closed before an answer"
	}
	if req.Kind == protocol.KindConversationContains {
		r.Value = []byte("false")
	}
	return r, nil
}

// question is the prompt for req, false when a person cannot do it.
func question(req protocol.Request) (Question, bool) {
	q := Question{Kind: req.Kind}
	switch req.Kind {
	case protocol.KindClickTrigger:
		q.Text = fmt.Sprintf("In the View, click the button labelled %q.", TriggerLabel)
		if req.CommitDraftedMessage {
			q.Text += " If the host then puts a drafted message into its composer instead of sending it, send that message."
		}
	case protocol.KindConfirmDialog:
		q.Text = fmt.Sprintf("The View asked for %s. If the host shows a confirmation for it, confirm it (allow, open, download).", dialogWhat(req.Dialog))
	case protocol.KindCheckLinkOpen:
		q.Text = fmt.Sprintf("Did the host open %s (a new tab, a browser window or the system browser)?", req.URL)
		q.YesNo = true
	case protocol.KindConversationContains:
		q.Text = fmt.Sprintf("Does the conversation show %q? (Look in the chat's messages, not in the View; it may take a few seconds to appear.)", req.Marker)
		q.YesNo = true
	case protocol.KindToggleTheme:
		q.Text = fmt.Sprintf("Switch the host to its %s theme (its own setting, or the system's appearance if it follows that).", req.To)
	case protocol.KindCancelTool:
		q.Text = fmt.Sprintf("Stop the running tool call whose View shows %q (the host's Stop or Cancel control).", req.Marker)
	case protocol.KindCloseView:
		q.Text = fmt.Sprintf("Close the View that shows %q the way a user would (its close button).", req.Marker)
	default:
		return q, false
	}
	return q, true
}

func dialogWhat(d protocol.Dialog) string {
	switch d {
	case protocol.DialogOpenLink:
		return "a link to be opened"
	case protocol.DialogDownload:
		return "a file to be downloaded"
	case protocol.DialogSampling:
		return "a model completion (sampling)"
	}
	return string(d)
}

func refusal(req protocol.Request) string {
	switch req.Kind {
	case protocol.KindClickTrigger:
		return "could not click the trigger button"
	case protocol.KindConfirmDialog:
		return fmt.Sprintf("no %s confirmation appeared", req.Dialog)
	case protocol.KindCheckLinkOpen:
		return "the host did not open " + req.URL
	case protocol.KindConversationContains:
		return fmt.Sprintf("the conversation does not show %q", req.Marker)
	case protocol.KindToggleTheme:
		return "could not switch the host to the " + req.To + " theme"
	case protocol.KindCancelTool:
		return "could not stop the tool call"
	case protocol.KindCloseView:
		return "could not close the View"
	}
	return "could not do " + string(req.Kind)
}
