module github.com/resilcheck/resilcheck/examples/foreign/chi-orders

go 1.23.0

require (
	github.com/go-chi/chi/v5 v5.2.3
	github.com/go-chi/httprate v0.15.0
	github.com/hashicorp/go-retryablehttp v0.7.8
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/zeebo/xxh3 v1.0.2 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
