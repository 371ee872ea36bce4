package certify

import "errors"

// ErrUnhealthy reports a target that could not be reached or never became
// healthy: the run is inconclusive, not a verdict on the target.
var ErrUnhealthy = errors.New("certify: target is not healthy")

// ErrConfig reports a configuration the run cannot start with, such as an
// unknown suite or check; it is the user's to fix.
var ErrConfig = errors.New("certify: invalid configuration")
