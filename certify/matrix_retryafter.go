package certify

import "github.com/resilcheck/resilcheck/reference/defect"

// retryAfterMatrix: the defects the Retry-After suite catches.
var retryAfterMatrix = map[defect.Name]Expectation{}
