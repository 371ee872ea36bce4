package certify

import "github.com/resilcheck/resilcheck/reference/defect"

// amplificationMatrix: the defects the retry-amplification suite catches.
var amplificationMatrix = map[defect.Name]Expectation{}
