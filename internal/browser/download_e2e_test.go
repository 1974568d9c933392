package browser

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Where no browser is found and Playwright's download is unreachable,
// Launch fails with ErrNoBrowser naming what to install, what it searched
// and where it tried to download; the download went to the loopback
// server only, never to a real download host.
func TestLaunchWithoutBrowserAndUnreachableDownload(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			requests, tw, dir := offlineDownload(t, status)
			var logged []string
			br, err := Launch(Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
			if err == nil {
				br.Close()
				t.Fatal("Launch found or installed a browser although none was there and the download answered " + http.StatusText(status))
			}
			if !errors.Is(err, ErrNoBrowser) {
				t.Fatalf("want ErrNoBrowser, got %v", err)
			}
			msg := err.Error()
			t.Log(msg)
			for _, want := range []string{"no Chromium found", "apt-get install chromium", "--browser", "MCPCONFORM_BROWSER",
				systemBrowsers[0], dir, "downloading Playwright's Chromium into " + dir + " failed"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %q:\n%s", want, msg)
				}
			}
			paths := requests()
			if len(paths) == 0 {
				t.Fatalf("the download never reached the loopback server; error:\n%s", msg)
			}
			for _, p := range paths {
				if !strings.Contains(p, "chrom") {
					t.Errorf("the loopback server was asked for %q, not a Chromium build", p)
				}
			}
			if seen := tw.seen(); len(seen) != 0 {
				t.Errorf("something tried to leave the machine (through the tripwire proxy): %q", seen)
			}
			if !strings.Contains(strings.Join(logged, "\n"), EnvNoBrowserDownload) {
				t.Errorf("the log line before the download does not say how to turn it off: %q", logged)
			}
			if b := playwrightChromium(dir); b != "" {
				t.Errorf("a failed download left a Chromium that counts as installed: %s", b)
			}
		})
	}
}

// MCPCONFORM_NO_BROWSER_DOWNLOAD=1: no download is tried, and the error
// says so.
func TestLaunchWithoutBrowserDownloadOff(t *testing.T) {
	requests, tw, dir := offlineDownload(t, http.StatusNotFound)
	t.Setenv(EnvNoBrowserDownload, "1")
	br, err := Launch(Options{})
	if err == nil {
		br.Close()
		t.Fatal("Launch found a browser although none was there")
	}
	if !errors.Is(err, ErrNoBrowser) {
		t.Fatalf("want ErrNoBrowser, got %v", err)
	}
	for _, want := range []string{"apt-get install chromium", "--browser", dir, EnvNoBrowserDownload + " is set"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if got := requests(); len(got) != 0 {
		t.Errorf("a download was tried although %s=1: %q", EnvNoBrowserDownload, got)
	}
	if seen := tw.seen(); len(seen) != 0 {
		t.Errorf("something tried to leave the machine: %q", seen)
	}
}

// The whole fetch path on loopback: no browser found, the driver's
// installer downloads "Playwright's Chromium" from a loopback server (a zip
// whose chrome starts this machine's real Chromium), Launch finds it in
// the browsers directory and launches it; a second Launch finds it there
// without downloading again.
func TestLaunchDownloadsPlaywrightChromium(t *testing.T) {
	real := requireBrowser(t)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the served zip has the linux64 layout")
	}
	// The installer fetches Chromium and FFmpeg; each zip holds the
	// executable where playwright-core looks for it.
	zipOf := func(name, content string) []byte {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		hdr := &zip.FileHeader{Name: name, Method: zip.Deflate}
		hdr.SetMode(0o755)
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, content)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	chromeZip := zipOf("chrome-linux64/chrome", fmt.Sprintf("#!/bin/sh\nexec %s \"$@\"\n", real))
	ffmpegZip := zipOf("ffmpeg-linux", "#!/bin/sh\nexit 1\n")
	var mu sync.Mutex
	var served []string
	requests, tw, dir := offlineDownload(t, http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served = append(served, r.URL.Path)
		mu.Unlock()
		body := chromeZip
		if strings.Contains(r.URL.Path, "ffmpeg") {
			body = ffmpegZip
		}
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	t.Setenv("PLAYWRIGHT_DOWNLOAD_HOST", srv.URL)

	br, err := Launch(Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "chromium-1248", "chrome-linux64", "chrome")
	if br.Paths.Browser != want {
		t.Errorf("launched %s, want the downloaded %s", br.Paths.Browser, want)
	}
	if !strings.HasPrefix(br.Version(), "Chromium ") {
		t.Errorf("version %q", br.Version())
	}
	br.Close()
	if got := requests(); len(got) != 0 {
		t.Errorf("the 200 stand-in server was replaced, yet got %q", got)
	}
	if seen := tw.seen(); len(seen) != 0 {
		t.Errorf("something tried to leave the machine: %q", seen)
	}
	mu.Lock()
	if len(served) == 0 || !strings.Contains(served[0], "chrome-linux64.zip") {
		t.Errorf("the loopback server served %q, not a Chromium build first", served)
	}
	mu.Unlock()
	// Found again, not downloaded again.
	srv.Close()
	p, err := Locate(Paths{})
	if err != nil || p.Browser != want {
		t.Fatalf("Locate after the download: %q, %v; want %q", p.Browser, err, want)
	}
}
