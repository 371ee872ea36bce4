//go:build unix

package clients

import (
	"os/exec"
	"syscall"
)

// killTree starts cmd in a process group of its own and, when its context
// ends, kills the whole group: a client run through a shell or a wrapper
// leaves no child retrying behind the harness's back (and holding its
// output open until WaitDelay).
func killTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
