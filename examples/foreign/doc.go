// Package foreign certifies services that nobody here designed around
// resilcheck (the "zoo" of issue 10) and compares every check's verdict with
// the one their authors' code and libraries call for (expectations.yaml
// beside each, read by package expect).
package foreign
