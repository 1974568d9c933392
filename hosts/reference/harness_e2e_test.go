package reference_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// brokenDriver's theme toggle fails inside the driver (a Playwright call
// failing), not in the host: the check must be ERROR, not FAIL.
type brokenDriver struct{ *reference.Host }

func (b brokenDriver) ToggleTheme(context.Context, protocol.Request) (protocol.Result, error) {
	return protocol.Result{}, errors.New("locator.click: element detached")
}

func TestDriverFailureIsErrorNotFail(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hr, err := runner.Run(ctx, brokenDriver{reference.New()}, runner.Options{Env: env(t), Selection: runner.Selection{Globs: []string{"context/theme-change-notifies", "lifecycle/ping"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hr.Cases {
		switch c.ID {
		case "context/theme-change-notifies":
			if c.Status != protocol.StatusError || !strings.Contains(c.Message, "element detached") {
				t.Errorf("%s: %s %q, want ERROR naming the driver failure", c.ID, c.Status, c.Message)
			}
		default:
			if c.Status != protocol.StatusPass {
				t.Errorf("%s: %s", c.ID, c.Status)
			}
		}
	}
}
