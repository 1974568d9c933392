//go:build !unix

package generic

import "os/exec"

// START needs process groups; compile refuses it elsewhere.
const startSupported = false

func setProcessGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd, _ bool) { cmd.Process.Kill() }
