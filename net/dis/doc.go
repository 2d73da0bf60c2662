// Package dis encodes and decodes the two IEEE 1278.1 Distributed Interactive
// Simulation PDUs Treadline's DIS gateway speaks, Entity State (type 1) and Remove
// Entity (type 12), and converts between DIS's earth-centred frame and Treadline's
// world frame.
//
// The wire layout follows net/wire's: one PDU per file, each with a parse function,
// Append and Length; Parse dispatches on the PDU type. Everything is big-endian. A
// truncated PDU (any prefix of a valid one) is io.EOF; a length field that disagrees
// with the PDU's content is ErrLength; an unknown type ErrUnknownType; an unknown
// protocol version ErrVersion; a NaN, infinite or absurd number ErrInvalid. Parsed
// PDUs never alias the input buffer. Reason names an error's drop reason for counting.
//
// Geodesy: WGS84 geodetic coordinates ↔ ECEF (GeodeticToECEF, ECEFToGeodetic); a
// Frame at an origin maps Treadline's world (metres, X east, −Z north, Y up; a tank
// faces +X) to ECEF and back, with orientations as DIS Euler angles (psi, theta, phi:
// the Z-Y-X rotation of the entity's body frame, x forward, y right, z down, from
// ECEF's axes) and velocities, accelerations and angular velocities as DIS carries
// them.
//
//	f := dis.NewFrame(dis.Geodetic{Lat: 36.6, Lon: -121.9})
//	es := dis.EntityState{Version: dis.Version7, ID: dis.EntityID{Site: 1, Application: 2, Entity: 3}}
//	es.Location, es.Orientation = f.ToECEF(pos), f.ToEuler(rot)
//	b, err := es.Append(nil) // 144 bytes
//	pdu, n, err := dis.Parse(b)
package dis
