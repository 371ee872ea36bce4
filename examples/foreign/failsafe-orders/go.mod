module github.com/resilcheck/resilcheck/examples/foreign/failsafe-orders

go 1.23.0

require github.com/failsafe-go/failsafe-go v0.9.8

require (
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/influxdata/tdigest v0.0.1 // indirect
)
