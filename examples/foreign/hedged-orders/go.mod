module github.com/resilcheck/resilcheck/examples/foreign/hedged-orders

go 1.23.0

require github.com/cristalhq/hedgedhttp v0.9.2
