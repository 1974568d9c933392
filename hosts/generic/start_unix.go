//go:build unix

package generic

import (
	"os/exec"
	"syscall"
)

const startSupported = true

// setProcessGroup makes cmd the leader of a process group of its own, so
// that stopping it stops what it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup signals cmd's process group: SIGTERM, or SIGKILL when hard.
func killGroup(cmd *exec.Cmd, hard bool) {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	syscall.Kill(-cmd.Process.Pid, sig)
}
