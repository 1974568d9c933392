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

// A misspelt variable is an error that names it and the likely intended
// one, and never prints a value; known names and host-profile fields pass.
func TestVocabularyRejectsMisspeltVariables(t *testing.T) {
	v := Vocabulary{Names: Names(knownCfg{}), Fields: []string{"URL", "STEPS", "STORAGE_STATE"}}
	ok := []string{"MCPCONFORM_TIMEOUT=5m", "MCPCONFORM_JSON=x", "MCPCONFORM_INSP_URL=http://127.0.0.1", "MCPCONFORM_MY_HOST_STEPS=goto {url}",
		"MCPCONFORM_CHATGPT_STORAGE_STATE=/secret/path", "PATH=/usr/bin", "OTHER_TIMOUT=1"}
	if err := v.Check(ok); err != nil {
		t.Fatalf("known variables refused: %v", err)
	}
	for _, tc := range []struct{ env, want string }{
		{"MCPCONFORM_TIMOUT=5m", "unknown variable MCPCONFORM_TIMOUT (did you mean MCPCONFORM_TIMEOUT?)"},
		{"MCPCONFORM_INSP_STPES=goto x", "unknown variable MCPCONFORM_INSP_STPES (did you mean MCPCONFORM_INSP_STEPS?)"},
		{"MCPCONFORM_ZZZZZZZZZZZZ=1", "unknown variable MCPCONFORM_ZZZZZZZZZZZZ:"},
		{"MCPCONFORM_URL=secret-value", "unknown variable MCPCONFORM_URL"}, // a field needs a host before it
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
}
