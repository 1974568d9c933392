package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Every mcpconform command line in the repository's GitHub workflows (CI,
// the nightly soak and full self-test, the examples users copy) names a
// command and flags this binary has, with values its flags accept: a
// renamed flag must not leave a job that fails only when it runs at night
// or in a user's repository. Each line runs with --help appended, once per
// value of every matrix variable it uses.
func TestWorkflowCommandLinesParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", ".github", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "..", ".github", "workflows", "examples", "*.yml"))
	files = append(files, more...)
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Strategy struct {
					Matrix map[string]any `yaml:"matrix"`
				} `yaml:"strategy"`
				Steps []struct {
					Run string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				for _, line := range mcpconformLines(s.Run) {
					for _, l := range expandMatrix(line, j.Strategy.Matrix) {
						lines++
						args := shellWords(l)
						var out, errb bytes.Buffer
						if code := run(append(args, "--help"), &out, &errb); code != ExitOK {
							t.Errorf("%s, job %s: mcpconform %s: exit %d: %s", filepath.Base(f), job, strings.Join(args, " "), code, strings.TrimSpace(errb.String()))
						}
					}
				}
			}
		}
	}
	// The nightly soak and self-test, CI's matrix and the examples: a
	// parser that finds nothing proves nothing.
	if lines < 5 {
		t.Fatalf("found %d mcpconform command lines in %d workflow files, want at least 5", lines, len(files))
	}
}

// mcpconformLines returns what follows `cmd/mcpconform` (and its @version)
// on each line of a run script that invokes it, continuation lines joined
// and comments dropped.
func mcpconformLines(script string) []string {
	script = strings.ReplaceAll(script, "\\\n", " ")
	var out []string
	for _, l := range strings.Split(script, "\n") {
		_, after, ok := strings.Cut(l, "cmd/mcpconform")
		if !ok || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		after = versionSuffix.ReplaceAllString(after, "")
		if i := strings.Index(after, " #"); i >= 0 {
			after = after[:i]
		}
		out = append(out, strings.TrimSpace(after))
	}
	return out
}

var (
	matrixRef      = regexp.MustCompile(`\$\{\{\s*matrix\.(\w+)\s*\}\}`)
	arrayExpansion = regexp.MustCompile(`^\$\{\w+\[@\]\}$`)
	versionSuffix  = regexp.MustCompile(`^@\S*`)
)

// expandMatrix returns line once per value of the first matrix variable
// it uses (recursively, for the others).
func expandMatrix(line string, matrix map[string]any) []string {
	m := matrixRef.FindStringSubmatch(line)
	if m == nil {
		return []string{line}
	}
	values, _ := matrix[m[1]].([]any)
	var out []string
	for _, v := range values {
		s, _ := yaml.Marshal(v)
		out = append(out, expandMatrix(strings.Replace(line, m[0], strings.TrimSpace(string(s)), 1), matrix)...)
	}
	return out
}

// shellWords splits a command line as the shell would for these scripts:
// on blanks outside quotes, quotes removed; an array expansion
// ("${a[@]}") stands for words the script builds at run time and is
// dropped.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	flush := func() {
		if in && !arrayExpansion.MatchString(w.String()) {
			words = append(words, w.String())
		}
		w.Reset()
		in = false
	}
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			flush()
		default:
			w.WriteRune(r)
			in = true
		}
	}
	flush()
	return words
}
