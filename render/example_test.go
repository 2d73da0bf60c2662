package render_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/render"
)

// The -overlays flag of cmd/tanks is parsed with ParseOverlays.
func ExampleParseOverlays() {
	o, err := render.ParseOverlays("ghost, trail")
	if err != nil {
		panic(err)
	}
	fmt.Println(o, o&render.OverlayClamp != 0)
	all, _ := render.ParseOverlays("all")
	fmt.Println(all)
	// Output:
	// ghost,trail false
	// ghost,trail,clamp,motion,labels,hits
}

// A View projects world points to pixels, as the tests do to find tanks on screen.
func ExampleView_Project() {
	v := render.View{
		Eye:         mgl64.Vec3{0, 2, 0},
		Orientation: render.LookRotation(mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 1, 0}), // look along +X
		FovY:        math.Pi / 2, Near: 0.5, Far: 1000, Width: 1280, Height: 720,
	}
	x, y, ok := v.Project(mgl64.Vec3{20, 2, 0}) // straight ahead
	fmt.Printf("%.0f %.0f %v\n", x, y, ok)
	x, y, ok = v.Project(mgl64.Vec3{20, 2, 5}) // a little to the right (+Z)
	fmt.Printf("%.0f %.0f %v\n", x, y, ok)
	_, _, ok = v.Project(mgl64.Vec3{-20, 2, 0}) // behind
	fmt.Println(ok)
	// Output:
	// 640 360 true
	// 730 360 true
	// false
}
