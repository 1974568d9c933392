package hosts

import (
	"context"
	"fmt"
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

func (*fake) Name() string                                    { return "fake" }
func (*fake) Setup(context.Context, Env) (SuiteBridge, error) { return nil, nil }
func (*fake) Teardown(context.Context) error                  { return nil }
func (f *fake) Supports(k protocol.Kind) bool                 { return f.live[k] }
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
	if r.OK || r.Error != protocol.Unsupported(protocol.KindReadConsole).Error {
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
	Register(plainName, func() Host { return &fake{} })
	Register(loginName, func() Host { return &loginFake{} })
	names := Names()
	if !slices.IsSorted(names) || !slices.Contains(names, plainName) || !slices.Contains(names, loginName) {
		t.Errorf("Names %v", names)
	}
	if h, ok := New(plainName); !ok || h.Name() != "fake" {
		t.Errorf("New: %v %v", h, ok)
	}
	if _, ok := New("zz-test-none"); ok || IsBuiltin("zz-test-none") || !IsBuiltin(loginName) {
		t.Error("an unregistered name is known")
	}
	if l := Logins(); !slices.Contains(l, loginName) || slices.Contains(l, plainName) {
		t.Errorf("Logins %v", l)
	}
	for _, bad := range []func(){
		func() { Register(plainName, func() Host { return &fake{} }) },
		func() { Register("", func() Host { return &fake{} }) },
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
