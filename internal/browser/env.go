// Package bridge connects the Go runner to the suite inside the app iframe:
// it installs and starts the Playwright driver, launches Chromium, finds the
// app frame and talks to window.__mcpConformance there without ever giving
// the frame a user gesture.
package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
)

// DriverVersion is the playwright-core version playwright-go v0.6401.0 drives.
const DriverVersion = "1.64.1"

// Sentinel errors; each message says what to install or set.
var (
	ErrNoNode    = errors.New("no Node.js >= 20 found: install Debian's nodejs (or Node 20+) or set PLAYWRIGHT_NODEJS_PATH / --node to its path")
	ErrNoBrowser = errors.New("no Chromium found: install it (Debian/Ubuntu: apt-get install chromium) or set MCPCONFORM_BROWSER / --browser to its path")
	ErrDriver    = errors.New("the Playwright driver could not be installed or started")
)

// EnvNoBrowserDownload, set to 1, keeps Launch from downloading
// Playwright's Chromium when no browser is found.
const EnvNoBrowserDownload = "MCPCONFORM_NO_BROWSER_DOWNLOAD"

// systemBrowsers are the places a system Chromium or Chrome is looked for,
// the real binary first: Debian's /usr/bin/chromium is a shell wrapper that
// adds flags and prints noise. Tests replace it to hide the system browser.
var systemBrowsers = []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}

// Paths says where the pieces live. Zero fields are found automatically.
type Paths struct {
	Node      string // Node.js binary for the driver
	Browser   string // Chromium binary
	DriverDir string // where playwright-core is unpacked
}

// Locate fills the zero fields of p from flags, environment and well-known
// places, and checks what it finds. The browser is, in this order: the
// explicit path (--browser, MCPCONFORM_BROWSER), a system Chromium or Chrome
// (systemBrowsers), Playwright's Chromium already in its browsers
// directory. Locate downloads nothing: where no browser is found it returns
// ErrNoBrowser, while Launch then downloads Playwright's Chromium.
func Locate(p Paths) (Paths, error) {
	p, err := locate(p)
	if err == nil && p.Browser == "" {
		err = noBrowser(p, "")
	}
	return p, err
}

// locate is Locate that leaves Browser empty, without error, where no
// browser is found.
func locate(p Paths) (Paths, error) {
	var err error
	if p.Node, err = findNode(p.Node); err != nil {
		return p, err
	}
	p.DriverDir = driverDir(p.DriverDir)
	if p.Browser, err = findBrowser(p.Browser, p.DriverDir); err != nil {
		return p, err
	}
	return p, nil
}

func findNode(explicit string) (string, error) {
	cands := []string{explicit, os.Getenv("PLAYWRIGHT_NODEJS_PATH")}
	if lp, err := exec.LookPath("node"); err == nil {
		cands = append(cands, lp)
	}
	cands = append(cands, "/usr/bin/node", "/usr/local/bin/node")
	var tried []string
	for _, c := range cands {
		if c == "" {
			continue
		}
		major, err := nodeMajor(c)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		if major < 20 {
			tried = append(tried, fmt.Sprintf("%s (version %d)", c, major))
			continue
		}
		return c, nil
	}
	if explicit != "" || len(tried) > 0 {
		return "", fmt.Errorf("%w; tried %s", ErrNoNode, strings.Join(tried, ", "))
	}
	return "", ErrNoNode
}

var nodeVersion = regexp.MustCompile(`^v(\d+)\.`)

func nodeMajor(path string) (int, error) {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return 0, err
	}
	m := nodeVersion.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return 0, fmt.Errorf("unexpected version %q", strings.TrimSpace(string(out)))
	}
	return strconv.Atoi(m[1])
}

// driverDir is dir, else PLAYWRIGHT_DRIVER_PATH, else mcpconform's
// folder for this DriverVersion in the user cache directory.
func driverDir(dir string) string {
	if dir == "" {
		dir = os.Getenv("PLAYWRIGHT_DRIVER_PATH")
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir = filepath.Join(cache, "mcpconform", "driver-"+DriverVersion)
	}
	return dir
}

// explicitBrowser is the browser the user named: path (--browser), else
// MCPCONFORM_BROWSER, else "". Launch runs it as given (no headless shell).
func explicitBrowser(path string) string {
	if path == "" {
		path = os.Getenv("MCPCONFORM_BROWSER")
	}
	return path
}

// findBrowser returns the explicit browser (an error if it is missing),
// else the first system browser, else Playwright's newest complete
// Chromium, else "".
func findBrowser(explicit, driverDir string) (string, error) {
	explicit = explicitBrowser(explicit)
	if explicit != "" {
		if st, err := os.Stat(explicit); err != nil || st.IsDir() {
			return "", fmt.Errorf("%w: %s does not exist", ErrNoBrowser, explicit)
		}
		return explicit, nil
	}
	for _, c := range systemBrowsers {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return playwrightChromium(playwrightBrowsersDir(driverDir)), nil
}

// playwrightBrowsersDir is where the Playwright driver keeps and installs
// browsers: PLAYWRIGHT_BROWSERS_PATH ("0": inside the driver), else
// ms-playwright in the user cache directory (~/.cache/ms-playwright on
// Linux, following XDG_CACHE_HOME), as playwright-core computes it.
func playwrightBrowsersDir(driverDir string) string {
	d := os.Getenv("PLAYWRIGHT_BROWSERS_PATH")
	switch d {
	case "0":
		d = filepath.Join(driverDir, "package", ".local-browsers")
	case "":
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		d = filepath.Join(cache, "ms-playwright")
	}
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return d
}

// chromiumRevision names Playwright's Chromium directories (chromium-1248);
// chromium-headless-shell-* and chromium-tip-of-tree-* do not match.
var chromiumRevision = regexp.MustCompile(`^chromium-(\d+)$`)

// chromiumExecutables are where the binary sits inside such a directory,
// per platform (playwright-core's EXECUTABLE_PATHS, plus the older
// chrome-linux layout).
var chromiumExecutables = map[string][]string{
	"linux":   {"chrome-linux64/chrome", "chrome-linux-arm64/chrome", "chrome-linux/chrome"},
	"darwin":  {"chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing", "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing", "chrome-mac/Chromium.app/Contents/MacOS/Chromium"},
	"windows": {"chrome-win64/chrome.exe", "chrome-win/chrome.exe"},
}

// playwrightChromium returns the binary of the newest complete Chromium
// (with Playwright's INSTALLATION_COMPLETE marker) in dir, or "".
func playwrightChromium(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	best, bestRev := "", -1
	for _, e := range ents {
		m := chromiumRevision.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		rev, _ := strconv.Atoi(m[1])
		if rev <= bestRev {
			continue
		}
		root := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(root, "INSTALLATION_COMPLETE")); err != nil {
			continue
		}
		for _, rel := range chromiumExecutables[runtime.GOOS] {
			if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil && !st.IsDir() {
				best, bestRev = filepath.Join(root, filepath.FromSlash(rel)), rev
				break
			}
		}
	}
	return best
}

// noBrowser is ErrNoBrowser with what was searched and, when a download was
// tried or declined, what became of it.
func noBrowser(p Paths, download string) error {
	msg := fmt.Sprintf("searched %s and Playwright's browsers in %s", strings.Join(systemBrowsers, ", "), playwrightBrowsersDir(p.DriverDir))
	if download != "" {
		msg += "; " + download
	}
	return fmt.Errorf("%w; %s", ErrNoBrowser, msg)
}

// noBrowserDownload reports whether EnvNoBrowserDownload turns the download
// off.
func noBrowserDownload() bool {
	v := strings.TrimSpace(os.Getenv(EnvNoBrowserDownload))
	return v != "" && v != "0" && !strings.EqualFold(v, "false") && !strings.EqualFold(v, "no")
}

// driverInstalled reports whether DriverDir already holds the right
// playwright-core, so that Install (which spawns node once more) is skipped.
func driverInstalled(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "package", "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	return json.Unmarshal(b, &pkg) == nil && pkg.Version == DriverVersion
}

// FindNode is the Node.js ≥ 20 binary to run: explicit (--node) when
// given, else PLAYWRIGHT_NODEJS_PATH, node on PATH or a well-known place;
// ErrNoNode when there is none. For what runs the suite's code without a
// browser (mcpconform list).
func FindNode(explicit string) (string, error) { return findNode(explicit) }
