//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package engine

import (
	"errors"
	"os"
	"syscall"
)

// canLock: leases work here.
const canLock = true

// tryLock takes an exclusive lock on f without waiting; false when another
// process holds it. The kernel releases it when the holder dies.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// noFollow keeps a lease open from following a link planted in its place.
const noFollow = syscall.O_NOFOLLOW

// ownedByMe says whether this user owns the file fi describes.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
