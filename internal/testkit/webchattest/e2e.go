package webchattest

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/webchat"
	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// Imitation returns Imitate of product with o, for a product package's
// tests to call once per test.
func Imitation(product string, o Options) func(*testing.T) (*Product, map[string]string) {
	return func(t *testing.T) (*Product, map[string]string) {
		t.Helper()
		return Imitate(t, product, o)
	}
}

// Imitate starts the imitation of product described by o, its MCP
// servers the test binary's fixture servers (e2etest: without Chromium
// the test skips), and a storage state logged in to it. It returns the
// product and the variables that point the product's driver at it
// (MCPCONFORM_<PRODUCT>_URL and _STORAGE_STATE); every selector stays the
// built-in one. The page is the product package's testdata/page.html and
// the connector is called mcpconform unless o says otherwise.
func Imitate(t *testing.T, product string, o Options) (*Product, map[string]string) {
	t.Helper()
	if o.PageFile == "" {
		o.PageFile = "testdata/page.html"
	}
	if o.AppName == "" {
		o.AppName = "mcpconform"
	}
	_, fx := e2etest.Parts(t)
	o.MCPServers = []string{fx.Main.URL, fx.Second.URL}
	p, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	state := filepath.Join(t.TempDir(), product+"-state.json")
	if err := p.WriteStorageState(state, 0o600); err != nil {
		t.Fatal(err)
	}
	prefix := "MCPCONFORM_" + strings.ToUpper(product) + "_"
	return p, map[string]string{prefix + "URL": p.URL, prefix + "STORAGE_STATE": state}
}

// Env is the test binary's environment (e2etest, started by Imitate or
// e2etest.Parts) with appTimeout and the driver's log going to l.
func Env(l *Logs, appTimeout time.Duration) hosts.Env {
	e := e2etest.Started().Env()
	e.AppTimeout = appTimeout
	e.Logf = l.Logf
	return e
}

// Run runs the checks matching globs (all when none) against h, logging
// to l, and fails the test if the run itself fails.
func Run(t *testing.T, h hosts.Host, l *Logs, globs ...string) report.HostRun {
	t.Helper()
	e2etest.Parts(t)
	// A hang guard: the whole catalogue takes under 2 minutes in CI.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, h, runner.Options{Env: Env(l, 30*time.Second), Stall: time.Minute, Logf: l.Logf, Selection: runner.Selection{Globs: globs}})
	if err != nil {
		t.Fatalf("run: %v\nlogs:\n%s", err, l.String())
	}
	return hr
}

// WholeSuite runs the checks of the driver against h, a product's driver
// pointed at its imitation p (in CI DriverChecks and a check per capability
// the driver gives, e2etest.DriverSample; every check with
// MCPCONFORM_E2E_EXTENDED=1), and asserts what every product's run must
// show: CheckRun; the hooks ran (the driver logged a dismissed modal, the
// approved tool call and its experimental warning); p's session never
// appears in the log. It returns the log for the product's own checks.
func WholeSuite(t *testing.T, h hosts.Host, p *Product) *Logs {
	t.Helper()
	var l Logs
	var globs []string
	if !e2etest.IsExtended() {
		globs = e2etest.DriverSample(t, h, DriverChecks...).Globs
	}
	CheckRun(t, h, Run(t, h, &l, globs...))
	for _, want := range []string{"dismissed a modal", "approved the model's tool call", "experimental"} {
		if !strings.Contains(l.String(), want) {
			t.Errorf("the driver's log lacks %q:\n%s", want, l.String())
		}
	}
	if strings.Contains(l.String(), p.Session) {
		t.Error("the storage state's session value appears in the log")
	}
	return &l
}

// SetupFails runs Setup of h with appTimeout, tears it down, and returns
// Setup's error (the test fails when there is none), how long it took and
// the log.
func SetupFails(t *testing.T, h hosts.Host, appTimeout time.Duration) (error, time.Duration, *Logs) {
	t.Helper()
	e2etest.Parts(t)
	var l Logs
	start := time.Now()
	_, err := runner.SetUp(context.Background(), h, runner.Options{Env: Env(&l, appTimeout)})
	h.Teardown(context.Background())
	if err == nil {
		t.Fatal("Setup succeeded")
	}
	return err, time.Since(start), &l
}

// OverrideFailsFast puts vars into the test's environment with variable
// (a selector of product's) overridden to value, which matches nothing,
// and a 2 s page timeout. Setup of newHost() must then fail within 15 s,
// naming the variable and the value it set: an override is used without
// a rebuild, and a dead one does not wait out the usual timeouts.
func OverrideFailsFast(t *testing.T, product string, newHost func() *webchat.Chat, vars map[string]string, variable, value string) {
	t.Helper()
	Setenv(t, vars, map[string]string{variable: value, "MCPCONFORM_" + strings.ToUpper(product) + "_PAGE_TIMEOUT": "2s"})
	err, took, _ := SetupFails(t, newHost(), 30*time.Second)
	if !strings.Contains(err.Error(), variable) || !strings.Contains(err.Error(), strconv.Quote(value)+" (set by") {
		t.Errorf("the error does not name the overridden variable and its value: %v", err)
	}
	if took > 15*time.Second {
		t.Errorf("took %s to fail with a 2s page timeout", took)
	}
}

// Setenv puts each of vars into the test's environment (t.Setenv), later
// maps over earlier ones.
func Setenv(t *testing.T, vars ...map[string]string) {
	for _, m := range vars {
		for k, v := range m {
			t.Setenv(k, v)
		}
	}
}

// EmptyStorageStateCountsAsMissing sets product's storage-state variable
// empty in vars (an imitation's variables) and checks that the driver
// newHost builds from them fails Setup with ErrNoStorageState naming that
// variable, without opening a browser context.
func EmptyStorageStateCountsAsMissing(t *testing.T, product string, vars map[string]string, newHost func(webchat.Options) *webchat.Chat) {
	t.Helper()
	name := "MCPCONFORM_" + strings.ToUpper(product) + "_STORAGE_STATE"
	vars[name] = ""
	h := newHost(webchat.Options{Getenv: Lookup(vars)})
	var l Logs
	_, err := runner.SetUp(context.Background(), h, runner.Options{Env: Env(&l, 5*time.Second)})
	defer h.Teardown(context.Background())
	if !errors.Is(err, webchat.ErrNoStorageState) || !strings.Contains(err.Error(), name+" is not set or empty") {
		t.Fatalf("an empty %s: want ErrNoStorageState naming the variable, got %v", name, err)
	}
	if h.Ctx != nil {
		t.Error("a browser context was opened without a session")
	}
}
