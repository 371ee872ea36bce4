package certify

import "github.com/resilcheck/resilcheck/reference/defect"

// rateLimitMatrix: the defects the rate-limit-header suite catches.
var rateLimitMatrix = map[defect.Name]Expectation{}
