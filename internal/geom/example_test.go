package geom_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// A tank heading 170° turns to −170°: the headings are 20° apart across ±π, and the
// short-path slerp turns through 180°, never through 0°.
func Example() {
	const deg = math.Pi / 180
	from, to := geom.YawQuat(170*deg), geom.YawQuat(-170*deg)
	fmt.Printf("apart %.1f°\n", geom.QuatAngle(from, to)/deg)
	for _, u := range []float64{0, 0.25, 0.5, 0.75, 1} {
		q := geom.SlerpShort(from, to, u)
		fmt.Printf("u=%.2f heading %.1f°\n", u, geom.Yaw(q)/deg)
	}
	fmt.Printf("wrapped %.1f°\n", geom.WrapAngle(370*deg)/deg)

	// On a slope rising along +X, a tank heading 30° keeps its heading and tilts with
	// the ground.
	n := mgl64.Vec3{-0.2, 1, 0}.Normalize()
	q := geom.GroundOrientation(geom.Rotate(geom.YawQuat(30*deg), mgl64.Vec3{1, 0, 0}), n)
	fwd := geom.Rotate(q, mgl64.Vec3{1, 0, 0})
	fmt.Printf("forward (%.3f, %.3f, %.3f), heading %.1f°\n", fwd[0], fwd[1], fwd[2], geom.Heading(fwd)/deg)
	fmt.Println(geom.Finite(fwd[0], fwd[1]), geom.FiniteVec(mgl64.Vec3{0, math.Inf(1), 0}))
	// Output:
	// apart 20.0°
	// u=0.00 heading 170.0°
	// u=0.25 heading 175.0°
	// u=0.50 heading 180.0°
	// u=0.75 heading -175.0°
	// u=1.00 heading -170.0°
	// wrapped 10.0°
	// forward (0.853, 0.171, -0.493), heading 30.0°
	// true false
}
