package certify

import "github.com/resilcheck/resilcheck/reference/defect"

// deadlineMatrix: the defects the deadline suite catches.
var deadlineMatrix = map[defect.Name]Expectation{}
