//go:build !unix

package launch

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup is a no-op where process groups do not exist.
func ownGroup(*exec.Cmd) {}

// signalGroup kills the process itself: without groups there is no gentler stop.
func signalGroup(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return nil
	}
	_ = p.Kill()
	return nil
}

const (
	sigTerm = syscall.Signal(15)
	sigKill = syscall.Signal(9)
)
