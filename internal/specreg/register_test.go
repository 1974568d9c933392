package specreg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// SpecDirEnv names the directory holding <edition>/apps.mdx for every
// edition (ext-apps's specification/ at the commits register.json records).
const SpecDirEnv = "MCPCONFORM_SPEC_DIR"

// TestRegisterMatchesSpec re-derives the register from the spec files and
// fails on any difference: the register is never edited by hand.
func TestRegisterMatchesSpec(t *testing.T) {
	dir := os.Getenv(SpecDirEnv)
	if dir == "" {
		t.Skip(SpecDirEnv + " is not set: the register's drift against the spec text is not checked. " +
			"Set it to a directory holding 2026-01-26/apps.mdx and draft/apps.mdx of modelcontextprotocol/ext-apps " +
			"(specification/<edition>/apps.mdx at the commits internal/specreg/register.json records)")
	}
	reg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var inputs []Input
	for _, src := range reg.Sources {
		path := filepath.Join(dir, string(src.Edition), "apps.mdx")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s names %s, but: %v", SpecDirEnv, dir, err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != src.SHA256 {
			t.Errorf("%s: sha256 %s, the register records %s (%s@%s): the spec file is another version; "+
				"if it is the newer text, regenerate with %s and record its commit", path, got, src.SHA256, src.Path, src.Commit, Generator)
		}
		inputs = append(inputs, Input{Edition: src.Edition, Commit: src.Commit, Text: string(b)})
	}
	derived, err := Build(inputs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(derived)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, JSON()) {
		t.Errorf("register.json differs from the register derived from %s (first difference: %s); regenerate it with %s",
			dir, firstDiff(JSON(), got), Generator)
	}
}

func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) && i < len(g); i++ {
		if w[i] != g[i] {
			return "register.json line " + strconv.Itoa(i+1) + ": committed " + strings.TrimSpace(w[i]) + ", derived " + strings.TrimSpace(g[i])
		}
	}
	return "lengths differ: committed " + strconv.Itoa(len(w)) + " lines, derived " + strconv.Itoa(len(g))
}

// Every requirement has an id, and an id names one sentence per edition.
func TestRegisterWellFormed(t *testing.T) {
	reg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range reg.Requirements {
		key := string(s.Edition) + " " + s.ID
		if s.ID == "" || seen[key] || !s.Subject.HostSide() || s.Clause != s.Keyword.Clause() {
			t.Errorf("malformed requirement %+v (duplicate: %v)", s, seen[key])
		}
		seen[key] = true
	}
	for _, ed := range protocol.Editions {
		if _, ok := reg.Source(ed); !ok {
			t.Errorf("no source for edition %s", ed)
		}
	}
}
