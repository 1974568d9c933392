package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// videoRun is one host with a video and two cases that started 1.5 s and
// 4.25 s into it, and a third whose start is unknown.
func videoRun(video string) Run {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	c := func(id string, st protocol.Status, at time.Duration) Case {
		k := Case{TestMeta: protocol.TestMeta{ID: id, Name: id, Clause: protocol.ClauseMust}, Status: st, Duration: 200 * time.Millisecond}
		if at >= 0 {
			k.StartedAt = t0.Add(at)
		}
		return k
	}
	return Run{Tool: "mcpconform", Version: "test", StartedAt: t0, Hosts: []HostRun{{
		Host: "reference", StartedAt: t0.Add(-time.Second), Video: video, VideoStartedAt: t0,
		Cases: []Case{c("a/one", protocol.StatusPass, 1500*time.Millisecond), c("a/two", protocol.StatusFail, 4250*time.Millisecond), c("a/three", protocol.StatusPass, -1)},
	}}}
}

func TestVideoOffset(t *testing.T) {
	h := videoRun("v.webm").Hosts[0]
	if at, ok := h.VideoOffset(h.Cases[1]); !ok || at != 4250*time.Millisecond {
		t.Errorf("offset %v %v, want 4.25s", at, ok)
	}
	if _, ok := h.VideoOffset(h.Cases[2]); ok {
		t.Error("a case without a start has an offset")
	}
	early := h.Cases[0]
	early.StartedAt = h.VideoStartedAt.Add(-time.Second)
	if at, ok := h.VideoOffset(early); !ok || at != 0 {
		t.Errorf("a case started before the video: %v %v, want 0", at, ok)
	}
	h.Video = ""
	if _, ok := h.VideoOffset(h.Cases[0]); ok {
		t.Error("a host without a video has offsets")
	}
}

func TestJSONVideoFields(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, videoRun("ev/reference/video.webm")); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hosts []struct {
			Video *string `json:"video"`
			Cases []struct {
				StartedAtMs *float64 `json:"startedAtMs"`
			} `json:"cases"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	h := doc.Hosts[0]
	if h.Video == nil || *h.Video != "ev/reference/video.webm" {
		t.Errorf("video %v", h.Video)
	}
	if h.Cases[0].StartedAtMs == nil || *h.Cases[0].StartedAtMs != 1500 || h.Cases[1].StartedAtMs == nil || *h.Cases[1].StartedAtMs != 4250 {
		t.Errorf("startedAtMs %v %v, want 1500 and 4250", h.Cases[0].StartedAtMs, h.Cases[1].StartedAtMs)
	}
	if h.Cases[2].StartedAtMs != nil {
		t.Errorf("a case without a start has startedAtMs %v", *h.Cases[2].StartedAtMs)
	}

	// The schema accepts the new fields and still holds the old ones.
	if err := validateResults(t, buf.Bytes()); err != nil {
		t.Errorf("does not match the schema: %v", err)
	}
	bad := strings.Replace(buf.String(), `"startedAtMs": 1500`, `"startedAtMs": -3`, 1)
	if validateResults(t, []byte(bad)) == nil {
		t.Error("schema accepts a negative startedAtMs")
	}

	// Read back, the offsets survive: written again, the same document.
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteJSON(&again, back); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Errorf("round trip differs:\n%s\nwant\n%s", again.String(), buf.String())
	}

	// Without a video, neither field appears: existing documents are unchanged.
	buf.Reset()
	WriteJSON(&buf, videoRun(""))
	if strings.Contains(buf.String(), `"video"`) || strings.Contains(buf.String(), `"startedAtMs"`) {
		t.Errorf("a run without video has video fields:\n%s", buf.String())
	}
}

func TestJUnitAndMarkdownLinkTheVideo(t *testing.T) {
	r := videoRun("ev/ref (1)/video.webm")
	var x bytes.Buffer
	if err := WriteJUnit(&x, r, JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(x.String(), `<property name="video" value="ev/ref (1)/video.webm">`) {
		t.Errorf("JUnit has no video property:\n%s", x.String())
	}
	var m bytes.Buffer
	if err := WriteMarkdown(&m, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.String(), "[video.webm](ev/ref%20%281%29/video.webm)") {
		t.Errorf("Markdown has no escaped video link:\n%s", m.String())
	}
	x.Reset()
	m.Reset()
	WriteJUnit(&x, videoRun(""), JUnitOptions{})
	WriteMarkdown(&m, videoRun(""))
	if strings.Contains(x.String(), `name="video"`) || strings.Contains(m.String(), "Video of") {
		t.Error("a run without video links one")
	}
}

func TestHTMLVideoEmbeddedOrLinked(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.webm")
	os.WriteFile(small, append([]byte{0x1a, 0x45, 0xdf, 0xa3}, bytes.Repeat([]byte{7}, 2000)...), 0o644)
	big := filepath.Join(dir, "big.webm")
	os.WriteFile(big, append([]byte{0x1a, 0x45, 0xdf, 0xa3}, bytes.Repeat([]byte{7}, 5000)...), 0o644)
	notWebM := filepath.Join(dir, "fake.webm")
	os.WriteFile(notWebM, []byte("<html>not a video</html>"), 0o644)

	page := func(video string) (htmlData, []htmlImage) {
		return htmlModel(videoRun(video), HTMLOptions{MaxVideoBytes: 4096})
	}
	d, media := page(small)
	v := d.Hosts[0].Video
	if v == nil || v.Media == "" || len(media) != 1 || media[0].id != v.Media || !strings.HasPrefix(media[0].uri, "data:video/webm;base64,GkXfo") {
		t.Fatalf("small video not embedded: %+v, %d media", v, len(media))
	}
	if at := d.Rows[1].Cells[0].VideoAtMs; at == nil || *at != 4250 {
		t.Errorf("cell offset %v, want 4250", at)
	}
	if d.Rows[2].Cells[0].VideoAtMs != nil {
		t.Error("a cell without a start has an offset")
	}
	for video, note := range map[string]string{big: "over the 4096-byte limit", notWebM: "not a WebM", filepath.Join(dir, "gone.webm"): "not found"} {
		d, media := page(video)
		v := d.Hosts[0].Video
		if v == nil || v.Media != "" || len(media) != 0 || !strings.Contains(v.Note, note) || v.Path != video {
			t.Errorf("%s: %+v, want it linked with a note %q", filepath.Base(video), v, note)
		}
	}
	d, _ = page("")
	if d.Hosts[0].Video != nil || d.Rows[0].Cells[0].VideoAtMs != nil {
		t.Error("a run without video has a player")
	}
	var out bytes.Buffer
	if err := WriteHTML(&out, videoRun(small), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "media-src data:") || !strings.Contains(out.String(), `id="video-1">data:video/webm;base64,`) {
		t.Error("the page neither allows nor holds the embedded video")
	}
}
