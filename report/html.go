package report

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

//go:embed html/page.html html/page.css html/page.js
var htmlAssets embed.FS

// HTML evidence limits: what a page embeds at most, so a run with large
// screenshots or runaway logs still gives a page a browser opens at once.
const (
	// HTMLMaxImageBytes bounds one embedded screenshot (the PNG file).
	HTMLMaxImageBytes = 2 << 20
	// HTMLMaxTextBytes bounds one embedded log (JSON-RPC or console); a
	// longer one is cut, keeping its end (where a failure shows).
	HTMLMaxTextBytes = 256 << 10
	// HTMLMaxTotalBytes bounds all embedded evidence of one page; evidence
	// past it is listed by path only.
	HTMLMaxTotalBytes = 64 << 20
	// HTMLMaxVideoBytes bounds one embedded video (the WebM file); a
	// larger one is linked by its path instead.
	HTMLMaxVideoBytes = 16 << 20
)

// htmlMaxMessage caps a cell's message, in runes: the suite keeps its
// messages short, but a host can echo anything.
const htmlMaxMessage = 20000

// HTMLOptions are the options of WriteHTML. The zero value is usable.
type HTMLOptions struct {
	// Compare holds earlier results. Each host's cells are compared with
	// the same host (by profile name) in the first of them that has it:
	// cells that regressed (PASS before, failing now) or got fixed are
	// marked and listed at the top.
	Compare []Run
	// EvidenceDirs are the directories a relative evidence path is looked
	// up in, in order; empty means the current directory only.
	EvidenceDirs []string
	// MaxImageBytes, MaxTextBytes and MaxTotalBytes override the limits
	// above (0 keeps the default).
	MaxImageBytes, MaxTextBytes, MaxTotalBytes int64
	// MaxVideoBytes overrides HTMLMaxVideoBytes (0 keeps the default).
	MaxVideoBytes int64
}

// The data embedded in the page, as one JSON document in a
// <script type="application/json" id="mcpconform-data">. The page's script
// renders everything from it; the golden test holds it.
type htmlData struct {
	Tool         string       `json:"tool"`
	Version      string       `json:"version"`
	StartedAt    string       `json:"startedAt"`
	Expectations string       `json:"baseline"`
	Compared     bool         `json:"compared"`
	Hosts        []htmlHost   `json:"hosts"`
	Rows         []htmlRow    `json:"rows"`
	Changes      []htmlChange `json:"changes"`
	// Coverage is the requirement view (absent when no check of the run
	// names a requirement).
	Coverage *htmlCoverage `json:"coverage,omitempty"`
}

type htmlHost struct {
	hostMeta
	Summary Tally `json:"summary"`
	// Judged counts the checks judged (PASS or FAIL) of those selected, as
	// every format does; JudgedLine is its String. MustJudged and
	// MustPassed are the same count for the MUST and MUST NOT checks: how
	// many were judged and how many of those passed.
	Judged     Judged `json:"judged"`
	JudgedLine string `json:"judgedLine"`
	MustJudged int    `json:"mustJudged"`
	MustPassed int    `json:"mustPassed"`
	// ComparedWith is the start of the earlier run this host is compared
	// with ("" when it is not compared; "unknown" when that run has no
	// start time).
	ComparedWith string `json:"comparedWith"`
	// Video is the host page's recording (run --video), if there is one.
	Video *htmlVideo `json:"video,omitempty"`
}

// htmlVideo is a host's video: embedded (Media names the element holding
// its data: URI) or, when too large or not found, linked by Path.
type htmlVideo struct {
	Path  string `json:"path"`
	Media string `json:"media,omitempty"`
	Note  string `json:"note,omitempty"`
}

type htmlRow struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Area      string      `json:"area"`
	Clause    string      `json:"clause"`
	Edition   string      `json:"edition"`
	SpecRef   string      `json:"specRef"`
	SpecLinks []htmlLink  `json:"specLinks"`
	Quote     string      `json:"quote"`
	Disagree  bool        `json:"disagree"`
	Cells     []*htmlCell `json:"cells"` // one per host, null where it did not run the check
}

type htmlLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

type htmlCell struct {
	// Kind is what the cell shows: the status, or what a baseline made of
	// it (XFAIL, STALE, FLAKY).
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	Outcome    string `json:"outcome"`
	Message    string `json:"message"`
	ReasonCode string `json:"reasonCode"`
	// BlockedBy names the checks that blocked a BLOCKED cell; the page
	// links each to its row.
	BlockedBy    []string       `json:"blockedBy,omitempty"`
	DurationMs   float64        `json:"durationMs"`
	Attempts     int            `json:"attempts"`
	Retried      bool           `json:"retried"`
	Expectations string         `json:"baseline"`
	Change       string         `json:"change"` // regressed, fixed, changed, new or ""
	Was          string         `json:"was"`    // the kind in the earlier run
	Evidence     []htmlEvidence `json:"evidence"`
	// VideoAtMs is where the check starts in its host's video.
	VideoAtMs *float64 `json:"videoAtMs,omitempty"`
}

type htmlEvidence struct {
	Kind  string        `json:"kind"` // screenshot, jsonrpc, console or file
	Name  string        `json:"name"`
	Path  string        `json:"path"`
	Image string        `json:"image,omitempty"` // id of the element holding the data: URI
	Lines []htmlLogLine `json:"lines,omitempty"`
	Text  string        `json:"text,omitempty"`
	Note  string        `json:"note,omitempty"` // why it is not (wholly) embedded
}

type htmlLogLine struct {
	At  float64 `json:"at"`
	Dir string  `json:"dir"`
	Msg string  `json:"msg"`
}

type htmlChange struct {
	Host   string `json:"host"`
	ID     string `json:"id"`
	Change string `json:"change"`
	Was    string `json:"was"`
	Now    string `json:"now"`
}

// WriteHTML writes r as one self-contained HTML page: a grid of checks
// (rows, grouped by area) by hosts (columns), each cell opening to its
// message, the quoted spec sentence, its duration and its evidence
// (screenshots inline as data: URIs, JSON-RPC and console logs as text),
// with filters, a search and, given opt.Compare, the regressions and fixes
// since an earlier run. The page loads nothing: its style and script are
// inline and a Content-Security-Policy forbids any request. Everything from
// the run is data in a JSON block, rendered as text by the script, so a
// host's strings cannot become markup.
func WriteHTML(w io.Writer, r Run, opt HTMLOptions) error {
	data, images := htmlModel(r, opt)
	blob, err := json.Marshal(data) // escapes <, > and &: the blob cannot end its <script>
	if err != nil {
		return err
	}
	page, err := htmlAssets.ReadFile("html/page.html")
	if err != nil {
		return err
	}
	css, _ := htmlAssets.ReadFile("html/page.css")
	js, _ := htmlAssets.ReadFile("html/page.js")
	var imgs bytes.Buffer
	for _, im := range images {
		fmt.Fprintf(&imgs, "<script type=\"text/plain\" id=\"%s\">%s</script>\n", im.id, im.uri)
	}
	out := strings.NewReplacer(
		"{{CSP}}", "default-src 'none'; img-src data:; media-src data:; style-src "+cspHash(css)+"; script-src "+cspHash(js)+"; base-uri 'none'; form-action 'none'",
		"{{CSS}}", string(css),
		"{{JS}}", string(js),
		"{{DATA}}", string(blob),
		"{{IMAGES}}", imgs.String(),
	).Replace(string(page))
	_, err = io.WriteString(w, out)
	return err
}

// cspHash is the CSP source expression that allows exactly this inline
// element content.
func cspHash(b []byte) string {
	sum := sha256.Sum256(b)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

type htmlImage struct{ id, uri string }

func htmlModel(r Run, opt HTMLOptions) (htmlData, []htmlImage) {
	d := htmlData{
		Tool: sanitize(r.Tool), Version: sanitize(r.Version), StartedAt: jsonTime(r.StartedAt),
		Expectations: sanitize(r.Expectations), Hosts: []htmlHost{}, Rows: []htmlRow{}, Changes: []htmlChange{},
	}
	if d.Tool == "" {
		d.Tool = "mcpconform"
	}
	ev := newEvidenceReader(opt)
	// Rows follow the order checks first appear in, grouped by area in the
	// order areas first appear (the suite's order, area by area).
	rowOf := map[string]int{}
	areaRank := map[string]int{}
	var order []string
	for _, h := range r.Hosts {
		for _, c := range h.Cases {
			if _, ok := rowOf[c.ID]; ok {
				continue
			}
			rowOf[c.ID] = 0
			if _, ok := areaRank[c.Area()]; !ok {
				areaRank[c.Area()] = len(areaRank)
			}
			order = append(order, c.ID)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return areaRank[areaOf(order[a])] < areaRank[areaOf(order[b])] })
	for i, id := range order {
		rowOf[id] = i
	}
	d.Rows = make([]htmlRow, len(order))
	for i := range d.Rows {
		d.Rows[i].Cells = make([]*htmlCell, len(r.Hosts))
		d.Rows[i].SpecLinks = []htmlLink{}
	}
	for hi, h := range r.Hosts {
		base, compared := compareBase(h.Host, opt.Compare)
		j := h.Judged()
		hh := htmlHost{hostMeta: hostMetaOf(h, hostDuration(h), sanitize), Summary: h.Tally(), Judged: j, JudgedLine: j.String()}
		var must []Case
		for _, c := range h.Cases {
			if c.Clause == protocol.ClauseMust || c.Clause == protocol.ClauseMustNot {
				must = append(must, c)
			}
		}
		mj := JudgedOf(must)
		hh.MustJudged, hh.MustPassed = mj.Judged, mj.Pass
		if h.Video != "" {
			hh.Video = ev.video(h.Video)
		}
		if compared != nil {
			d.Compared = true
			hh.ComparedWith = jsonTime(compared.StartedAt)
			if hh.ComparedWith == "" {
				hh.ComparedWith = "unknown"
			}
		}
		for _, c := range h.Cases {
			row := &d.Rows[rowOf[c.ID]]
			if row.ID == "" {
				_, _, quote := splitCite(sanitize(c.Message))
				*row = htmlRow{
					ID: sanitize(c.ID), Name: sanitize(c.Name), Area: sanitize(c.Area()), Clause: sanitize(string(c.Clause)),
					Edition: sanitize(string(c.Edition)), SpecRef: sanitize(c.SpecRef), SpecLinks: specLinks(c),
					Quote: quote, Cells: row.Cells,
				}
			}
			if row.Quote == "" {
				_, _, row.Quote = splitCite(sanitize(c.Message))
			}
			o := c.Outcome()
			cell := &htmlCell{
				Kind: cellKind(c), Status: sanitize(string(c.Status)), Outcome: string(o), ReasonCode: c.ReasonCode(),
				DurationMs: jsonMs(c.Duration), Attempts: c.Attempts, Retried: c.Flaky, Evidence: []htmlEvidence{},
			}
			cell.Message, _, _ = splitCite(reason(h, c))
			for _, b := range c.BlockedBy {
				cell.BlockedBy = append(cell.BlockedBy, sanitize(b))
			}
			cell.Message = truncate(cell.Message, htmlMaxMessage)
			if c.Expect != nil {
				cell.Expectations = "expected to fail"
				if len(c.Expect.Allow) > 0 {
					cell.Expectations = "allows " + allowList(c.Expect)
				}
				if why := oneLine(sanitize(c.Expect.Reason)); why != "" {
					cell.Expectations += ": " + why
				}
			}
			if base != nil {
				if old, ok := base[c.ID]; ok {
					cell.Was = cellKind(old)
					cell.Change = change(old, c)
				} else {
					cell.Change = "new"
				}
				if cell.Change == "regressed" || cell.Change == "fixed" {
					d.Changes = append(d.Changes, htmlChange{Host: hh.Host, ID: row.ID, Change: cell.Change, Was: cell.Was, Now: cell.Kind})
				}
			}
			for _, p := range c.Evidence {
				cell.Evidence = append(cell.Evidence, ev.read(p))
			}
			if at, ok := h.VideoOffset(c); ok {
				v := jsonMs(at)
				cell.VideoAtMs = &v
			}
			row.Cells[hi] = cell
		}
		d.Hosts = append(d.Hosts, hh)
	}
	for i := range d.Rows {
		kinds := map[string]bool{}
		for _, c := range d.Rows[i].Cells {
			if c != nil {
				kinds[c.Kind] = true
			}
		}
		d.Rows[i].Disagree = len(kinds) > 1
	}
	d.Coverage = htmlCoverageOf(r)
	return d, ev.images
}

// cellKind is what a cell shows: the status, or the baseline's reading of
// it where that differs (XFAIL, STALE, FLAKY).
func cellKind(c Case) string {
	switch c.Outcome() {
	case OutcomeExpectedFail:
		return "XFAIL"
	case OutcomeStale:
		return "STALE"
	case OutcomeFlaky:
		return "FLAKY"
	}
	return sanitize(string(c.Status))
}

// change says how a case moved since the earlier run: regressed (it passed
// and now fails, times out or errors), fixed (the reverse), changed (any
// other difference of what the cell shows) or "".
func change(old, now Case) string {
	switch {
	case old.Status == protocol.StatusPass && isFailure(now.Status):
		return "regressed"
	case isFailure(old.Status) && now.Status == protocol.StatusPass:
		return "fixed"
	case cellKind(old) != cellKind(now):
		return "changed"
	}
	return ""
}

// compareBase finds host in the earlier runs: its cases by id and its run.
func compareBase(host string, runs []Run) (map[string]Case, *HostRun) {
	for _, r := range runs {
		for i := range r.Hosts {
			if r.Hosts[i].Host == host {
				m := map[string]Case{}
				for _, c := range r.Hosts[i].Cases {
					m[c.ID] = c
				}
				return m, &r.Hosts[i]
			}
		}
	}
	return nil, nil
}

// citeRE matches the citation the suite appends to a verdict's message:
// ` [spec <specRef>: "<the spec sentence>"]`.
var citeRE = regexp.MustCompile(`(?s)\s*\[spec ([^\]"]*): "(.*)"\]\s*$`)

// splitCite cuts the suite's citation off a message: the message, the spec
// reference and the quoted sentence ("" when there is none).
func splitCite(msg string) (string, string, string) {
	m := citeRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg, "", ""
	}
	return msg[:m[0]], msg[m[2]:m[3]], msg[m[4]:m[5]]
}

// SpecBase is where the spec's editions live; a spec reference's line
// numbers link into specification/<edition>/apps.mdx there.
const SpecBase = "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/"

var (
	specLineRE  = regexp.MustCompile(`\bL(\d+)(?:\s*[-–]\s*L?(\d+))?`)
	extAppsRE   = regexp.MustCompile(`\bext-apps #(\d+)`)
	specPartsRE = regexp.MustCompile(`\s*;\s*`)
)

// specLinks links a check's spec reference: each part naming lines (L533,
// L533-600) to those lines of the spec edition it cites ("draft §..." or
// the check's edition), each "ext-apps #N" to that issue.
func specLinks(c Case) []htmlLink {
	links := []htmlLink{}
	for _, part := range specPartsRE.Split(strings.TrimSpace(sanitize(c.SpecRef)), -1) {
		if part == "" {
			continue
		}
		if m := extAppsRE.FindStringSubmatch(part); m != nil {
			links = append(links, htmlLink{Text: part, URL: "https://github.com/modelcontextprotocol/ext-apps/issues/" + m[1]})
			continue
		}
		m := specLineRE.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		ed := string(c.Edition)
		if strings.HasPrefix(part, "draft ") || strings.HasPrefix(part, "draft§") {
			ed = string(protocol.EditionDraft)
		}
		if ed != string(protocol.EditionStable) && ed != string(protocol.EditionDraft) {
			ed = string(protocol.EditionStable)
		}
		frag := "#L" + m[1]
		if m[2] != "" {
			frag += "-L" + m[2]
		}
		links = append(links, htmlLink{Text: part, URL: SpecBase + ed + "/apps.mdx" + frag})
	}
	return links
}
