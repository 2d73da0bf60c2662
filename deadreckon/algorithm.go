package deadreckon

import "fmt"

// Algorithm selects how a remote actor's displayed state follows its updates.
// The zero value is ProjectiveVelocityBlend, the default.
type Algorithm uint8

const (
	// ProjectiveVelocityBlend blends a projection from the displayed state, moving at a
	// velocity blended toward the last-known one, into the last-known projection.
	ProjectiveVelocityBlend Algorithm = iota
	// Static shows the last-known position and orientation, unprojected.
	Static
	// Linear snaps to each update and projects it with its velocity.
	Linear
	// Quadratic snaps to each update and projects it with velocity and acceleration.
	Quadratic
	// CubicBezier follows a cubic Bézier from the displayed state to the last-known
	// projection, with control points from the two velocities.
	CubicBezier
	// TwoPath blends from the previous update's projected path to the last update's.
	TwoPath
	// Delayed shows the actor a fixed delay in the past, interpolating between
	// buffered updates and extrapolating only when the buffer runs dry.
	Delayed
	numAlgorithms
)

var algorithmNames = [numAlgorithms]string{
	ProjectiveVelocityBlend: "pvb",
	Static:                  "static",
	Linear:                  "linear",
	Quadratic:               "quadratic",
	CubicBezier:             "bezier",
	TwoPath:                 "twopath",
	Delayed:                 "delayed",
}

// String returns the algorithm's short name, as ParseAlgorithm accepts it.
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// ParseAlgorithm returns the algorithm with the short name s
// ("static", "linear", "quadratic", "pvb", "bezier", "twopath", "delayed").
func ParseAlgorithm(s string) (Algorithm, error) {
	for a, name := range algorithmNames {
		if name == s {
			return Algorithm(a), nil
		}
	}
	return 0, fmt.Errorf("deadreckon: unknown algorithm %q", s)
}
