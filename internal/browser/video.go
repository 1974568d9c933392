package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrNoFFmpeg means video recording was asked for and no FFmpeg that can
// encode VP9 WebM was found.
var ErrNoFFmpeg = errors.New("--video needs FFmpeg with the VP9 encoder (libvpx-vp9): install Debian's ffmpeg (apt-get install ffmpeg) or set MCPCONFORM_FFMPEG to an ffmpeg binary")

// EnvFFmpeg names an ffmpeg binary for video recording.
const EnvFFmpeg = "MCPCONFORM_FFMPEG"

// ffmpegExecutables are where playwright-core looks for its FFmpeg inside
// <browsers dir>/ffmpeg-<revision> (its EXECUTABLE_PATHS.ffmpeg).
var ffmpegExecutables = map[string]string{
	"linux":   "ffmpeg-linux",
	"darwin":  "ffmpeg-mac",
	"windows": "ffmpeg-win64.exe",
}

// ffmpegRevision is the revision of the FFmpeg build the installed driver
// expects, from its browsers.json.
func ffmpegRevision(driverDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(driverDir, "package", "browsers.json"))
	if err != nil {
		return "", err
	}
	var bj struct {
		Browsers []struct{ Name, Revision string }
	}
	if err := json.Unmarshal(b, &bj); err != nil {
		return "", fmt.Errorf("reading %s: %w", filepath.Join(driverDir, "package", "browsers.json"), err)
	}
	for _, x := range bj.Browsers {
		if x.Name == "ffmpeg" && x.Revision != "" {
			return x.Revision, nil
		}
	}
	return "", errors.New("the driver's browsers.json names no ffmpeg revision")
}

// prepareFFmpeg makes sure the driver finds an FFmpeg to record videos
// with. Playwright records through its own FFmpeg build, which it would
// download into <browsers dir>/ffmpeg-<revision>; where that is missing, a
// system FFmpeg (MCPCONFORM_FFMPEG, else ffmpeg on PATH) that has the VP9
// encoder is linked into a private browsers directory under scratch in
// Playwright's layout. It returns the browsers directory the driver must
// be started with ("" to keep the user's), or ErrNoFFmpeg.
func prepareFFmpeg(driverDir, scratch string) (string, error) {
	rev, err := ffmpegRevision(driverDir)
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrNoFFmpeg, err)
	}
	exe := ffmpegExecutables[runtime.GOOS]
	if exe == "" {
		return "", fmt.Errorf("%w (no FFmpeg layout known for %s)", ErrNoFFmpeg, runtime.GOOS)
	}
	own := filepath.Join(playwrightBrowsersDir(driverDir), "ffmpeg-"+rev, exe)
	if st, err := os.Stat(own); err == nil && !st.IsDir() {
		return "", nil
	}
	bin, err := systemFFmpeg()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(scratch, "browsers")
	if err := os.MkdirAll(filepath.Join(dir, "ffmpeg-"+rev), 0o755); err != nil {
		return "", err
	}
	if err := os.Symlink(bin, filepath.Join(dir, "ffmpeg-"+rev, exe)); err != nil {
		return "", fmt.Errorf("linking %s for Playwright: %w", bin, err)
	}
	return dir, nil
}

// systemFFmpeg finds an ffmpeg binary and checks that it can encode VP9,
// the codec of Playwright's WebM videos.
func systemFFmpeg() (string, error) {
	bin := os.Getenv(EnvFFmpeg)
	if bin == "" {
		p, err := exec.LookPath("ffmpeg")
		if err != nil {
			return "", fmt.Errorf("%w (no ffmpeg on PATH)", ErrNoFFmpeg)
		}
		bin = p
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	out, err := exec.Command(abs, "-hide_banner", "-encoders").Output()
	if err != nil {
		return "", fmt.Errorf("%w (%s -encoders: %v)", ErrNoFFmpeg, abs, err)
	}
	if !strings.Contains(string(out), "libvpx-vp9") {
		return "", fmt.Errorf("%w (%s has no libvpx-vp9 encoder)", ErrNoFFmpeg, abs)
	}
	return abs, nil
}

// withBrowsersPath runs start with PLAYWRIGHT_BROWSERS_PATH set to dir (the
// driver started there inherits it), then restores the variable, so that
// this process keeps finding browsers where it did. An empty dir changes
// nothing.
func withBrowsersPath(dir string, start func() error) error {
	if dir == "" {
		return start()
	}
	old, had := os.LookupEnv("PLAYWRIGHT_BROWSERS_PATH")
	os.Setenv("PLAYWRIGHT_BROWSERS_PATH", dir)
	defer func() {
		if had {
			os.Setenv("PLAYWRIGHT_BROWSERS_PATH", old)
		} else {
			os.Unsetenv("PLAYWRIGHT_BROWSERS_PATH")
		}
	}()
	return start()
}
