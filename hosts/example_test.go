package hosts_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/protocol"
)

// kiosk is a host driver: a made-up desktop host that shows the suite's
// app when told over its local control API and can switch its theme. It
// offers no app frame, so the runner reaches the suite through the relay;
// a browser host would embed *browserhost.Base, which binds the frame.
type kiosk struct {
	api string // its control API, from MCPCONFORM_KIOSK_URL
}

func (k *kiosk) Name() string { return "kiosk" }

// Setup shows the app: the kiosk calls the fixture server's
// conformance_suite tool and renders its View.
func (k *kiosk) Setup(ctx context.Context, env hosts.Env) error {
	return k.post(ctx, "/show-tool?server="+env.ServerURL+"&tool=conformance_suite")
}

func (k *kiosk) Teardown(ctx context.Context) error { return k.post(ctx, "/close-all") }

// ToggleTheme is the one capability (hosts.ThemeToggler); every other
// one the suite asks for is answered "unsupported" and its check skips.
func (k *kiosk) ToggleTheme(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	if err := k.post(ctx, "/theme?to="+req.To); err != nil {
		return protocol.Result{}, err // a harness fault: the check is ERROR
	}
	return protocol.Result{OK: true}, nil
}

func (k *kiosk) post(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.api+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// A host driver registers a constructor that reads its settings from the
// run's parameters; `mcpconform run --host kiosk` then builds it, and
// `mcpconform hosts` lists it with its capabilities. A real driver
// registers in its package's init and is imported by hosts/builtin.
func ExampleRegister() {
	hosts.Register("kiosk", func(p hosts.Params) (hosts.Host, error) {
		if err := p.Unaltered(); err != nil { // no --host-defect for a kiosk
			return nil, err
		}
		api := p.Getenv("MCPCONFORM_KIOSK_URL")
		if api == "" {
			return nil, hosts.UsageError("--host kiosk needs MCPCONFORM_KIOSK_URL, the kiosk's control API")
		}
		return &kiosk{api: api}, nil
	})

	h, err := hosts.New(hosts.Params{Name: "kiosk", Environ: environ{"MCPCONFORM_KIOSK_URL": "http://127.0.0.1:7070"}})
	fmt.Println(h.Name(), hosts.Capabilities(h), err)
	_, err = hosts.New(hosts.Params{Name: "kiosk"})
	fmt.Println(err)
	// Output:
	// kiosk [toggleTheme] <nil>
	// --host kiosk needs MCPCONFORM_KIOSK_URL, the kiosk's control API
}

// environ is a map of settings (the CLI passes the process environment
// with its flags over it).
type environ map[string]string

func (e environ) Lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }
