// Package generic is a browser host configured entirely by a profile: the
// MCPCONFORM_<PROFILE>_* variables of docs/profiles.md, read with
// go-envconfig, or a Profile value plus Go Hooks for a built-in host.
//
// A profile says how to start the host (START, READY: a command run with
// the fixture servers' URLs and a free {port}, its process group stopped
// after the run), where it is (URL), the steps that make it show the
// conformance app (STEPS, a small language: goto, click, fill, select,
// press, wait-for, wait-for-text, wait-for-hidden, with {url}, {server},
// {server2}, {nonce} and {port} placeholders and their URL-encoded forms
// {name:url}), where the app's iframe is (APP_FRAME), how to read the
// conversation (CONVERSATION) and the model's tool list (MODEL_TOOLS),
// switch the theme (THEME_TOGGLE, THEME_ATTR), confirm dialogs (CONFIRM,
// DIALOGS), open a tool's View without the agent (OPEN_TOOL,
// OPEN_TOOL_PAGE), close a View and stop a tool call (CLOSE, CANCEL), and
// which capabilities it declares unsupported (UNSUPPORTED). Every
// capability of the protocol is available to a profile; checkDownload,
// like clickTrigger and the other browser-side ones, needs no variable.
//
//   - Profiles lists the profiles defined in an environment (every
//     MCPCONFORM_<NAME>_URL).
//   - Lookup builds the host of one profile; Check validates it without
//     starting anything. Both report every missing, empty or malformed
//     variable as a *ProfileError (errors.Is ErrProfile: bad input, exit
//     code 2), naming the variable and step to fix. An empty value counts
//     as missing: it is what an unset CI secret expands to.
//   - Setup runs START until READY (within START_TIMEOUT) and the steps
//     within STEP_TIMEOUT each; BindSuite then finds the suite in the app
//     frame within the app timeout (the runner calls both). A
//     START that exits or is not ready, a step that does not complete or
//     an app that never shows is a *SetupError (ErrStep, ErrAppNotShown:
//     infrastructure, exit code 3) naming the variable and step, with a
//     screenshot or START's last lines.
//
// The value Lookup and New return is a hosts.CapabilitySet: its Supports
// answers for exactly the capabilities the profile configures (see
// caps.go), so the runner and the reports see no capability the profile
// does not give. The package registers env profiles as the hosts of every
// name no built-in has (hosts.SetFallback), so `--host NAME` runs the
// profile NAME.
package generic
