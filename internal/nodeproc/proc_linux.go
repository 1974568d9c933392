package nodeproc

import "syscall"

// sysProcAttr puts the program in a process group of its own (so Teardown
// can end all of it) and has the kernel kill it if mcpconform dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
