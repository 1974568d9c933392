package npmcache

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeNPM is an `npm` on PATH that never touches the network: it "installs"
// the last argument (a spec) into --prefix by writing the package's
// package.json, and logs each call (its prefix, its arguments, and whether
// the final directory already existed) to $FAKE_NPM_LOG. $FAKE_NPM_MODE
// makes it fail: fail (exit 1 after writing the package), offline (npm's
// ENOTFOUND output), wrongversion (writes another version).
const fakeNPM = `#!/bin/sh
PATH="$PATH:/usr/bin:/bin"
prefix=""
spec=""
prev=""
for a in "$@"; do
  if [ "$prev" = "--prefix" ]; then prefix="$a"; fi
  prev="$a"
  spec="$a"
done
name="${spec%@*}"
version="${spec##*@}"
[ -e "$FAKE_NPM_FINAL" ] && final=final-exists || final=final-absent
echo "call prefix=$prefix $final args=$*" >> "$FAKE_NPM_LOG"
if [ -n "$FAKE_NPM_SLEEP" ]; then sleep "$FAKE_NPM_SLEEP"; fi
case "$FAKE_NPM_MODE" in
offline)
  echo "npm error code ENOTFOUND" >&2
  echo "npm error network request to https://registry.example.invalid/$name failed, reason: getaddrinfo ENOTFOUND registry.example.invalid" >&2
  exit 1;;
wrongversion) version=0.0.1;;
esac
mkdir -p "$prefix/node_modules/$name"
printf '{"name":"%s","version":"%s"}\n' "$name" "$version" > "$prefix/node_modules/$name/package.json"
# The specs before the last (Options.Also puts them after the first) are
# installed too; a spec is an argument with an @ past its first character.
prev=""
for a in "$@"; do
  if [ "$prev" != "--prefix" ] && [ "$a" != "$spec" ]; then
    case "${a#?}" in *@*)
      n="${a%@*}"; mkdir -p "$prefix/node_modules/$n"
      printf '{"name":"%s","version":"%s"}\n' "$n" "${a##*@}" > "$prefix/node_modules/$n/package.json";;
    esac
  fi
  prev="$a"
done
if [ "$FAKE_NPM_MODE" = fail ]; then echo "npm error code E418 I am a teapot" >&2; exit 1; fi
exit 0
`

type fake struct {
	bin, log, cache string
}

// setup puts the fake npm first on PATH and the cache in a temp dir.
func setup(t *testing.T) *fake {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a POSIX shell script")
	}
	f := &fake{bin: t.TempDir(), cache: t.TempDir()}
	f.log = filepath.Join(t.TempDir(), "npm.log")
	if err := os.WriteFile(filepath.Join(f.bin, "npm"), []byte(fakeNPM), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", f.bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	t.Setenv("MCPCONFORM_CACHE", f.cache)
	t.Setenv("FAKE_NPM_LOG", f.log)
	t.Setenv("FAKE_NPM_MODE", "")
	t.Setenv("FAKE_NPM_FINAL", "")
	t.Setenv("FAKE_NPM_SLEEP", "")
	return f
}

func (f *fake) calls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// leftovers lists what is next to dir besides dir itself: temporary
// install directories must not survive.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.Name() != filepath.Base(dir) {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestParse(t *testing.T) {
	for _, c := range []struct{ spec, name, version string }{
		{"tap-parser@18.3.4", "tap-parser", "18.3.4"},
		{"@modelcontextprotocol/server-basic-vanillajs@2.0.3", "@modelcontextprotocol/server-basic-vanillajs", "2.0.3"},
		{"x@1.0.0-rc.1", "x", "1.0.0-rc.1"},
	} {
		name, version, err := Parse(c.spec)
		if err != nil || name != c.name || version != c.version {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", c.spec, name, version, err, c.name, c.version)
		}
	}
	for _, bad := range []string{"tap-parser", "tap-parser@^18.3.4", "tap-parser@latest", "tap-parser@18", "@scope@1.0.0", "../x@1.0.0", "a/b@1.0.0", ""} {
		if _, _, err := Parse(bad); !errors.Is(err, ErrSpec) {
			t.Errorf("Parse(%q): want ErrSpec, got %v", bad, err)
		}
	}
}

func TestRootFollowsEnvironment(t *testing.T) {
	x := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", x)
	t.Setenv("MCPCONFORM_CACHE", "")
	if got, want := Root(), filepath.Join(x, "mcpconform"); got != want {
		t.Errorf("with XDG_CACHE_HOME: Root() = %q, want %q", got, want)
	}
	m := t.TempDir()
	t.Setenv("MCPCONFORM_CACHE", m)
	if got := Root(); got != m {
		t.Errorf("MCPCONFORM_CACHE does not win over XDG_CACHE_HOME: Root() = %q, want %q", got, m)
	}
	d, err := Dir("@scope/pkg@1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(m, "npm", "@scope", "pkg@1.2.3"); d != want {
		t.Errorf("Dir = %q, want %q", d, want)
	}
}

func TestEnsureInstallsAtomicallyWithMarker(t *testing.T) {
	f := setup(t)
	const spec = "@scope/pkg@1.2.3"
	want := filepath.Join(f.cache, "npm", "@scope", "pkg@1.2.3")
	t.Setenv("FAKE_NPM_FINAL", want)
	dir, err := Ensure(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if dir != want {
		t.Fatalf("dir %q, want %q", dir, want)
	}
	m, err := os.ReadFile(filepath.Join(dir, Marker))
	if err != nil || strings.TrimSpace(string(m)) != spec {
		t.Fatalf("marker %q (%v), want %q", m, err, spec)
	}
	if !Installed(dir, spec) || !HasPackage(dir, spec) {
		t.Fatal("Ensure's directory does not count as installed")
	}
	if _, err := os.Stat(filepath.Join(PackageDir(dir, spec), "package.json")); err != nil {
		t.Fatalf("package not at PackageDir: %v", err)
	}
	calls := f.calls(t)
	if len(calls) != 1 {
		t.Fatalf("npm ran %d times, want 1: %q", len(calls), calls)
	}
	// npm installed into a temporary sibling while the final directory did
	// not exist yet: it appeared only by the rename.
	if !strings.Contains(calls[0], "prefix="+filepath.Join(filepath.Dir(want), "pkg@1.2.3.tmp-")) || !strings.Contains(calls[0], "final-absent") {
		t.Errorf("npm did not install into a temporary sibling before the rename: %s", calls[0])
	}
	if !strings.Contains(calls[0], "--ignore-scripts") || !strings.HasSuffix(calls[0], " "+spec) {
		t.Errorf("npm arguments: %s", calls[0])
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left next to the install: %q", l)
	}
}

func TestEnsureReusesWithoutNPM(t *testing.T) {
	f := setup(t)
	const spec = "tap-parser@18.3.4"
	dir, err := Ensure(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	// A second call, even with no npm on PATH at all, finds it.
	t.Setenv("PATH", t.TempDir())
	again, err := Ensure(context.Background(), spec)
	if err != nil || again != dir {
		t.Fatalf("reuse: %q, %v; want %q", again, err, dir)
	}
	if n := len(f.calls(t)); n != 1 {
		t.Fatalf("npm ran %d times for two Ensure calls, want 1", n)
	}
	// Another version is another directory and another install.
	t.Setenv("PATH", f.bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	other, err := Ensure(context.Background(), "tap-parser@18.3.5")
	if err != nil || other == dir {
		t.Fatalf("another version: %q, %v", other, err)
	}
	if n := len(f.calls(t)); n != 2 {
		t.Fatalf("npm ran %d times, want 2", n)
	}
}

// A directory with the package but no marker (filled by hand, or left by a
// tool that is not this one) is not trusted: it is replaced by a complete
// install.
func TestEnsureReplacesDirectoryWithoutMarker(t *testing.T) {
	f := setup(t)
	const spec = "junit2json@4.0.0"
	dir, _ := Dir(spec)
	pkg := filepath.Join(dir, "node_modules", "junit2json")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"junit2json","version":"4.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stale"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if Installed(dir, spec) {
		t.Fatal("a directory without marker counts as installed")
	}
	if _, err := Ensure(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if n := len(f.calls(t)); n != 1 {
		t.Fatalf("npm ran %d times, want 1", n)
	}
	if !Installed(dir, spec) {
		t.Fatal("not installed after Ensure")
	}
	if _, err := os.Stat(filepath.Join(dir, "stale")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale directory was not replaced: %v", err)
	}
}

func TestEnsureFailureLeavesNothing(t *testing.T) {
	for _, c := range []struct {
		mode        string
		unreachable bool
		says        []string
	}{
		{"fail", false, []string{"E418 I am a teapot", "exit status 1"}},
		{"wrongversion", false, []string{"not there at the pinned version"}},
		{"offline", true, []string{"ENOTFOUND"}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			setup(t)
			t.Setenv("FAKE_NPM_MODE", c.mode)
			const spec = "test-results-parser@0.4.6"
			dir, _ := Dir(spec)
			_, err := Ensure(context.Background(), spec)
			if !errors.Is(err, ErrInstall) {
				t.Fatalf("want ErrInstall, got %v", err)
			}
			if errors.Is(err, ErrUnreachable) != c.unreachable {
				t.Errorf("ErrUnreachable: %v, want %v (%v)", errors.Is(err, ErrUnreachable), c.unreachable, err)
			}
			for _, s := range append([]string{spec, dir}, c.says...) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a failed install left %s: %v", dir, err)
			}
			if l := leftovers(t, dir); len(l) != 0 {
				t.Errorf("a failed install left %q", l)
			}
		})
	}
}

func TestEnsureWithoutNPM(t *testing.T) {
	setup(t)
	t.Setenv("PATH", t.TempDir())
	_, err := Ensure(context.Background(), "tap-parser@18.3.4")
	if !errors.Is(err, ErrNoNPM) || !strings.Contains(err.Error(), "tap-parser@18.3.4") || !strings.Contains(err.Error(), "npm") {
		t.Fatalf("want ErrNoNPM naming the package, got %v", err)
	}
	// npm next to the given Node binary is found when PATH has none.
	f := setup(t)
	t.Setenv("PATH", t.TempDir())
	if _, err := EnsureWith(context.Background(), "tap-parser@18.3.4", Options{Node: filepath.Join(f.bin, "node")}); err != nil {
		t.Fatalf("npm next to node: %v", err)
	}
}

func TestEnsureOptions(t *testing.T) {
	f := setup(t)
	dir := filepath.Join(t.TempDir(), "prefix")
	var logged []string
	verified := 0
	got, err := EnsureWith(context.Background(), "x@1.0.0", Options{Dir: dir, Scripts: true,
		Logf:   func(format string, a ...any) { logged = append(logged, fmt.Sprintf(format, a...)) },
		Verify: func(d string) error { verified++; return nil }})
	if err != nil || got != dir {
		t.Fatalf("%q, %v; want %q", got, err, dir)
	}
	if calls := f.calls(t); len(calls) != 1 || strings.Contains(calls[0], "--ignore-scripts") {
		t.Errorf("Scripts: npm calls %q", calls)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "x@1.0.0") || !strings.Contains(logged[0], dir) {
		t.Errorf("log %q", logged)
	}
	if verified != 1 {
		t.Errorf("Verify ran %d times during the install, want 1", verified)
	}
	// A Verify that rejects the install fails it, and leaves nothing.
	other := filepath.Join(t.TempDir(), "prefix")
	_, err = EnsureWith(context.Background(), "x@1.0.0", Options{Dir: other, Verify: func(string) error { return errors.New("launcher missing") }})
	if !errors.Is(err, ErrInstall) || !strings.Contains(err.Error(), "launcher missing") {
		t.Fatalf("rejected by Verify: %v", err)
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected install left %s", other)
	}
}

func TestEnsureConcurrent(t *testing.T) {
	setup(t)
	t.Setenv("FAKE_NPM_SLEEP", "0.3")
	const spec = "tap-parser@18.3.4"
	var wg sync.WaitGroup
	dirs := make([]string, 3)
	errs := make([]error, 3)
	for i := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = Ensure(context.Background(), spec)
		}()
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Fatalf("concurrent Ensure %d: %q, %v", i, dirs[i], errs[i])
		}
	}
	if !Installed(dirs[0], spec) {
		t.Fatal("not installed after concurrent Ensure")
	}
	if l := leftovers(t, dirs[0]); len(l) != 0 {
		t.Errorf("left next to the install: %q", l)
	}
}

// tb records what ForTest does with a test; Skipf and Fatalf end the
// goroutine as testing's do.
type tb struct {
	skipped, failed string
}

func (*tb) Helper()             {}
func (*tb) Logf(string, ...any) {}
func (b *tb) Skipf(format string, args ...any) {
	b.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (b *tb) Fatalf(format string, args ...any) {
	b.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func forTest(spec string, prefer ...string) (b *tb, dir string) {
	b = &tb{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		dir = ForTest(b, spec, prefer...)
	}()
	<-done
	return b, dir
}

func TestForTest(t *testing.T) {
	f := setup(t)
	defer func(s func() bool) { isShort = s }(isShort)
	isShort = func() bool { return false }
	t.Setenv(EnvRequire, "")
	t.Setenv("CI", "")
	const spec = "@modelcontextprotocol/server-basic-vanillajs@2.0.3"

	// A preferred directory holding the pinned version is used as it is.
	pre := t.TempDir()
	pkg := filepath.Join(pre, "node_modules", "@modelcontextprotocol", "server-basic-vanillajs")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@modelcontextprotocol/server-basic-vanillajs","version":"2.0.3"}`), 0o644)
	if b, dir := forTest(spec, "", t.TempDir(), pre); dir != pre || b.skipped != "" || b.failed != "" {
		t.Fatalf("preferred dir: %q %+v", dir, b)
	}
	if n := len(f.calls(t)); n != 0 {
		t.Fatalf("npm ran although a preferred dir had the package")
	}
	// A preferred directory with another version is not used: install.
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@modelcontextprotocol/server-basic-vanillajs","version":"2.0.2"}`), 0o644)
	want, _ := Dir(spec)
	if b, dir := forTest(spec, pre); dir != want || b.skipped != "" || b.failed != "" {
		t.Fatalf("install on first use: %q %+v, want %q", dir, b, want)
	}

	// -short installs nothing: what is installed is used, the rest skips.
	isShort = func() bool { return true }
	if b, dir := forTest(spec); dir != want || b.skipped != "" || b.failed != "" {
		t.Errorf("-short with the package installed: %q %+v, want %q", dir, b, want)
	}
	if b, _ := forTest("left-pad@1.3.0"); !strings.Contains(b.skipped, "-short: left-pad@1.3.0 is not installed") || len(f.calls(t)) != 1 {
		t.Errorf("-short without the package: %+v, npm calls %d (want the one install above)", b, len(f.calls(t)))
	}
	isShort = func() bool { return false }

	// No npm: skipped, naming the package; required: failed.
	t.Setenv("MCPCONFORM_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	b, _ := forTest(spec)
	if b.failed != "" || !strings.Contains(b.skipped, spec) || !strings.Contains(b.skipped, "no npm found") {
		t.Fatalf("without npm: %+v", b)
	}
	t.Setenv(EnvRequire, "1")
	b, _ = forTest(spec)
	if b.skipped != "" || !strings.Contains(b.failed, spec) || !strings.Contains(b.failed, EnvRequire) {
		t.Fatalf("without npm, required: %+v", b)
	}
	t.Setenv(EnvRequire, "")
	t.Setenv("CI", "true")
	if b, _ = forTest(spec); b.failed == "" {
		t.Fatalf("without npm, CI=true: %+v", b)
	}
	t.Setenv("CI", "")

	// Registry unreachable: skipped; any other npm failure: failed.
	t.Setenv("PATH", f.bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	t.Setenv("FAKE_NPM_MODE", "offline")
	if b, _ = forTest(spec); b.failed != "" || !strings.Contains(b.skipped, spec) || !strings.Contains(b.skipped, "unreachable") {
		t.Fatalf("offline: %+v", b)
	}
	t.Setenv("FAKE_NPM_MODE", "fail")
	if b, _ = forTest(spec); b.skipped != "" || !strings.Contains(b.failed, spec) {
		t.Fatalf("npm failing: %+v", b)
	}
}

// The real npm, pointed at a loopback registry that refuses connections,
// fails in a way Ensure classifies as unreachable (so a test skips rather
// than fails where the registry cannot be reached). Nothing leaves the
// machine: the registry is a closed port on 127.0.0.1.
func TestRealNPMUnreachableRegistryIsClassified(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	registry := "http://" + ln.Addr().String() + "/"
	ln.Close()
	t.Setenv("MCPCONFORM_CACHE", t.TempDir())
	t.Setenv("npm_config_registry", registry)
	t.Setenv("npm_config_fetch_retries", "0")
	t.Setenv("npm_config_cache", t.TempDir())
	t.Setenv("npm_config_prefer_online", "true")
	t.Setenv("npm_config_offline", "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = EnsureWith(ctx, "tap-parser@18.3.4", Options{NPM: npm})
	if !errors.Is(err, ErrInstall) || !errors.Is(err, ErrUnreachable) {
		t.Fatalf("want ErrInstall and ErrUnreachable, got %v", err)
	}
}

// Also installs pinned companions in the same npm call, and an install
// without one of them is not complete: it is installed again.
func TestEnsureAlso(t *testing.T) {
	f := setup(t)
	const spec = "@scope/main@1.0.0"
	also := []string{"react@19.3.1", "@scope/peer@2.0.0"}
	dir, err := EnsureWith(context.Background(), spec, Options{Also: also})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append([]string{spec}, also...) {
		if !HasPackage(dir, s) {
			t.Errorf("%s is not installed", s)
		}
	}
	calls := f.calls(t)
	if len(calls) != 1 || !strings.HasSuffix(calls[0], " "+spec+" "+strings.Join(also, " ")) {
		t.Fatalf("npm calls %q: want one, installing %s with %v", calls, spec, also)
	}
	// Reused as it is.
	if _, err := EnsureWith(context.Background(), spec, Options{Also: also}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.calls(t)); n != 1 {
		t.Fatalf("a complete install was installed again (%d npm calls)", n)
	}
	// A companion that is missing (or at another version) makes it incomplete.
	more := append(also, "extra@3.0.0")
	if _, err := EnsureWith(context.Background(), spec, Options{Also: more}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.calls(t)); n != 2 || !HasPackage(dir, "extra@3.0.0") {
		t.Fatalf("an install without extra@3.0.0 counted as complete (%d npm calls)", n)
	}
	if _, err := EnsureWith(context.Background(), spec, Options{Also: []string{"react@^19"}}); !errors.Is(err, ErrSpec) {
		t.Fatalf("a range in Also: want ErrSpec, got %v", err)
	}
	// npm that installs another version than pinned fails the install.
	t.Setenv("FAKE_NPM_MODE", "wrongversion")
	if _, err := EnsureWith(context.Background(), "other@1.0.0", Options{Also: []string{"p@1.0.0"}}); !errors.Is(err, ErrInstall) {
		t.Fatalf("wrong versions: want ErrInstall, got %v", err)
	}
}
