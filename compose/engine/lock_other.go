//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package engine

import "os"

// canLock is false where flock(2) is missing: there leases guard nothing,
// ReapOrphans reaps nothing, and a killed helper's project is removed by hand.
const canLock = false

// tryLock always succeeds: see canLock.
func tryLock(*os.File) (bool, error) { return true, nil }

// noFollow: no such flag here; leases guard nothing anyway.
const noFollow = 0

// ownedByMe: ownership is not checked here (see canLock).
func ownedByMe(os.FileInfo) bool { return true }
