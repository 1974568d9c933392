package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
			if err := v.Check([]string{name + "=x"}); err != nil {
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
