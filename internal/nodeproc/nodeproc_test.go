//go:build unix

package nodeproc

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// A started program gets the throwaway HOME (also through {home}) and the
// minimal environment, its output is kept, and Stop ends its whole group,
// the child it left running included, and removes the HOME.
func TestStartStop(t *testing.T) {
	t.Setenv("MCP_SECRET", "leak")
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid")
	p, err := Start(Options{
		Name: "the test program", Path: "/bin/sh",
		// A grandchild in the same group keeps running after the shell is told to stop.
		Args:       []string{"-c", `echo "home=$HOME data=$DATA secret=${MCP_SECRET:-none} proxy=${HTTPS_PROXY:-none}"; sleep 60 & wait`},
		HomePrefix: "nodeproc-test-",
		Env:        map[string]string{"DATA": "{home}/data"},
	})
	if err != nil {
		t.Fatal(err)
	}
	home := p.Home()
	ctx := context.Background()
	want := "home=" + home + " data=" + home + "/data secret=none proxy=none"
	if err := p.WaitReady(ctx, 5*time.Second, "printing its line", errors.New("no line"), func() error {
		if !strings.Contains(p.Output(), want) {
			return errors.New("not yet")
		}
		return nil
	}); err != nil {
		t.Fatalf("%v (output %q)", err, p.Output())
	}
	if !GroupAlive(p.PID()) {
		t.Fatal("the program's group is not alive while it runs")
	}
	if err := p.Stop(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The grandchild, killed, is reaped by init a moment later.
	for i := 0; i < 30 && GroupAlive(p.PID()); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if GroupAlive(p.PID()) {
		t.Errorf("process group %d is still alive 3 s after Stop", p.PID())
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("HOME %s was not removed", home)
	}
	if err := p.Stop(time.Second); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

// WaitReady reports a program that exits first, with its output and the
// start error wrapped, and one that is not ready in time.
func TestWaitReadyFailures(t *testing.T) {
	errStart := errors.New("did not start")
	p, err := Start(Options{Name: "x", Path: "/bin/sh", Args: []string{"-c", "echo bye; exit 3"}, HomePrefix: "nodeproc-test-"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	err = p.WaitReady(context.Background(), 5*time.Second, "ready", errStart, func() error { return errors.New("no") })
	if !errors.Is(err, errStart) || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "bye") {
		t.Fatalf("exit before ready: %v", err)
	}
	q, err := Start(Options{Name: "y", Path: "/bin/sh", Args: []string{"-c", "sleep 60"}, HomePrefix: "nodeproc-test-"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop(time.Second)
	err = q.WaitReady(context.Background(), 300*time.Millisecond, "ready", errStart, func() error { return errors.New("still no") })
	if !errors.Is(err, errStart) || !strings.Contains(err.Error(), "within") || !strings.Contains(err.Error(), "still no") {
		t.Fatalf("not ready in time: %v", err)
	}
}

// Probe tells 200 from other answers and from nothing listening.
func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if err := Probe(ctx, srv.URL+"/", true); err != nil {
		t.Errorf("200: %v", err)
	}
	if err := Probe(ctx, srv.URL+"/missing", true); err == nil {
		t.Error("404 passed a want-200 probe")
	}
	if err := Probe(ctx, srv.URL+"/missing", false); err != nil {
		t.Errorf("404 without want200: %v", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if err := Probe(ctx, "http://"+addr+"/", false); err == nil {
		t.Error("a closed port answered")
	}
}
