package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
)

// evidenceReader reads the evidence files a run wrote, once each, within
// the page's limits.
type evidenceReader struct {
	dirs                 []string
	maxImg, maxTxt, left int64
	maxVideo             int64
	images               []htmlImage
	imageID              map[string]string // sha256 of the file → element id
}

func newEvidenceReader(opt HTMLOptions) *evidenceReader {
	e := &evidenceReader{dirs: opt.EvidenceDirs, maxImg: opt.MaxImageBytes, maxTxt: opt.MaxTextBytes, left: opt.MaxTotalBytes, imageID: map[string]string{}}
	if e.maxImg <= 0 {
		e.maxImg = HTMLMaxImageBytes
	}
	if e.maxTxt <= 0 {
		e.maxTxt = HTMLMaxTextBytes
	}
	if e.left <= 0 {
		e.left = HTMLMaxTotalBytes
	}
	e.maxVideo = opt.MaxVideoBytes
	if e.maxVideo <= 0 {
		e.maxVideo = HTMLMaxVideoBytes
	}
	if len(e.dirs) == 0 {
		e.dirs = []string{"."}
	}
	return e
}

// find locates an evidence file: the path as recorded, else under each of
// the EvidenceDirs, first whole (a relative path), then with leading
// directories dropped, keeping at least the host's folder and the file's
// name. So results and evidence downloaded elsewhere (a CI artifact of
// mcpconform-results/reference/) are found: the path recorded on the runner,
// mcpconform-results/reference/evidence/reference/x.png, is looked for as
// evidence/reference/x.png, then reference/x.png, under each directory.
func (e *evidenceReader) find(p string) (string, bool) {
	if filepath.IsAbs(p) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	parts := strings.FieldsFunc(filepath.ToSlash(p), func(r rune) bool { return r == '/' })
	keep := min(2, len(parts))
	for _, d := range e.dirs {
		for i := 0; i <= len(parts)-keep; i++ {
			if i == 0 && filepath.IsAbs(p) {
				continue
			}
			q := filepath.Join(append([]string{d}, parts[i:]...)...)
			if st, err := os.Stat(q); err == nil && !st.IsDir() {
				return q, true
			}
		}
	}
	return p, false
}

// video embeds the WebM file p as a data: URI when it is small enough
// and within the page's budget; else the page links it by its path.
func (e *evidenceReader) video(p string) *htmlVideo {
	v := &htmlVideo{Path: oneLine(sanitize(p))}
	path, size, note := e.stat(p)
	if note == "" {
		note = e.fits(size, e.maxVideo, size*4/3)
	}
	if note != "" {
		v.Note = note
		return v
	}
	b, err := os.ReadFile(path)
	if err != nil {
		v.Note = unreadable(err)
		return v
	}
	if !bytes.HasPrefix(b, webmMagic) {
		v.Note = "not embedded: not a WebM file"
		return v
	}
	v.Media = "video-" + strconv.Itoa(len(e.images)+1)
	e.embed(v.Media, "video/webm", b)
	return v
}

// stat finds evidence file p and its size; note says why it cannot be
// used, "" when it can.
func (e *evidenceReader) stat(p string) (path string, size int64, note string) {
	path, ok := e.find(p)
	if !ok {
		return "", 0, "not found where the report was written"
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, unreadable(err)
	}
	return path, st.Size(), ""
}

// fits says why a file of size bytes, over limit or costing cost bytes of
// the page's budget, is not embedded; "" when it is.
func (e *evidenceReader) fits(size, limit, cost int64) string {
	if size > limit {
		return fmt.Sprintf("not embedded: %d bytes, over the %d-byte limit", size, limit)
	}
	if cost > e.left {
		return "not embedded: the page's evidence budget is spent"
	}
	return ""
}

// embed adds b to the page as the data: URI of element id, out of the
// budget.
func (e *evidenceReader) embed(id, mime string, b []byte) {
	uri := "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
	e.images = append(e.images, htmlImage{id: id, uri: uri})
	e.left -= int64(len(uri))
}

func unreadable(err error) string { return "unreadable: " + sanitize(err.Error()) }

// webmMagic starts every WebM (Matroska EBML) file.
var webmMagic = []byte{0x1a, 0x45, 0xdf, 0xa3}

func (e *evidenceReader) read(p string) htmlEvidence {
	clean := oneLine(sanitize(p))
	ev := htmlEvidence{Kind: "file", Name: filepath.Base(clean), Path: clean}
	lower := strings.ToLower(p)
	switch {
	case strings.HasSuffix(lower, ".png"):
		ev.Kind = "screenshot"
	case strings.HasSuffix(lower, ".jsonrpc.json"):
		ev.Kind = "jsonrpc"
	case strings.HasSuffix(lower, ".console.txt"):
		ev.Kind = "console"
	default:
		return ev
	}
	path, size, note := e.stat(p)
	// A screenshot over its limit is not shown; a text is cut to its tail.
	limit, hard := e.maxTxt, int64(math.MaxInt64)
	if ev.Kind == "screenshot" {
		limit, hard = e.maxImg, e.maxImg
	}
	if note == "" {
		note = e.fits(size, hard, min(size, limit))
	}
	if note != "" {
		ev.Note = note
		return ev
	}
	b, err := readTail(path, limit)
	if err != nil {
		ev.Note = unreadable(err)
		return ev
	}
	cut := size > int64(len(b))
	switch ev.Kind {
	case "screenshot":
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			ev.Note = "not embedded: not a PNG file"
			return ev
		}
		sum := sha256.Sum256(b)
		key := hex.EncodeToString(sum[:])
		id, seen := e.imageID[key]
		if !seen {
			id = "img-" + strconv.Itoa(len(e.images)+1)
			e.embed(id, "image/png", b)
			e.imageID[key] = id
		}
		ev.Image = id
	case "jsonrpc":
		e.left -= int64(len(b))
		var entries []struct {
			At  float64         `json:"at"`
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if !cut && json.Unmarshal(b, &entries) == nil {
			ev.Lines = []htmlLogLine{}
			for _, en := range entries {
				var msg bytes.Buffer
				if json.Compact(&msg, en.Msg) != nil {
					msg.Reset()
					msg.Write(en.Msg)
				}
				text := msg.String()
				var s string
				if json.Unmarshal(en.Msg, &s) == nil {
					text = s // a message the suite cut to a string
				}
				ev.Lines = append(ev.Lines, htmlLogLine{At: en.At, Dir: sanitize(en.Dir), Msg: sanitize(text)})
			}
		} else {
			ev.Text = sanitize(validUTF8Tail(b))
		}
	case "console":
		e.left -= int64(len(b))
		ev.Text = sanitize(validUTF8Tail(b))
	}
	if cut {
		ev.Note = fmt.Sprintf("cut to its last %d of %d bytes", len(b), size)
	}
	return ev
}

// readTail reads the file, or its last n bytes when it is longer.
func readTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > n {
		if _, err := f.Seek(st.Size()-n, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n))
}

// validUTF8Tail drops a rune cut in half at the start of a tail.
func validUTF8Tail(b []byte) string {
	for i := 0; i < 3 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return string(b)
}

func areaOf(id string) string { return protocol.TestMeta{ID: id}.Area() }
