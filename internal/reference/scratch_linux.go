package reference

import "syscall"

// shm is Linux's memory-backed directory for short-lived files.
const shm = "/dev/shm"

// scratchRoom is the free space scratchRoot asks of shm: a certification's
// stores take tens of megabytes, and a container's /dev/shm (64 MiB by
// default in Docker) is too small to count on.
const scratchRoom = 1 << 30

// scratchRoot is where a stack's throwaway store goes: shm when it has
// scratchRoom free, so the store's fsyncs never queue behind a disk that
// other work shares (a 1.3 s checkpoint held every write of one copy on a
// busy CI runner and failed TH-02); "" (os.TempDir) otherwise.
func scratchRoot() string {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(shm, &fs); err != nil || uint64(fs.Bavail)*uint64(fs.Bsize) < scratchRoom {
		return ""
	}
	return shm
}
