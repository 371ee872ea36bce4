package check

import "sync"

// Together runs f(0) to f(n-1) each in a goroutine of its own, released at
// the same instant, and returns when every one has: copies of a request
// sent together race instead of queueing behind each other's start.
func Together(n int, f func(i int)) {
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Go(func() {
			start.Wait()
			f(i)
		})
	}
	start.Done()
	wg.Wait()
}
