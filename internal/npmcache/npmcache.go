// Package npmcache installs pinned npm packages on first use into a cache
// shared by every run and test: ~/.cache/mcpconform/npm/<name>@<version>
// (the root follows MCPCONFORM_CACHE, else XDG_CACHE_HOME). An install goes
// into a temporary sibling directory and is renamed into place only when npm
// succeeded and the package is there at the pinned version, with a marker
// file naming the spec; an interrupted or concurrent install never leaves a
// half-filled directory that counts as installed.
package npmcache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Marker is the file, at the top of an install directory, that says which
// spec was installed there completely.
const Marker = ".mcpconform-installed"

// Sentinel errors. ErrUnreachable comes wrapped together with ErrInstall.
var (
	ErrNoNPM       = errors.New("no npm found (install Node.js with npm: Debian's nodejs and npm packages, or Node 20+ from nodejs.org)")
	ErrInstall     = errors.New("npm install failed")
	ErrUnreachable = errors.New("the npm registry is unreachable")
	ErrSpec        = errors.New("not an npm spec of the form name@exact-version")
)

// Options tune EnsureWith; the zero value is what Ensure uses.
type Options struct {
	// Dir is the install prefix (default Dir(spec)).
	Dir string
	// NPM is the npm binary (default: FindNPM(Node)).
	NPM string
	// Node is a Node.js binary next to which npm is looked for when npm is
	// not on PATH.
	Node string
	// Scripts runs the packages' install scripts; by default npm runs with
	// --ignore-scripts, since nothing mcpconform uses builds at install time.
	Scripts bool
	// Verify, when set, is one more check of a finished install (in its
	// temporary directory, and of an existing Dir without marker).
	Verify func(dir string) error
	// Logf reports that an install starts (default: silent).
	Logf func(format string, args ...any)
	// Also are more exact specs installed into the same prefix with spec
	// (pinned peer dependencies, say); an install counts as complete only
	// when each of them is there at its pinned version too.
	Also []string
}

var specRE = regexp.MustCompile(`^((?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*)@(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)$`)

// Parse splits "name@1.2.3" or "@scope/name@1.2.3" into name and version;
// the version must be exact (no ranges or tags), so that a cached install
// is what the spec names.
func Parse(spec string) (name, version string, err error) {
	m := specRE.FindStringSubmatch(spec)
	if m == nil {
		return "", "", fmt.Errorf("%w: %q", ErrSpec, spec)
	}
	return m[1], m[2], nil
}

// Root is the cache root: $MCPCONFORM_CACHE, else $XDG_CACHE_HOME/mcpconform,
// else the user cache directory's mcpconform (~/.cache/mcpconform on Linux).
func Root() string {
	if d := os.Getenv("MCPCONFORM_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "mcpconform")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "mcpconform")
}

// Dir is where Ensure installs spec: Root()/npm/<name>@<version> (a scoped
// name keeps its scope as a directory).
func Dir(spec string) (string, error) {
	name, version, err := Parse(spec)
	if err != nil {
		return "", err
	}
	return filepath.Join(Root(), "npm", filepath.FromSlash(name)+"@"+version), nil
}

// Modules is the node_modules directory of an install prefix.
func Modules(dir string) string { return filepath.Join(dir, "node_modules") }

// PackageDir is where the package of spec sits inside an install prefix.
func PackageDir(dir, spec string) string {
	name, _, _ := Parse(spec)
	return filepath.Join(Modules(dir), filepath.FromSlash(name))
}

// HasPackage reports whether the prefix dir holds the package of spec at
// its pinned version (marker or not: directories filled by hand or by
// .ci/run count too).
func HasPackage(dir, spec string) bool {
	name, version, err := Parse(spec)
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(Modules(dir), filepath.FromSlash(name), "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Name, Version string
	}
	return json.Unmarshal(b, &pkg) == nil && pkg.Name == name && pkg.Version == version
}

// Installed reports whether dir is a complete install of spec: its marker
// names spec and the package is there at the pinned version.
func Installed(dir, spec string) bool {
	b, err := os.ReadFile(filepath.Join(dir, Marker))
	return err == nil && strings.TrimSpace(string(b)) == spec && HasPackage(dir, spec)
}

// FindNPM finds npm on PATH, else next to node.
func FindNPM(node string) (string, error) {
	if p, err := exec.LookPath("npm"); err == nil {
		return p, nil
	}
	if node != "" {
		if lp, err := exec.LookPath(node); err == nil {
			node = lp
		}
		p := filepath.Join(filepath.Dir(node), "npm")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", ErrNoNPM
}

// Ensure installs spec (name@exact-version) into Dir(spec) unless it is
// there already, and returns that directory, an npm install prefix: the
// package is in PackageDir(dir, spec).
func Ensure(ctx context.Context, spec string) (dir string, err error) {
	return EnsureWith(ctx, spec, Options{})
}

// EnsureWith is Ensure with options.
func EnsureWith(ctx context.Context, spec string, o Options) (string, error) {
	for _, s := range append([]string{spec}, o.Also...) {
		if _, _, err := Parse(s); err != nil {
			return "", err
		}
	}
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = Dir(spec); err != nil {
			return "", err
		}
	}
	if complete(dir, spec, o.verify) {
		return dir, nil
	}
	npm := o.NPM
	if npm == "" {
		var err error
		if npm, err = FindNPM(o.Node); err != nil {
			return "", fmt.Errorf("%w, needed to install %s", err, spec)
		}
	}
	if err := install(ctx, npm, spec, dir, o); err != nil {
		return "", err
	}
	return dir, nil
}

// verify is the caller's Verify plus the presence of every Also spec.
func (o Options) verify(dir string) error {
	for _, s := range o.Also {
		if !HasPackage(dir, s) {
			return fmt.Errorf("%s is not there at the pinned version", PackageDir(dir, s))
		}
	}
	if o.Verify != nil {
		return o.Verify(dir)
	}
	return nil
}

// complete is Installed plus the caller's own check.
func complete(dir, spec string, verify func(string) error) bool {
	return Installed(dir, spec) && (verify == nil || verify(dir) == nil)
}

func install(ctx context.Context, npm, spec, dir string, o Options) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s into %s: %s", ErrInstall, spec, dir, fmt.Sprintf(format, args...))
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fail("%v", err)
	}
	tmp, err := os.MkdirTemp(parent, filepath.Base(dir)+".tmp-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	if o.Logf != nil {
		o.Logf("installing %s into %s (from the npm registry)", spec, dir)
	}
	args := []string{"install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"}
	if !o.Scripts {
		args = append(args, "--ignore-scripts")
	}
	args = append(args, spec)
	args = append(args, o.Also...)
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fail("%v (%v)\n%s", err, ctx.Err(), tail(out.String(), 2000))
		}
		if unreachable(out.String()) {
			return fmt.Errorf("%w (%w): %s into %s: %v\n%s", ErrInstall, ErrUnreachable, spec, dir, err, tail(out.String(), 2000))
		}
		return fail("%s %s: %v\n%s", npm, strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	if !HasPackage(tmp, spec) {
		return fail("npm finished but %s is not there at the pinned version\n%s", PackageDir(tmp, spec), tail(out.String(), 2000))
	}
	if err := o.verify(tmp); err != nil {
		return fail("npm finished but %v\n%s", err, tail(out.String(), 2000))
	}
	if err := os.WriteFile(filepath.Join(tmp, Marker), []byte(spec+"\n"), 0o644); err != nil {
		return fail("%v", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if complete(dir, spec, o.verify) {
			return nil // a concurrent install won the race
		}
		// A stale or incomplete directory: replace it.
		if err := os.RemoveAll(dir); err != nil {
			return fail("removing the incomplete %s: %v", dir, err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			if complete(dir, spec, o.verify) {
				return nil
			}
			return fail("%v", err)
		}
	}
	return nil
}

// unreachableRE matches what npm prints when it cannot reach the registry:
// DNS, connection, proxy and time-out errors, and a registry answering 5xx.
var unreachableRE = regexp.MustCompile(`\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENETDOWN|ERR_SOCKET_TIMEOUT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN|E50[0-9])\b|network request to \S+ failed|request to \S+ failed, reason:`)

func unreachable(out string) bool { return unreachableRE.MatchString(out) }

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
