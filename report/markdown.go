package report

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
)

// mdMaxMessage caps a message in a table cell, in runes: the summary goes
// into a merge-request comment (GitHub limits a comment to 65 536
// characters) and a step summary (1 MiB), and one runaway message must not
// push the rest out.
const mdMaxMessage = 400

// WriteMarkdown writes a summary of r in GitHub-flavoured Markdown, for
// $GITHUB_STEP_SUMMARY and merge-request comments (GitHub and GitLab render
// it alike). There is one section per host: a headline with its tally, a
// line of metadata, a table of the checks that did not simply pass, failures
// first, each with its clause and spec reference, and the passes folded into
// a <details> block.
//
// Every text from the run is sanitised and escaped, so a host's message can
// neither break the table nor inject markup, links or @mentions.
func WriteMarkdown(w io.Writer, r Run) error {
	var b bytes.Buffer
	t := r.Tally()
	title := "mcpconform"
	if r.Version != "" {
		title += " " + mdText(r.Version)
	}
	fmt.Fprintf(&b, "## %s %s: %s\n\n", verdictIcon(t, anyInfra(r)), title, mdText(t.String()))
	if len(r.Hosts) > 0 {
		fmt.Fprintf(&b, "%s\n\n", mdJudged(r.Judged()))
	}
	if r.Expectations != "" {
		fmt.Fprintf(&b, "Baseline: `%s`", mdCode(r.Expectations))
		if !r.StartedAt.IsZero() {
			fmt.Fprintf(&b, " · started %s", r.StartedAt.UTC().Format("2006-01-02 15:04:05Z"))
		}
		b.WriteString("\n\n")
	} else if !r.StartedAt.IsZero() {
		fmt.Fprintf(&b, "Started %s\n\n", r.StartedAt.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if len(r.Hosts) == 0 {
		b.WriteString("No host was run.\n")
	}
	for _, h := range r.Hosts {
		writeMarkdownHost(&b, h)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeMarkdownHost(b *bytes.Buffer, h HostRun) {
	t := h.Tally()
	head := t.String()
	if t.Unsupported > 0 {
		head += fmt.Sprintf(" (%d for unsupported capabilities)", t.Unsupported)
	}
	fmt.Fprintf(b, "### %s %s: %s\n\n", verdictIcon(t, h.Infra != ""), mdText(h.Host), mdText(head))
	fmt.Fprintf(b, "%s\n\n", mdJudged(h.Judged()))

	var meta []string
	if v := strings.TrimSpace(h.HostName + " " + h.HostVersion); v != "" {
		meta = append(meta, "host "+mdText(v))
	}
	for _, kv := range [][2]string{{"browser", h.Browser}, {"platform", h.Platform}, {"suite", h.SuiteVersion}} {
		if kv[1] != "" {
			meta = append(meta, kv[0]+" "+mdText(kv[1]))
		}
	}
	if eds := editions(h.Cases); len(eds) > 0 {
		meta = append(meta, "spec "+mdText(strings.Join(eds, ", ")))
	}
	if !h.StartedAt.IsZero() {
		meta = append(meta, h.StartedAt.UTC().Format("2006-01-02 15:04:05Z"))
	}
	if len(meta) > 0 {
		b.WriteString(strings.Join(meta, " · "))
		b.WriteString("\n\n")
	}
	if infra := strings.TrimSpace(sanitize(h.Infra)); infra != "" {
		fmt.Fprintf(b, "> **Stopped early (infrastructure):** %s\n\n", mdCell(infra))
	}
	if h.Video != "" {
		fmt.Fprintf(b, "Video of the host page: [%s](%s)\n\n", mdText(filepath.Base(h.Video)), mdLinkTarget(h.Video))
	}

	var rows, passes []Case
	for _, o := range Outcomes {
		for _, c := range h.Cases {
			if c.Outcome() != o {
				continue
			}
			if o == OutcomePass {
				passes = append(passes, c)
			} else {
				rows = append(rows, c)
			}
		}
	}
	if len(rows) > 0 {
		b.WriteString("| | Check | Clause | Spec | Status | Details |\n")
		b.WriteString("|---|---|---|---|---|---|\n")
		for _, c := range rows {
			fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s | %s |\n",
				outcomeIcon(c.Outcome()), mdCode(c.ID), mdText(string(c.Clause)), mdSpec(c),
				mdStatus(c), mdDetails(h, c))
		}
		b.WriteString("\n")
	}
	if len(passes) > 0 {
		fmt.Fprintf(b, "<details><summary>%d passed</summary>\n\n", len(passes))
		b.WriteString("| | Check | Clause | Spec | Time |\n")
		b.WriteString("|---|---|---|---|---|\n")
		for _, c := range passes {
			fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s |\n",
				outcomeIcon(OutcomePass), mdCode(c.ID), mdText(string(c.Clause)), mdSpec(c), consoleDuration(c.Duration))
		}
		b.WriteString("\n</details>\n\n")
	}
	if len(h.Cases) == 0 {
		b.WriteString("No check ran.\n\n")
	}
	if len(h.Absent) > 0 {
		ids := make([]string, len(h.Absent))
		for i, e := range h.Absent {
			ids[i] = "`" + mdCode(e.ID) + "`"
		}
		fmt.Fprintf(b, "Baseline entries that matched no check (tolerated): %s\n\n", strings.Join(ids, ", "))
	}
}

// mdJudged is the Judged line with its first words in bold:
// "**Judged 49 of 66** (PASS 47, FAIL 2); 17 not judged: …".
func mdJudged(j Judged) string {
	head := fmt.Sprintf("judged %d of %d", j.Judged, j.Selected)
	return "**J" + head[1:] + "** " + mdText(strings.TrimPrefix(j.String(), head))
}

func anyInfra(r Run) bool {
	for _, h := range r.Hosts {
		if h.Infra != "" {
			return true
		}
	}
	return false
}

func verdictIcon(t Tally, infra bool) string {
	switch {
	case t.Failed > 0 || t.Stale > 0 || infra:
		return "❌"
	case t.Total() == t.Skipped:
		return "⏭️"
	}
	return "✅"
}

func outcomeIcon(o Outcome) string {
	switch o {
	case OutcomePass:
		return "✅"
	case OutcomeFail, OutcomeStale:
		return "❌"
	case OutcomeExpectedFail, OutcomeFlaky:
		return "⚠️"
	case OutcomeSkipped:
		return "⏭️"
	case OutcomeOptional:
		return "➖"
	}
	return "❔"
}

// mdStatus is the status, qualified by what the baseline made of it, or by
// the reason code of a skip.
func mdStatus(c Case) string {
	s := mdText(string(c.Status))
	switch c.Outcome() {
	case OutcomeExpectedFail:
		s += " (expected, baseline)"
	case OutcomeFlaky:
		s += " (allowed flaky, baseline)"
	case OutcomeStale:
		s += " (stale baseline entry)"
	case OutcomeSkipped:
		if code := c.ReasonCode(); strings.HasPrefix(code, "unsupported:") || strings.HasPrefix(code, "blocked:") {
			s += " `" + mdCode(code) + "`"
		}
	}
	return s
}

func mdSpec(c Case) string {
	var parts []string
	if c.Edition != "" {
		parts = append(parts, mdText(string(c.Edition)))
	}
	if c.SpecRef != "" {
		parts = append(parts, mdText(c.SpecRef))
	}
	return strings.Join(parts, " ")
}

func mdDetails(h HostRun, c Case) string {
	var parts []string
	why := reason(h, c)
	if c.Status == protocol.StatusNotRun {
		why = notRun(why)
	}
	if c.Outcome() == OutcomeStale {
		why = "passes now: remove the baseline entry"
	}
	if c.Outcome() == OutcomeOptional {
		why = optional(why)
	}
	if why != "" {
		parts = append(parts, mdCell(truncate(why, mdMaxMessage)))
	}
	if e := c.Expect; e != nil && c.Outcome() != OutcomeSkipped && c.Outcome() != OutcomeOptional {
		line := "baseline: expected to fail"
		if len(e.Allow) > 0 {
			line = "baseline allows " + allowList(e)
		}
		if r := oneLine(sanitize(e.Reason)); r != "" {
			line += " (" + r + ")"
		}
		parts = append(parts, "<i>"+mdText(truncate(line, mdMaxMessage))+"</i>")
	}
	for _, ev := range c.Evidence {
		if ev = oneLine(sanitize(ev)); ev != "" {
			parts = append(parts, "evidence: `"+mdCode(ev)+"`")
		}
	}
	return strings.Join(parts, "<br>")
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

// mdCell is text for a table cell: line breaks become <br> (a raw newline
// would end the row) and everything else goes through mdText.
func mdCell(s string) string {
	var lines []string
	for _, l := range strings.Split(sanitize(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, mdText(l))
		}
	}
	return strings.Join(lines, "<br>")
}

// mdEscaper neutralises text from the run: HTML (which both renderers
// accept), the characters that start Markdown emphasis, links, images,
// code, tables, headings and GitHub's $math$, and "@" (a mention in a
// comment would notify someone).
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;", "@", "&#64;",
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"#", `\#`, "~", `\~`, "$", `\$`,
)

// mdText is one line of escaped text.
func mdText(s string) string { return mdEscaper.Replace(oneLine(sanitize(s))) }

// mdCode is text for inside a single-backtick code span, where Markdown
// escapes do not work: backticks become U+02CB (a lookalike) and "|" its
// entity, which GitHub still reads as a table separator otherwise.
func mdCode(s string) string {
	return strings.NewReplacer("`", "ˋ", "|", "\\|").Replace(oneLine(sanitize(s)))
}

// mdLinkTarget is path as a Markdown link destination: slashes forward,
// each segment percent-encoded, so spaces and brackets cannot end it.
func mdLinkTarget(path string) string {
	parts := strings.Split(filepath.ToSlash(sanitize(path)), "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
