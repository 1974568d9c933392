package npmcache

import (
	"context"
	"errors"
	"flag"
	"os"
	"time"
)

// EnvRequire, set to 1, turns a test's skip for a missing install (no npm,
// no registry) into a failure: CI sets it, since there everything must be
// installed and a skipped test would pass silently. CI=true does the same.
const EnvRequire = "MCPCONFORM_REQUIRE_BROWSER"

// Required reports whether a missing install must fail a test rather than
// skip it: MCPCONFORM_REQUIRE_BROWSER=1, or CI=true.
func Required() bool {
	return os.Getenv(EnvRequire) == "1" || os.Getenv("CI") == "true"
}

// TB is the part of testing.TB that ForTest uses.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// ForTest returns an install prefix holding spec for a test: the first of
// prefer that holds the package at its pinned version (directories such
// as .cache/consumers that .ci/run fills), else Ensure's, installing it on
// first use. Where npm is missing or the registry unreachable the test is
// skipped with a message naming the package, unless Required(), where it
// fails; any other install failure fails the test.
func ForTest(t TB, spec string, prefer ...string) string {
	t.Helper()
	return ForTestWith(t, spec, Options{}, prefer...)
}

// ForTestWith is ForTest installing with o (its companions, Also); the
// install's log goes to the test's unless o says otherwise.
func ForTestWith(t TB, spec string, o Options, prefer ...string) string {
	t.Helper()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	for _, d := range prefer {
		if d != "" && HasPackage(d, spec) {
			return d
		}
	}
	if isShort() {
		// The fast loop installs nothing: what is already there is used.
		dir := o.Dir
		if dir == "" {
			dir, _ = Dir(spec)
		}
		if dir == "" || !complete(dir, spec, o.verify) {
			t.Skipf("-short: %s is not installed, and -short installs nothing", spec)
		}
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, err := EnsureWith(ctx, spec, o)
	if err == nil {
		return dir
	}
	if _, _, perr := Parse(spec); perr != nil {
		t.Fatalf("%v", perr)
	}
	if errors.Is(err, ErrNoNPM) || errors.Is(err, ErrUnreachable) {
		if Required() {
			t.Fatalf("%s is needed and could not be installed (%s=1 or CI=true: a missing install fails): %v", spec, EnvRequire, err)
		}
		t.Skipf("%s is not installed and could not be installed: %v", spec, err)
	}
	t.Fatalf("installing %s: %v", spec, err)
	return ""
}

// isShort is testShort, replaced by this package's own tests.
var isShort = testShort

// testShort reports whether the test binary runs with -short (read from
// its flag: this package is not a test package, and must not import
// testing).
func testShort() bool {
	f := flag.Lookup("test.short")
	return f != nil && f.Value.String() == "true"
}
