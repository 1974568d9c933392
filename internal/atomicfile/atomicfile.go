// Package atomicfile writes files atomically: into a temporary file next
// to the target, given its final mode before anything is written, then
// renamed over the target. A crash mid-write never leaves half a file,
// and a private file is never readable by others, not even for a moment.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes name through write with mode perm, creating missing
// directories with mode dirPerm. An error of write is returned wrapped
// with name.
func Write(name string, perm, dirPerm os.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".mcpconform-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
