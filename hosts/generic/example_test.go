package generic_test

import (
	"fmt"

	"github.com/sethvargo/go-envconfig"

	"github.com/mcpconform/mcpconform/hosts"
	"github.com/mcpconform/mcpconform/hosts/generic"
)

// A web host described by an env profile instead of a Go driver: its page
// and the steps that make it show the suite's app (docs/profiles.md). The
// CLI reads the same variables from the environment; `--host my-host`
// builds it through the registry, whose fallback the profiles are.
func ExampleLookup() {
	env := envconfig.MapLookuper(map[string]string{
		"MCPCONFORM_MY_HOST_URL":          "http://127.0.0.1:5173",
		"MCPCONFORM_MY_HOST_STEPS":        "goto {url}/?server={server:url}\nclick text=conformance_suite\nclick role=button[name=\"Run\"]",
		"MCPCONFORM_MY_HOST_APP_FRAME":    "iframe.app-view; iframe",
		"MCPCONFORM_MY_HOST_THEME_TOGGLE": "button[aria-label=\"Toggle theme\"]",
		"MCPCONFORM_MY_HOST_THEME_ATTR":   "html@data-theme",
	})
	h, err := generic.Lookup("my-host", env)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Name(), hosts.Capabilities(h))
	for _, s := range h.(*generic.Host).Steps() {
		fmt.Println(s.Index, s)
	}
	// A step prints without its query, which may carry a token.

	// Output:
	// my-host [clickTrigger checkLinkOpen toggleTheme inspectFrame readConsole resetIsolation checkDownload readFrameMessages observePrompts]
	// 1 goto {url}/?…
	// 2 click text=conformance_suite
	// 3 click role=button[name="Run"]
}
