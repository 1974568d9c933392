package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/hosts/generic"
)

// Every MCPCONFORM_* variable the README and docs tell users to set is
// known: the misspelt-variable check must never refuse a documented one.
func TestVocabularyKnowsEveryDocumentedVariable(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md", "../../action.yml")
	re := regexp.MustCompile(`\bMCPCONFORM_[A-Z0-9_]*[A-Z0-9]`)
	v := vocabulary()
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range re.FindAllIndex(b, -1) {
			name := string(b[loc[0]:loc[1]])
			// MCPCONFORM_<PROFILE>_* and MCPCONFORM_<HOST>_… are patterns,
			// MCPCONFORM_* a prefix, not variables.
			if next := b[loc[1]:min(loc[1]+1, len(b))]; len(next) == 1 && (next[0] == '<' || next[0] == '*') {
				continue
			}
			if strings.HasSuffix(name, "_") {
				continue
			}
			seen++
			if err := v.Check(withItsProfile(name)); err != nil {
				t.Errorf("%s names %s, which the variable check refuses: %v", filepath.Base(f), name, err)
			}
		}
	}
	if seen < 20 {
		t.Errorf("found only %d documented variables: is the pattern right?", seen)
	}
}

func TestMisspeltVariableIsUsageError(t *testing.T) {
	clearEnv(t)
	t.Setenv("MCPCONFORM_TIMOUT", "5m")
	var out, errb strings.Builder
	code := run([]string{"list"}, &out, &errb)
	if code != ExitUsage || !strings.Contains(errb.String(), "did you mean MCPCONFORM_TIMEOUT?") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming MCPCONFORM_TIMEOUT", code, errb.String())
	}
}

// Every variable the code reads by its whole name is known too (a new
// os.Getenv("MCPCONFORM_…") outside the command structs must be added to
// vocabulary, or setting it would be refused). The tests' own switches
// count: a test that starts mcpconform passes its environment on, so a
// switch set for `go test` (MCPCONFORM_SELFTEST_PARALLEL, read only by a
// test, was not known on 2026-12-04) made every such test exit 2.
func TestVocabularyKnowsEveryVariableTheCodeReads(t *testing.T) {
	re := regexp.MustCompile(`"(MCPCONFORM_[A-Z0-9_]*[A-Z0-9])"`)
	// In tests, only what they read from the process environment: their other
	// names are made up on purpose (misspelt variables, test profiles).
	inTest := regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\("(MCPCONFORM_[A-Z0-9_]*[A-Z0-9])"\)`)
	v := vocabulary()
	seen := 0
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".cache" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		names := re
		if strings.HasSuffix(path, "_test.go") {
			names = inTest
		}
		for _, m := range names.FindAllSubmatch(b, -1) {
			seen++
			if err := v.Check([]string{string(m[1]) + "=x"}); err != nil {
				t.Errorf("%s reads %s, which the variable check refuses: %v", path, m[1], err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 3 {
		t.Errorf("found only %d variables read by name: is the pattern right?", seen)
	}
}

// withItsProfile is name, a variable the docs name, with the URL of its
// profile when it is a profile's field (a documented example defines the
// profile it configures): [name] for any other.
func withItsProfile(name string) []string {
	out := []string{name}
	for _, f := range generic.Variables {
		if host, ok := strings.CutSuffix(strings.TrimPrefix(name, "MCPCONFORM_"), "_"+f); ok && host != "" {
			out = append(out, "MCPCONFORM_"+host+"_URL")
		}
	}
	return out
}

// The profile variables of issue #14 are known, and a misspelt one is
// refused with the closest, so that a capability never quietly vanishes.
func TestVocabularyProfileVariables(t *testing.T) {
	v := vocabulary()
	for _, f := range []string{"START", "READY", "START_TIMEOUT", "OPEN_TOOL", "OPEN_TOOL_PAGE", "CLOSE", "CANCEL", "MODEL_TOOLS"} {
		if err := v.Check([]string{"MCPCONFORM_MY_HOST_URL=x", "MCPCONFORM_MY_HOST_" + f + "=x"}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for typo, want := range map[string]string{
		"MCPCONFORM_MY_HOST_OPEN_TOL":    "MCPCONFORM_MY_HOST_OPEN_TOOL",
		"MCPCONFORM_MY_HOST_MODEL_TOOL":  "MCPCONFORM_MY_HOST_MODEL_TOOLS",
		"MCPCONFORM_MY_HOST_CANCELL":     "MCPCONFORM_MY_HOST_CANCEL",
		"MCPCONFORM_MY_HOST_READDY":      "MCPCONFORM_MY_HOST_READY",
		"MCPCONFORM_MY_HOST_CONVERSATON": "MCPCONFORM_MY_HOST_CONVERSATION",
	} {
		err := v.Check([]string{typo + "=x"})
		if err == nil || !strings.Contains(err.Error(), "did you mean "+want+"?") {
			t.Errorf("%s: %v, want a suggestion of %s", typo, err, want)
		}
	}
}
