//go:build unix && !linux

package nodeproc

import "syscall"

// sysProcAttr puts the program in a process group of its own, so Teardown
// can end all of it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
