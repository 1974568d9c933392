// Command specreg derives the requirement register (internal/specreg/
// register.json) from the MCP Apps spec files of each edition, and prints
// how the sentences were attributed.
//
//	go run ./internal/specreg/cmd/specreg -stable SPEC/2026-01-26/apps.mdx -draft SPEC/draft/apps.mdx \
//	    [-stable-commit SHA] [-draft-commit SHA] [-o internal/specreg/register.json]
//
// The spec files are modelcontextprotocol/ext-apps's
// specification/<edition>/apps.mdx at the commits given (by default, the
// commits the current register records). They are not part of this
// repository.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/mcpconform/mcpconform/internal/specreg"
	"github.com/mcpconform/mcpconform/protocol"
)

func main() {
	stable := flag.String("stable", "", "path of specification/2026-01-26/apps.mdx")
	draft := flag.String("draft", "", "path of specification/draft/apps.mdx")
	stableCommit := flag.String("stable-commit", "", "ext-apps commit of the stable file (default: the register's)")
	draftCommit := flag.String("draft-commit", "", "ext-apps commit of the draft file (default: the register's)")
	out := flag.String("o", "internal/specreg/register.json", `where to write the register ("-": standard output)`)
	flag.Parse()
	if *stable == "" || *draft == "" {
		fmt.Fprintln(os.Stderr, "specreg: -stable and -draft are required")
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*stable, *draft, *stableCommit, *draftCommit, *out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(stable, draft, stableCommit, draftCommit, out string) error {
	old, _ := specreg.Load()
	commit := func(given string, ed protocol.Edition) string {
		if given != "" || old == nil {
			return given
		}
		src, _ := old.Source(ed)
		return src.Commit
	}
	var inputs []specreg.Input
	for _, f := range []struct {
		ed           protocol.Edition
		path, commit string
	}{{protocol.EditionStable, stable, commit(stableCommit, protocol.EditionStable)}, {protocol.EditionDraft, draft, commit(draftCommit, protocol.EditionDraft)}} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return err
		}
		inputs = append(inputs, specreg.Input{Edition: f.ed, Commit: f.commit, Text: string(b)})
	}
	reg, err := specreg.Build(inputs)
	if err != nil {
		return err
	}
	b, err := specreg.Marshal(reg)
	if err != nil {
		return err
	}
	fmt.Fprint(os.Stderr, specreg.Summary(reg))
	if out == "-" {
		_, err = os.Stdout.Write(b)
		return err
	}
	if cur, err := os.ReadFile(out); err == nil && bytes.Equal(cur, b) {
		fmt.Fprintf(os.Stderr, "%s is up to date\n", out)
		return nil
	}
	return os.WriteFile(out, b, 0o644)
}
