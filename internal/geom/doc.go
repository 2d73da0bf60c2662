// Package geom holds the world frame's geometry, one of each helper for the whole
// module: finiteness checks, angles and headings, quaternion products, rotations and
// interpolation, and the orientation of a vehicle standing on the ground.
//
// Units are meters, seconds and radians in a right-handed, Y-up world; yaw ψ turns
// about +Y, so that a vehicle with yaw ψ faces (cos ψ, 0, −sin ψ), its local +X.
// Quaternions are mgl64.Quat values; functions that say so take unit quaternions and
// skip the normalization.
//
// Every function is pure: no allocation, no state, safe for concurrent use. The
// package imports only the standard library and mathgl, so that the deadreckon
// library may use it.
package geom
