//go:build unix

package nodeproc

import (
	"os/exec"
	"syscall"
)

// signalGroup signals the whole process group the command leads, so that
// children the program spawns stop with it.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// GroupAlive reports whether any process of the group pgid still exists.
func GroupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
}
