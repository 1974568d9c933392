package browser

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestPrepareFFmpeg: a system FFmpeg with the VP9 encoder is linked into a
// private browsers directory in Playwright's layout; one without it, or
// none, is ErrNoFFmpeg; Playwright's own build, where present, is used as
// it is.
func TestPrepareFFmpeg(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("fake ffmpeg scripts are shell scripts")
	}
	dir := t.TempDir()
	drv := filepath.Join(dir, "driver")
	os.MkdirAll(filepath.Join(drv, "package"), 0o755)
	os.WriteFile(filepath.Join(drv, "package", "browsers.json"), []byte(`{"browsers":[{"name":"chromium","revision":"1"},{"name":"ffmpeg","revision":"1013"}]}`), 0o644)
	t.Setenv("PLAYWRIGHT_BROWSERS_PATH", filepath.Join(dir, "pw"))
	script := func(name, out string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("#!/bin/sh\necho '"+out+"'\n"), 0o755)
		return p
	}

	good := script("ffmpeg-good", " V....D libvpx-vp9           libvpx VP9")
	t.Setenv(EnvFFmpeg, good)
	scratch := filepath.Join(dir, "scratch")
	got, err := prepareFFmpeg(drv, scratch)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(got, "ffmpeg-1013", "ffmpeg-linux")
	if target, err := os.Readlink(link); err != nil || target != good {
		t.Errorf("link %s → %q (%v), want %s", link, target, err, good)
	}

	t.Setenv(EnvFFmpeg, script("ffmpeg-novp9", " V....D libx264"))
	if _, err := prepareFFmpeg(drv, filepath.Join(dir, "s2")); !errors.Is(err, ErrNoFFmpeg) {
		t.Errorf("FFmpeg without VP9: %v, want ErrNoFFmpeg", err)
	}
	t.Setenv(EnvFFmpeg, filepath.Join(dir, "missing"))
	if _, err := prepareFFmpeg(drv, filepath.Join(dir, "s3")); !errors.Is(err, ErrNoFFmpeg) {
		t.Errorf("no FFmpeg: %v, want ErrNoFFmpeg", err)
	}

	own := filepath.Join(dir, "pw", "ffmpeg-1013", "ffmpeg-linux")
	os.MkdirAll(filepath.Dir(own), 0o755)
	os.WriteFile(own, []byte("x"), 0o755)
	if got, err := prepareFFmpeg(drv, filepath.Join(dir, "s4")); err != nil || got != "" {
		t.Errorf("with Playwright's FFmpeg: %q, %v; want the user's browsers directory kept", got, err)
	}
}

func TestWithBrowsersPathRestores(t *testing.T) {
	t.Setenv("PLAYWRIGHT_BROWSERS_PATH", "/before")
	seen := ""
	withBrowsersPath("/during", func() error { seen = os.Getenv("PLAYWRIGHT_BROWSERS_PATH"); return nil })
	if seen != "/during" || os.Getenv("PLAYWRIGHT_BROWSERS_PATH") != "/before" {
		t.Errorf("during %q, after %q", seen, os.Getenv("PLAYWRIGHT_BROWSERS_PATH"))
	}
}
