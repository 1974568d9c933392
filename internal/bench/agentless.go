package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/generic"
	"github.com/mcpconform/mcpconform/hosts/reference"
	"github.com/mcpconform/mcpconform/internal/proctree"
)

// agentlessProfile is the reference host's page described the way a user
// describes a development host in an env profile (docs/profiles.md): no
// model answers (the no-agent variation), the suite's tool is called from
// the tool picker, and the driver has only what the selectors give it (no
// Go hooks: no model tool list), and the profile says there is no model
// (AGENT=none), as a user describing such a host would. It stands for the
// common case of issue #27, an Inspector or a development UI, where an
// agent check must learn at once that no agent will answer.
func agentlessProfile() generic.Profile {
	callFromPicker := func(tool, args string) string {
		return "goto {url}/\nclick [data-testid=tool-picker]\nclick [data-testid=tool-option][data-tool=\"" + tool + "\"]\nfill [data-testid=tool-args]=" + args + "\nclick [data-testid=tool-call]"
	}
	return generic.Profile{
		Steps:        callFromPicker(reference.SuiteTool, `{"nonce":"{nonce}"}`),
		AppFrame:     `iframe[data-testid="app-frame"]; iframe`,
		Conversation: `[data-testid="conversation"]`,
		UserMessages: `[data-testid="conversation"] [data-role="user"]`,
		ThemeToggle:  `[data-testid="theme-toggle"]`,
		ThemeAttr:    "body@class",
		Confirm:      `[data-testid="dialog-{dialog}"] [data-testid="dialog-confirm"]`,
		OpenTool:     callFromPicker("{tool}", "{arguments}"),
		Close:        `[data-testid="view-close"]`,
		Cancel:       `[data-testid="tool-stop"]`,
		Agent:        generic.AgentNone,
	}
}

// agentlessHost is agentlessProfile on a reference host of its own
// (variation no-agent), started at Setup and stopped at Teardown.
func agentlessHost() (hosts.Host, error) {
	vs, err := reference.ParseVariations([]string{"no-agent"})
	if err != nil {
		return nil, err
	}
	return generic.New("agentless-profile", agentlessProfile(), generic.Hooks{
		Vars: []string{generic.PhURL},
		Prepare: func(ctx context.Context, env hosts.Env) (map[string]string, func() error, error) {
			srv, err := reference.NewServer(ctx, reference.ServerOptions{MCPServers: []string{env.ServerURL, env.SecondServerURL}, Variations: vs})
			if err != nil {
				return nil, nil, err
			}
			return map[string]string{generic.PhURL: srv.HostURL}, srv.Close, nil
		},
	})
}

// agentlessRun runs the selected catalogue on agentlessHost in the same
// browser, after the reference host's run: host setup to reports
// written, and the CPU the process tree spent meanwhile (its peaks are the
// whole process's, so they are left out).
func agentlessRun(ctx context.Context, env hosts.Env, o Options, sampler *proctree.Sampler) (*FullRun, error) {
	h, err := agentlessHost()
	if err != nil {
		return nil, err
	}
	cpu := func() time.Duration {
		sampler.Sample()
		s := sampler.Snapshot()
		return s.CPU - s.SamplerCPU
	}
	fr := &FullRun{}
	cpu0, t0 := cpu(), time.Now()
	phase := func(name string, d time.Duration) {
		fr.Phases = append(fr.Phases, Phase{Name: name, Seconds: d.Seconds()})
	}
	// The profile host logs every step of every OPEN_TOOL: the figures
	// are the output here, and a failed step still ends the run with its
	// error.
	env.Logf = func(string, ...any) {}
	err = runCatalogue(ctx, h, env, o, "agentless", fr, func(d time.Duration) { phase("host setup (profile steps, app shown)", d) }, phase)
	if err != nil {
		return fr, fmt.Errorf("the agentless profile host's run: %w", err)
	}
	fr.WallSeconds = time.Since(t0).Seconds()
	fr.CPUSeconds = (cpu() - cpu0).Seconds()
	return fr, nil
}
