// Package golden compares a test's output with a file under testdata,
// for the tests of several packages. `go test <pkg> -update` rewrites the
// files from the current output instead.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// Check compares got with testdata/name.golden, or rewrites it with -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	File(t, filepath.Join("testdata", name+".golden"), got)
}

// File compares got with the file at path, or rewrites it with -update.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (run go test with -update if intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
