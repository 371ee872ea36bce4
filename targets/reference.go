package targets

import "github.com/resilcheck/resilcheck/reference/defect"

// DefectSet returns the defects to switch on as a defect.Set; an unknown
// name yields defect's *UnknownError (Validate reports it earlier, with its position).
func (r Reference) DefectSet() (defect.Set, error) { return defect.Parse(r.Defects...) }
