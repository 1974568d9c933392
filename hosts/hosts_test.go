package hosts

import (
	"errors"
	"strings"
	"time"

	"context"
	"fmt"
	"github.com/mcpconform/mcpconform/report"
	"reflect"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// fake has the methods of two capabilities; live says which count.
type fake struct {
	live   map[protocol.Kind]bool
	called []protocol.Kind
}

func (*fake) Name() string                     { return "fake" }
func (*fake) Setup(context.Context, Env) error { return nil }
func (*fake) Teardown(context.Context) error   { return nil }
func (f *fake) Supports(k protocol.Kind) bool  { return f.live[k] }
func (f *fake) ClickTrigger(context.Context, protocol.Request) (protocol.Result, error) {
	f.called = append(f.called, protocol.KindClickTrigger)
	return protocol.Result{OK: true}, nil
}
func (f *fake) ReadConsole(context.Context, protocol.Request) (protocol.Result, error) {
	f.called = append(f.called, protocol.KindReadConsole)
	return protocol.Result{OK: true}, nil
}

// plain has one capability method and no CapabilitySet.
type plain struct{ fake }

func (plain) Supports() {} // not a CapabilitySet: a different signature

// A CapabilitySet decides: a method it does not declare live is absent for
// Supports and Capabilities, and Dispatch answers unsupported without
// calling it; a kind it declares but has no method for is still absent.
func TestCapabilitySetIsConsultedFirst(t *testing.T) {
	f := &fake{live: map[protocol.Kind]bool{protocol.KindClickTrigger: true, protocol.KindCloseView: true}}
	if !Supports(f, protocol.KindClickTrigger) {
		t.Error("clickTrigger is live and has its method, but unsupported")
	}
	if Supports(f, protocol.KindReadConsole) {
		t.Error("readConsole has its method but is not live, yet supported")
	}
	if Supports(f, protocol.KindCloseView) {
		t.Error("closeView is live but has no method, yet supported")
	}
	if got := Capabilities(f); !reflect.DeepEqual(got, []protocol.Kind{protocol.KindClickTrigger}) {
		t.Errorf("Capabilities %v", got)
	}
	r := Dispatch(context.Background(), f, protocol.Request{Kind: protocol.KindReadConsole, Pattern: "x"})
	if r.OK || !r.Unsupported || r.Error != UnsupportedReason(protocol.KindReadConsole, "", "") {
		t.Errorf("dispatching a dead capability: %+v", r)
	}
	if r := Dispatch(context.Background(), f, protocol.Request{Kind: protocol.KindClickTrigger}); !r.OK {
		t.Errorf("dispatching a live capability: %+v", r)
	}
	if !reflect.DeepEqual(f.called, []protocol.Kind{protocol.KindClickTrigger}) {
		t.Errorf("methods called: %v (the dead one must not be)", f.called)
	}

	// Without a CapabilitySet, the methods decide.
	p := &plain{}
	if !Supports(p, protocol.KindClickTrigger) || !Supports(p, protocol.KindReadConsole) || Supports(p, protocol.KindCloseView) {
		t.Errorf("without a CapabilitySet: %v", Capabilities(p))
	}
}

// performer takes every kind live says through Perform.
type performer struct{ fake }

func (p *performer) Perform(_ context.Context, req protocol.Request) (protocol.Result, error) {
	p.called = append(p.called, req.Kind)
	return protocol.Result{OK: true}, nil
}

// A Performer has exactly the kinds its CapabilitySet allows, each served
// by Perform, even where it has no per-kind method.
func TestAPerformerServesWhatItSupports(t *testing.T) {
	p := &performer{fake{live: map[protocol.Kind]bool{protocol.KindCloseView: true, protocol.KindClickTrigger: true}}}
	if got := Capabilities(p); !reflect.DeepEqual(got, []protocol.Kind{protocol.KindClickTrigger, protocol.KindCloseView}) {
		t.Errorf("Capabilities %v", got)
	}
	if r := Dispatch(context.Background(), p, protocol.Request{Kind: protocol.KindCloseView, Marker: "M"}); !r.OK {
		t.Errorf("dispatching a supported kind: %+v", r)
	}
	if r := Dispatch(context.Background(), p, protocol.Request{Kind: protocol.KindReadConsole, Pattern: "x"}); !r.Unsupported {
		t.Errorf("dispatching a kind it does not support: %+v", r)
	}
	if !reflect.DeepEqual(p.called, []protocol.Kind{protocol.KindCloseView}) {
		t.Errorf("Perform called for %v", p.called)
	}
}

type loginFake struct{ fake }

func (loginFake) LoginProfile(func(string) string) (Login, error) { return Login{}, nil }

// runs makes the names unique per run (-count=N registers again).
var runs int

func TestRegistry(t *testing.T) {
	runs++
	plainName, loginName := fmt.Sprintf("zz-test-plain-%d", runs), fmt.Sprintf("zz-test-login-%d", runs)
	Register(plainName, Plain(func() *fake { return &fake{} }))
	Register(loginName, Plain(func() *loginFake { return &loginFake{} }))
	names := Names()
	if !slices.IsSorted(names) || !slices.Contains(names, plainName) || !slices.Contains(names, loginName) {
		t.Errorf("Names %v", names)
	}
	if h, err := New(Params{Name: plainName}); err != nil || h.Name() != "fake" {
		t.Errorf("New: %v %v", h, err)
	}
	if _, err := New(Params{Name: "zz-test-none"}); !errors.Is(err, ErrUnknown) || !errors.Is(err, ErrUsage) || Registered("zz-test-none") || !Registered(loginName) {
		t.Errorf("an unregistered name: %v", err)
	} else if !strings.HasPrefix(err.Error(), `unknown host "zz-test-none": choose one of `) || !strings.Contains(err.Error(), plainName) {
		t.Errorf("the unknown host's message lists no choice: %q", err)
	}
	if l := Logins(); !slices.Contains(l, loginName) || slices.Contains(l, plainName) {
		t.Errorf("Logins %v", l)
	}
	for _, bad := range []func(){
		func() { Register(plainName, Plain(func() *fake { return &fake{} })) },
		func() { Register("", Plain(func() *fake { return &fake{} })) },
		func() { Register("zz-test-nil", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			bad()
		}()
	}
}

// A host that takes no parameters refuses defects and variations with a
// usage error that names it; the parameters reach a host that takes them.
func TestParamsReachTheConstructor(t *testing.T) {
	runs++
	name, altered := fmt.Sprintf("zz-test-params-%d", runs), fmt.Sprintf("zz-test-altered-%d", runs)
	Register(name, Plain(func() *fake { return &fake{} }))
	var got Params
	Register(altered, func(p Params) (Host, error) { got = p; return &fake{}, nil })
	for _, p := range []Params{{Name: name, Defects: []string{"d"}}, {Name: name, Variations: []string{"v"}}} {
		_, err := New(p)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "applies to the reference host only, not "+fmt.Sprintf("%q", name)) {
			t.Errorf("New(%+v) = %v, want a usage error naming the host", p, err)
		}
	}
	env := mapEnviron{"MCPCONFORM_X": "1"}
	if _, err := New(Params{Name: altered, Defects: []string{"d"}, Environ: env}); err != nil {
		t.Fatal(err)
	}
	if got.Name != altered || !slices.Equal(got.Defects, []string{"d"}) || got.Getenv("MCPCONFORM_X") != "1" || got.Getenv("MCPCONFORM_Y") != "" {
		t.Errorf("the constructor got %+v", got)
	}
	if (Params{}).Getenv("MCPCONFORM_X") != "" {
		t.Error("a nil Environ read something")
	}
}

type mapEnviron map[string]string

func (m mapEnviron) Lookup(k string) (string, bool) { v, ok := m[k]; return v, ok }

// profiles is a fallback that knows the names its environ lists.
type profiles struct{}

func (profiles) Names(e Environ) []string {
	if v, _ := e.Lookup("PROFILE"); v != "" {
		return []string{v}
	}
	return nil
}
func (profiles) New(p Params) (Host, error) {
	if v, _ := p.Environ.Lookup("PROFILE"); v == p.Name {
		return &fake{}, nil
	}
	return nil, fmt.Errorf("%w: no profile %q", ErrUnknown, p.Name)
}

// The fallback builds what the registry does not name; an unknown name
// then lists the fallback's names among the choices.
func TestFallbackBuildsTheRest(t *testing.T) {
	registry.Lock()
	saved := registry.fallback
	registry.Unlock()
	t.Cleanup(func() { SetFallback(saved) })
	SetFallback(profiles{})
	env := mapEnviron{"PROFILE": "zz-my-host"}
	if h, err := New(Params{Name: "zz-my-host", Environ: env}); err != nil || h == nil {
		t.Errorf("New(profile) = %v, %v", h, err)
	}
	_, err := New(Params{Name: "zz-nope", Environ: env})
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "zz-my-host") {
		t.Errorf("New(unknown) = %v, want the profile among the choices", err)
	}
	if got := FallbackNames(env); !slices.Equal(got, []string{"zz-my-host"}) {
		t.Errorf("FallbackNames = %v", got)
	}
}

// The capability table has one row per kind of the contract, in its
// order, each row's interface named for messages.
func TestCapabilityTableCoversTheContract(t *testing.T) {
	var kinds []protocol.Kind
	for _, c := range capabilities {
		kinds = append(kinds, c.kind)
		if !strings.HasPrefix(c.iface, "hosts.") || c.method == nil {
			t.Errorf("%s: row %+v", c.kind, c)
		}
	}
	if !slices.Equal(kinds, protocol.Kinds) {
		t.Errorf("the table's kinds %v, the contract's %v", kinds, protocol.Kinds)
	}
}

// Every capability kind says how to provide it, and its SKIP reason names
// the kind so that the reports' reason code is unsupported:<kind>.
func TestUnsupportedReasonForEveryKind(t *testing.T) {
	for _, k := range protocol.Kinds {
		c, _ := lookup(k)
		how := HowToProvide(k)
		if !strings.Contains(how, c.iface) {
			t.Errorf("%s: HowToProvide %q names no Go interface", k, how)
		}
		for _, said := range []string{"", protocol.Unsupported(k).Error, protocol.Unsupported(k).Error + " (the product has none)"} {
			msg := UnsupportedReason(k, said, "")
			c := report.Case{Status: protocol.StatusSkip, Message: msg}
			if code := c.ReasonCode(); code != "unsupported:"+string(k) {
				t.Errorf("%s: reason %q has code %q", k, msg, code)
			}
			if !strings.HasSuffix(msg, "; to make it judgeable: "+how+")") {
				t.Errorf("%s: reason %q does not end with how to provide it", k, msg)
			}
			if UnsupportedReason(k, msg, "") != msg {
				t.Errorf("%s: rewording %q changed it to %q", k, msg, UnsupportedReason(k, msg, ""))
			}
		}
	}
	if got, want := UnsupportedReason(protocol.KindOpenTool, protocol.Unsupported(protocol.KindOpenTool).Error, ""),
		"unsupported: openTool (the host driver does not offer it; to make it judgeable: implement hosts.ToolOpener in the host's Go driver, or describe the host with an env profile that offers it (docs/profiles.md))"; got != want {
		t.Errorf("openTool:\n got %q\nwant %q", got, want)
	}
	// A driver's own reason is kept, as the why.
	if got, want := UnsupportedReason(protocol.KindConfirmDialog, "unsupported: confirmDialog (MCP Inspector 2.12.0 opens links without a confirmation dialog)", ""),
		"unsupported: confirmDialog (MCP Inspector 2.12.0 opens links without a confirmation dialog; to make it judgeable: "+HowToProvide(protocol.KindConfirmDialog)+")"; got != want {
		t.Errorf("driver detail:\n got %q\nwant %q", got, want)
	}
}

// hinting words its own way to provide a capability, for one kind, and
// fails the other it has.
type hinting struct{ plain }

func (hinting) HowToProvide(k protocol.Kind) string {
	if k == protocol.KindToggleTheme {
		return "run with --operator"
	}
	return ""
}
func (hinting) OpenTool(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{OK: false, Error: "no View appeared"}, nil
}

// Dispatch words an unsupported answer with the host's own hint, or the
// table's when it gives none; other answers pass through.
func TestDispatchWordsUnsupportedAnswers(t *testing.T) {
	h := &hinting{}
	r := Dispatch(context.Background(), h, protocol.Request{Kind: protocol.KindToggleTheme, To: "dark"})
	if want := "unsupported: toggleTheme (the host driver does not offer it; to make it judgeable: run with --operator)"; !r.Unsupported || r.Error != want {
		t.Errorf("with the host's hint:\n got %+v\nwant %q", r, want)
	}
	r = Dispatch(context.Background(), h, protocol.Request{Kind: protocol.KindCloseView, Marker: "m"})
	if want := UnsupportedReason(protocol.KindCloseView, "", ""); r.Error != want {
		t.Errorf("without one:\n got %q\nwant %q", r.Error, want)
	}
	if r := Dispatch(context.Background(), h, protocol.Request{Kind: protocol.KindOpenTool, Tool: "t"}); r.Unsupported || r.Error != "no View appeared" {
		t.Errorf("a plain failure was reworded: %+v", r)
	}
}

// waiter takes longer to show its app than the default.
type waiter struct{ fake }

func (waiter) AppTimeout() time.Duration { return 10 * time.Minute }

// The app timeout is the run's when it names one, else the host's own,
// else the default.
func TestAppTimeout(t *testing.T) {
	for _, c := range []struct {
		h     Host
		asked time.Duration
		want  time.Duration
	}{
		{&fake{}, 0, DefaultAppTimeout},
		{&fake{}, time.Second, time.Second},
		{&waiter{}, 0, 10 * time.Minute},
		{&waiter{}, time.Second, time.Second},
	} {
		if got := AppTimeout(c.h, c.asked); got != c.want {
			t.Errorf("AppTimeout(%T, %s) = %s, want %s", c.h, c.asked, got, c.want)
		}
	}
}
