package dis

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// EntityStateSize is the size of an Entity State PDU without articulation records,
// bytes.
const EntityStateSize = 144

// ArticulationSize is the size of one articulation parameter record, bytes.
const ArticulationSize = 16

// MaxArticulations is the most articulation records an Entity State PDU may carry
// here; more is ErrInvalid.
const MaxArticulations = 32

// MarkingLen is how many characters the marking holds.
const MarkingLen = 11

// MaxDistance is the largest distance from the earth's centre accepted for a
// location, m (beyond geostationary orbit); farther is ErrInvalid.
const MaxDistance = 1e8

// MaxSpeed is the largest speed accepted for a velocity, m/s, and the largest
// acceleration magnitude in m/s²; more is ErrInvalid.
const MaxSpeed = 1e5

// MaxAngularSpeed is the largest angular velocity component accepted, rad/s.
const MaxAngularSpeed = 1e3

// EntityID names an entity: site, application and entity numbers.
type EntityID struct {
	// Site identifies the site, Application the simulation program at it, Entity the
	// entity within the program.
	Site, Application, Entity uint16
}

// String returns "site:application:entity".
func (id EntityID) String() string {
	return fmt.Sprintf("%d:%d:%d", id.Site, id.Application, id.Entity)
}

// EntityType is DIS's entity type record, kind.domain.country.category.subcategory.
// specific.extra.
type EntityType struct {
	// Kind is 1 for a platform; Domain 1 for land; Country a SISO country code.
	Kind, Domain uint8
	// Country is the SISO-REF-010 country code.
	Country uint16
	// Category is 1 for a tank among land platforms; the rest refine it.
	Category, Subcategory, Specific, Extra uint8
}

// String returns the dotted form, "1.1.225.1.1.3.0".
func (t EntityType) String() string {
	return fmt.Sprintf("%d.%d.%d.%d.%d.%d.%d", t.Kind, t.Domain, t.Country, t.Category, t.Subcategory, t.Specific, t.Extra)
}

// TankType is a generic land-platform tank, 1.1.0.1.0.0.0 (country "other").
var TankType = EntityType{Kind: 1, Domain: 1, Category: 1}

// Euler is a DIS orientation: psi, theta and phi in radians, the Z-Y-X rotation
// from ECEF's axes to the entity's body axes (x forward, y right, z down).
type Euler struct {
	// Psi is the heading, Theta the pitch, Phi the roll, radians.
	Psi, Theta, Phi float64
}

// DeadReckoning is an Entity State PDU's 40-byte dead-reckoning block.
type DeadReckoning struct {
	// Algorithm is the model, 1 (static) to 9 (DRM(F,V,B)); 0 is "other".
	Algorithm uint8
	// Other is the 15 bytes of other parameters, carried as they are.
	Other [15]byte
	// Acceleration is the linear acceleration, m/s²: in ECEF axes for the world
	// models (2–5), in body axes for the body models (6–9).
	Acceleration mgl64.Vec3
	// AngularVelocity is the angular velocity about the body axes (x forward, y
	// right, z down), rad/s.
	AngularVelocity mgl64.Vec3
}

// Articulation is one articulation parameter record.
type Articulation struct {
	// Designator is the parameter type designator: 0 articulated part, 1 attached.
	Designator uint8
	// Change is the change indicator, incremented when the part changes.
	Change uint8
	// AttachedTo is the id of the part this one is attached to; 0 is the entity.
	AttachedTo uint16
	// Parameter is the parameter type: the part's class plus its metric
	// (ParamTurretAzimuth, ParamGunElevation).
	Parameter uint32
	// Value is the parameter's value, radians for angles. Version 6 carries it as a
	// float64, version 7 as a float32 and four bytes of padding.
	Value float64
}

// Articulation parameter types Treadline sends: class + metric.
const (
	// ParamTurretAzimuth is the primary turret's azimuth (class 4096, metric 11).
	ParamTurretAzimuth uint32 = 4096 + 11
	// ParamGunElevation is the primary gun's elevation (class 4416, metric 13).
	ParamGunElevation uint32 = 4416 + 13
)

// EntityState is the Entity State PDU. Layout (bytes): header 12, entity id 6, force
// 1, number of articulations 1, entity type 8, alternative type 8, linear velocity
// 3×float32 12, location 3×float64 24, orientation 3×float32 12, appearance 4, dead
// reckoning 40, marking 12, capabilities 4: 144, then 16 per articulation.
type EntityState struct {
	// Version is the protocol version, Version6 or Version7.
	Version uint8
	// Exercise is the exercise id.
	Exercise uint8
	// Timestamp is the DIS timestamp (see Header).
	Timestamp uint32
	// ID is the entity.
	ID EntityID
	// Force is the force id: 0 other, 1 friendly, 2 opposing, 3 neutral.
	Force uint8
	// EntityType and AltType are the entity type and the alternative one shown to
	// others.
	EntityType, AltType EntityType
	// Velocity is the linear velocity in ECEF axes, m/s (float32 on the wire).
	Velocity mgl64.Vec3
	// Location is the position in ECEF (WGS84), m.
	Location mgl64.Vec3
	// Orientation is the body's orientation from ECEF (float32 on the wire).
	Orientation Euler
	// Appearance is the appearance bit field.
	Appearance uint32
	// DeadReckoning is the dead-reckoning block.
	DeadReckoning DeadReckoning
	// MarkingCharset is the marking's character set, 1 for ASCII.
	MarkingCharset uint8
	// Marking is the entity's name, at most MarkingLen bytes (longer is cut); the
	// parser drops the trailing NUL padding.
	Marking string
	// Capabilities is the capabilities bit field.
	Capabilities uint32
	// Articulations are the articulation records, at most MaxArticulations.
	Articulations []Articulation
}

// Type returns TypeEntityState.
func (p *EntityState) Type() PDUType { return TypeEntityState }

// Length returns the encoded size: 144 + 16 per articulation, bytes.
func (p *EntityState) Length() int { return EntityStateSize + ArticulationSize*len(p.Articulations) }

// check reports whether p can be encoded as it is.
func (p *EntityState) check() error {
	if err := checkVersion(p.Version); err != nil {
		return err
	}
	if len(p.Articulations) > MaxArticulations {
		return fmt.Errorf("dis: %d articulations (at most %d): %w", len(p.Articulations), MaxArticulations, ErrInvalid)
	}
	return p.checkValues()
}

// checkValues refuses NaN, infinite and absurd numbers.
func (p *EntityState) checkValues() error {
	l := p.Location
	if !finite3(l) || l.Len() > MaxDistance {
		return fmt.Errorf("dis: entity %v: location %v: %w", p.ID, l, ErrInvalid)
	}
	if !finite3(p.Velocity) || p.Velocity.Len() > MaxSpeed {
		return fmt.Errorf("dis: entity %v: velocity %v: %w", p.ID, p.Velocity, ErrInvalid)
	}
	o := p.Orientation
	if !finite3(mgl64.Vec3{o.Psi, o.Theta, o.Phi}) || math.Abs(o.Psi) > 4*math.Pi || math.Abs(o.Theta) > 4*math.Pi || math.Abs(o.Phi) > 4*math.Pi {
		return fmt.Errorf("dis: entity %v: orientation %v: %w", p.ID, o, ErrInvalid)
	}
	dr := &p.DeadReckoning
	if !finite3(dr.Acceleration) || dr.Acceleration.Len() > MaxSpeed {
		return fmt.Errorf("dis: entity %v: acceleration %v: %w", p.ID, dr.Acceleration, ErrInvalid)
	}
	w := dr.AngularVelocity
	if !finite3(w) || math.Abs(w[0]) > MaxAngularSpeed || math.Abs(w[1]) > MaxAngularSpeed || math.Abs(w[2]) > MaxAngularSpeed {
		return fmt.Errorf("dis: entity %v: angular velocity %v: %w", p.ID, w, ErrInvalid)
	}
	for _, a := range p.Articulations {
		if v := a.Value; !(v-v == 0) {
			return fmt.Errorf("dis: entity %v: articulation %d value %g: %w", p.ID, a.Parameter, v, ErrInvalid)
		}
	}
	return nil
}

// finite3 reports whether v's components are finite.
func finite3(v mgl64.Vec3) bool { return v[0]-v[0] == 0 && v[1]-v[1] == 0 && v[2]-v[2] == 0 }

// Append appends the encoded PDU; an unencodable one (ErrVersion, ErrInvalid) leaves
// b unchanged. Values go out as float32 where the layout says so.
func (p *EntityState) Append(b []byte) ([]byte, error) {
	if err := p.check(); err != nil {
		return b, err
	}
	b = appendHeader(b, Header{Version: p.Version, Exercise: p.Exercise, Type: TypeEntityState,
		Family: FamilyEntityInformation, Timestamp: p.Timestamp, Length: uint16(p.Length())})
	b = appendEntityID(b, p.ID)
	b = append(b, p.Force, uint8(len(p.Articulations)))
	b = appendEntityType(b, p.EntityType)
	b = appendEntityType(b, p.AltType)
	b = appendVec32(b, p.Velocity)
	for _, x := range p.Location {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	}
	b = appendVec32(b, mgl64.Vec3{p.Orientation.Psi, p.Orientation.Theta, p.Orientation.Phi})
	b = binary.BigEndian.AppendUint32(b, p.Appearance)
	dr := &p.DeadReckoning
	b = append(b, dr.Algorithm)
	b = append(b, dr.Other[:]...)
	b = appendVec32(b, dr.Acceleration)
	b = appendVec32(b, dr.AngularVelocity)
	b = append(b, p.MarkingCharset)
	var m [MarkingLen]byte
	copy(m[:], p.Marking)
	b = append(b, m[:]...)
	b = binary.BigEndian.AppendUint32(b, p.Capabilities)
	for _, a := range p.Articulations {
		b = append(b, a.Designator, a.Change)
		b = binary.BigEndian.AppendUint16(b, a.AttachedTo)
		b = binary.BigEndian.AppendUint32(b, a.Parameter)
		if p.Version == Version6 {
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(a.Value))
		} else {
			b = binary.BigEndian.AppendUint32(b, math.Float32bits(float32(a.Value)))
			b = append(b, 0, 0, 0, 0)
		}
	}
	return b, nil
}

// parseEntityState decodes an Entity State PDU whose header h has been read from b.
func parseEntityState(b []byte, h Header) (*EntityState, int, error) {
	if len(b) < EntityStateSize {
		return nil, 0, io.EOF
	}
	n := int(b[19])
	want := EntityStateSize + ArticulationSize*n
	if int(h.Length) != want {
		return nil, 0, fmt.Errorf("entity state: length %d, %d articulations make %d: %w", h.Length, n, want, ErrLength)
	}
	if len(b) < want {
		return nil, 0, io.EOF
	}
	if n > MaxArticulations {
		return nil, 0, fmt.Errorf("dis: %d articulations (at most %d): %w", n, MaxArticulations, ErrInvalid)
	}
	p := &EntityState{Version: h.Version, Exercise: h.Exercise, Timestamp: h.Timestamp}
	p.ID = parseEntityID(b[12:])
	p.Force = b[18]
	p.EntityType = parseEntityType(b[20:])
	p.AltType = parseEntityType(b[28:])
	p.Velocity = parseVec32(b[36:])
	for i := range p.Location {
		p.Location[i] = math.Float64frombits(binary.BigEndian.Uint64(b[48+8*i:]))
	}
	o := parseVec32(b[72:])
	p.Orientation = Euler{Psi: o[0], Theta: o[1], Phi: o[2]}
	p.Appearance = binary.BigEndian.Uint32(b[84:])
	dr := &p.DeadReckoning
	dr.Algorithm = b[88]
	copy(dr.Other[:], b[89:104])
	dr.Acceleration = parseVec32(b[104:])
	dr.AngularVelocity = parseVec32(b[116:])
	p.MarkingCharset = b[128]
	m := b[129:140]
	end := len(m)
	for end > 0 && m[end-1] == 0 {
		end--
	}
	p.Marking = string(m[:end])
	p.Capabilities = binary.BigEndian.Uint32(b[140:])
	if n > 0 {
		p.Articulations = make([]Articulation, n)
		for i := range p.Articulations {
			r := b[EntityStateSize+ArticulationSize*i:]
			a := &p.Articulations[i]
			a.Designator, a.Change = r[0], r[1]
			a.AttachedTo = binary.BigEndian.Uint16(r[2:])
			a.Parameter = binary.BigEndian.Uint32(r[4:])
			if h.Version == Version6 {
				a.Value = math.Float64frombits(binary.BigEndian.Uint64(r[8:]))
			} else {
				a.Value = float64(math.Float32frombits(binary.BigEndian.Uint32(r[8:])))
			}
		}
	}
	if err := p.checkValues(); err != nil {
		return nil, 0, err
	}
	return p, want, nil
}

func appendEntityID(b []byte, id EntityID) []byte {
	b = binary.BigEndian.AppendUint16(b, id.Site)
	b = binary.BigEndian.AppendUint16(b, id.Application)
	return binary.BigEndian.AppendUint16(b, id.Entity)
}

func parseEntityID(b []byte) EntityID {
	return EntityID{binary.BigEndian.Uint16(b), binary.BigEndian.Uint16(b[2:]), binary.BigEndian.Uint16(b[4:])}
}

func appendEntityType(b []byte, t EntityType) []byte {
	b = append(b, t.Kind, t.Domain)
	b = binary.BigEndian.AppendUint16(b, t.Country)
	return append(b, t.Category, t.Subcategory, t.Specific, t.Extra)
}

func parseEntityType(b []byte) EntityType {
	return EntityType{Kind: b[0], Domain: b[1], Country: binary.BigEndian.Uint16(b[2:]),
		Category: b[4], Subcategory: b[5], Specific: b[6], Extra: b[7]}
}

func appendVec32(b []byte, v mgl64.Vec3) []byte {
	for _, x := range v {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(float32(x)))
	}
	return b
}

func parseVec32(b []byte) mgl64.Vec3 {
	var v mgl64.Vec3
	for i := range v {
		v[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(b[4*i:])))
	}
	return v
}
