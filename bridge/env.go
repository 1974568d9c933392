// Package bridge connects the Go runner to the suite inside the app iframe:
// it installs and starts the Playwright driver, launches Chromium, finds the
// app frame and talks to window.__mcpConformance there without ever giving
// the frame a user gesture.
package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// DriverVersion is the playwright-core version playwright-go v0.6401.0 drives.
const DriverVersion = "1.64.1"

// Sentinel errors; each message says what to install or set.
var (
	ErrNoNode    = errors.New("no Node.js >= 20 found: install Debian's nodejs (or Node 20+) or set PLAYWRIGHT_NODEJS_PATH / --node to its path")
	ErrNoBrowser = errors.New("no Chromium found: install it (Debian: apt-get install chromium) or set MCPCONFORM_BROWSER / --browser to its path")
	ErrDriver    = errors.New("the Playwright driver could not be installed or started")
)

// Paths says where the pieces live. Zero fields are found automatically.
type Paths struct {
	Node      string // Node.js binary for the driver
	Browser   string // Chromium binary
	DriverDir string // where playwright-core is unpacked
}

// Locate fills the zero fields of p from flags, environment and well-known
// places, and checks what it finds.
func Locate(p Paths) (Paths, error) {
	var err error
	if p.Node, err = findNode(p.Node); err != nil {
		return p, err
	}
	if p.Browser, err = findBrowser(p.Browser); err != nil {
		return p, err
	}
	if p.DriverDir == "" {
		p.DriverDir = os.Getenv("PLAYWRIGHT_DRIVER_PATH")
	}
	if p.DriverDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		p.DriverDir = filepath.Join(cache, "mcpconform", "driver-"+DriverVersion)
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

func findBrowser(explicit string) (string, error) {
	if explicit == "" {
		explicit = os.Getenv("MCPCONFORM_BROWSER")
	}
	if explicit != "" {
		if st, err := os.Stat(explicit); err != nil || st.IsDir() {
			return "", fmt.Errorf("%w: %s does not exist", ErrNoBrowser, explicit)
		}
		return explicit, nil
	}
	// The real binary first: Debian's /usr/bin/chromium is a shell wrapper
	// that adds flags and prints noise.
	for _, c := range []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return "", ErrNoBrowser
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
