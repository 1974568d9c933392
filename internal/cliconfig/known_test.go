package cliconfig

import (
	"strings"
	"testing"
)

type knownInner struct {
	JSON string `env:"JSON"`
}

type knownCfg struct {
	Timeout string `env:"TIMEOUT, default=10m"`
	Host    string `env:"HOST"`
	Out     knownInner
	Plain   string
}

func TestNamesWalksNestedStructs(t *testing.T) {
	got := strings.Join(Names(&knownCfg{}), ",")
	if got != "TIMEOUT,HOST,JSON" {
		t.Errorf("Names = %s, want TIMEOUT,HOST,JSON", got)
	}
}

var builtins = []BuiltinHost{{Name: "chatgpt", Fields: []string{"URL", "STORAGE_STATE"}}, {Name: "inspector", Fields: []string{"URL", "TOKEN"}}, {Name: "mcp-ui"}}

// A misspelt variable is an error that names it and the likely intended
// one, and never prints a value; known names, the fields of a defined
// profile and those a built-in host reads pass.
func TestVocabularyRejectsMisspeltVariables(t *testing.T) {
	v := Vocabulary{Names: Names(knownCfg{}), Fields: []string{"URL", "STEPS", "CLOSE", "STORAGE_STATE"}, Builtin: builtins}
	ok := []string{"MCPCONFORM_TIMEOUT=5m", "MCPCONFORM_JSON=x", "MCPCONFORM_INSP_URL=http://127.0.0.1", "MCPCONFORM_MY_HOST_URL=", "MCPCONFORM_MY_HOST_STEPS=goto {url}",
		"MCPCONFORM_CHATGPT_STORAGE_STATE=/secret/path", "MCPCONFORM_INSPECTOR_URL=http://127.0.0.1:1", "PATH=/usr/bin", "OTHER_TIMOUT=1"}
	if err := v.Check(ok); err != nil {
		t.Fatalf("known variables refused: %v", err)
	}
	for _, tc := range []struct{ env, want string }{
		{"MCPCONFORM_TIMOUT=5m", "unknown variable MCPCONFORM_TIMOUT (did you mean MCPCONFORM_TIMEOUT?)"},
		{"MCPCONFORM_INSP_STPES=goto x", "unknown variable MCPCONFORM_INSP_STPES (did you mean MCPCONFORM_INSP_STEPS?)"},
		{"MCPCONFORM_ZZZZZZZZZZZZ=1", "unknown variable MCPCONFORM_ZZZZZZZZZZZZ:"},
		{"MCPCONFORM_URL=secret-value", "unknown variable MCPCONFORM_URL"}, // a field needs a host before it
		// Issue #28: a field of a profile that no URL defines, beside the
		// one that is defined.
		{"MCPCONFORM_MYHOST_CLOSE=.close", "MCPCONFORM_MYHOST_CLOSE belongs to no profile: no MCPCONFORM_MYHOST_URL defines a profile myhost, so it would be ignored (did you mean MCPCONFORM_MY_HOST_CLOSE? (profile my-host is defined))"},
		{"MCPCONFORM_OTHER_CLOSE=.close", "MCPCONFORM_OTHER_CLOSE belongs to no profile: no MCPCONFORM_OTHER_URL defines a profile other, so it would be ignored (define the profile with MCPCONFORM_OTHER_URL, or unset it)"},
		// A profile named like a built-in host.
		{"MCPCONFORM_MCP_UI_URL=http://127.0.0.1:1", "MCPCONFORM_MCP_UI_URL: mcp-ui is a host built into mcpconform, which reads no MCPCONFORM_MCP_UI_* variable, so this defines no profile and would be ignored (did you mean MCPCONFORM_MCP_UI_DEV_URL, a name of your own?); the names of the built-in hosts are reserved: chatgpt, inspector, mcp-ui"},
		{"MCPCONFORM_INSPECTOR_STEPS=goto {url}", "MCPCONFORM_INSPECTOR_STEPS: inspector is a host built into mcpconform, which reads only MCPCONFORM_INSPECTOR_URL, _TOKEN"},
	} {
		err := v.Check(append(append([]string(nil), ok...), tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.env, err, tc.want)
			continue
		}
		if _, val, _ := strings.Cut(tc.env, "="); strings.Contains(err.Error(), val) {
			t.Errorf("%s: the message prints the value: %v", tc.env, err)
		}
	}
	err := v.Check([]string{"MCPCONFORM_B_X=1", "MCPCONFORM_A_X=1"})
	if err == nil || !strings.Contains(err.Error(), "MCPCONFORM_A_X") || !strings.Contains(err.Error(), "and 1 more: MCPCONFORM_B_X") {
		t.Errorf("several unknown: %v", err)
	}
	// Bare keys (a lookuper's) are read as well as KEY=VALUE lines.
	if err := v.Check([]string{"MCPCONFORM_MY_HOST_URL", "MCPCONFORM_MYHOST_CLOSE"}); err == nil || !strings.Contains(err.Error(), "did you mean MCPCONFORM_MY_HOST_CLOSE?") {
		t.Errorf("bare keys: %v", err)
	}
}
