package launch

import "os/exec"

// InGroup makes cmd, not yet started, lead a process group of its own
// that is killed whole when cmd's context ends: a script's children (a
// build it started, a server it forgot) do not outlive a timeout. Where
// process groups do not exist only cmd itself is killed.
func InGroup(cmd *exec.Cmd) {
	ownGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, sigKill) }
}

// RunInGroup runs cmd as InGroup starts it, and once it has exited kills
// what is left of its group, so no child holds its output open.
func RunInGroup(cmd *exec.Cmd) error {
	InGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	err := cmd.Wait()
	_ = signalGroup(cmd.Process.Pid, sigKill)
	return err
}
