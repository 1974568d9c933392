// Package generic is a browser host configured entirely by a profile: the
// MCPCONFORM_<PROFILE>_* variables of docs/profiles.md, read with
// go-envconfig, or a Profile value plus Go Hooks for a built-in host.
//
// A profile says where the host is (URL), the steps that make it show the
// conformance app (STEPS, a small language: goto, click, fill, press,
// wait-for, with {url}, {server}, {server2} and {nonce} placeholders), where
// the app's iframe is (APP_FRAME), how to read the conversation
// (CONVERSATION), switch the theme (THEME_TOGGLE, THEME_ATTR), confirm
// dialogs (CONFIRM, DIALOGS), and which capabilities it declares
// unsupported (UNSUPPORTED).
//
//   - Profiles lists the profiles defined in an environment (every
//     MCPCONFORM_<NAME>_URL).
//   - Lookup builds the host of one profile; Check validates it without
//     starting anything. Both report every missing, empty or malformed
//     variable as a *ProfileError (errors.Is ErrProfile: bad input, exit
//     code 2), naming the variable and step to fix. An empty value counts
//     as missing: it is what an unset CI secret expands to.
//   - Setup runs the steps within STEP_TIMEOUT each and binds to the suite
//     within the app timeout. A step that does not complete or an app that
//     never shows is a *SetupError (ErrStep, ErrAppNotShown: infrastructure,
//     exit code 3) naming the variable and step, with a screenshot.
//
// The value Lookup and New return is a hosts.CapabilitySet: its Supports
// answers for exactly the capabilities the profile configures (see
// caps.go), so the runner and the reports see no capability the profile
// does not give.
package generic
