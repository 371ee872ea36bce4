package payments

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// lockedRand is the Server's single source of randomness, seeded once.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newLockedRand(seed uint64) *lockedRand {
	return &lockedRand{r: rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc908))}
}

// id returns prefix_ followed by 64 random bits in hex.
func (l *lockedRand) id(prefix string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%s_%016x", prefix, l.r.Uint64())
}

// int64N returns a uniform value in [0, n).
func (l *lockedRand) int64N(n int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Int64N(n)
}
