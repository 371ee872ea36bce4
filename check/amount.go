package check

import (
	"regexp"
	"strconv"
)

// AmountPattern matches amount as a number of its own in a body (not a
// part of a longer number or a decimal), by which a suite tells the
// calls and events of its case's operation from others'.
func AmountPattern(amount int) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9.])` + strconv.Itoa(amount) + `([^0-9.]|$)`)
}
