//go:build !unix

package nodeproc

import (
	"os/exec"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

// signalGroup has no process groups to use here: it kills the program.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func GroupAlive(int) bool { return false }
