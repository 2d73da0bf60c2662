package wire

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// mm and unit decode codes as the decoders do, so expected values match exactly.
func mm(c int) float64   { return float64(c) * PositionStep }
func unit(c int) float64 { return float64(c) * UnitStep }

// combatMessages are the combat messages' known encodings, built field by field.
func combatMessages(t *testing.T) []knownCase {
	origin := mgl64.Vec3{mm(1500), mm(-2250), mm(100001)}
	originBytes := "000005dc fffff736 000186a1"
	up := mgl64.Vec3{0, unit(32767), 0}
	return []knownCase{
		{"fire", &Fire{Shooter: 5, Shot: 2, Time: 1.5, Origin: origin, Direction: up},
			unhex(t, "05 0c 0005 0002 000000000016e360 "+originBytes+" 0000 7fff 0000")},
		{"hit claim", &HitClaim{Shooter: 5, Shot: 2, Target: 9, Time: 1.5, Impact: 1.5 + float64(int32(-4000))*ClockMicrosStep,
			Local:    mgl64.Vec3{mm(-3450), mm(1200), mm(1800)},
			Observer: origin,
			Reckon:   0x28,
			Applied: [ClaimApplied]AppliedUpdate{{Update: 1.2, At: 1.5 + float64(int32(-100000))*ClockMicrosStep}, {Update: 0.8, At: 1.5 + float64(int32(-500000))*ClockMicrosStep},
				{Update: 0.5, At: 1.5 + float64(int32(-1000000))*ClockMicrosStep},
				{Update: 0.2, At: 1.5 + float64(int32(-1250000))*ClockMicrosStep},
				{Update: 0.15, At: 1.5 + float64(int32(-1300000))*ClockMicrosStep}, {Update: 0.1, At: 1.5 + float64(int32(-1350000))*ClockMicrosStep},
				{Update: 0.05, At: 1.5 + float64(int32(-1400000))*ClockMicrosStep}, {Update: 0, At: 1.5}},
			Fired: 1.5 + float64(int32(-750000))*ClockMicrosStep, Origin: origin, Direction: up},
			unhex(t, "05 0d 0005 0002 0009 000000000016e360 fffff060 f286 04b0 0708 "+originBytes+" 28 "+
				"000004b0 fffe7960 00000320 fff85ee0 000001f4 fff0bdc0 000000c8 ffeced30 "+
				"00000096 ffec29e0 00000064 ffeb6690 00000032 ffeaa340 00000000 00000000 "+
				"fff48e50 "+originBytes+" 0000 7fff 0000")},
		{"hit result", &HitResult{Shooter: 5, Shot: 2, Target: 9, Time: 1.5, Verdict: 0, Damage: float64(4000) * PointsStep,
			Health: float64(6000) * PointsStep, Local: mgl64.Vec3{mm(-3450), mm(1200), mm(1800)}, Position: origin,
			Orientation: mgl64.Quat{W: unit(32767)}},
			unhex(t, "05 0e 0005 0002 0009 000000000016e360 00 0fa0 1770 f286 04b0 0708 "+originBytes+" 7fff 0000 0000 0000")},
		{"destroy", &Destroy{Shooter: 5, Shot: 2, Target: 9, Time: 1.5}, unhex(t, "05 0f 0005 0002 0009 000000000016e360")},
		{"scores", &Scores{Time: 1.5, Over: true, Until: 11.5, Limited: true, Ends: 1.5,
			Lines: []ScoreLine{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1}}},
			unhex(t, "05 10 000000000016e360 03 0000000000af79e0 000000000016e360 01 0001 02 0003 0001 03 416461")},
		{"scores with hits", &Scores{Time: 1.5, Lines: []ScoreLine{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1, Hits: 5, Shots: 9}}},
			unhex(t, "05 10 000000000016e360 08 0000000000000000 0000000000000000 01 0001 02 0003 0001 0005 0009 03 416461")},
		{"scores with pings", &Scores{Time: 1.5, Lines: []ScoreLine{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1, Hits: 5, Shots: 9, Ping: 87},
			{Owner: 0, Name: "Bo", Team: 1, Ping: PingBot}}},
			unhex(t, "05 10 000000000016e360 28 0000000000000000 0000000000000000 02 0001 02 0003 0001 0005 0009 0057 03 416461 "+
				"0000 01 0000 0000 0000 0000 ffff 02 426f")},
		{"scores page", &Scores{Time: 1.5, Lines: []ScoreLine{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1}},
			First: 24, Total: 30},
			unhex(t, "05 10 000000000016e360 04 0000000000000000 0000000000000000 01 18 1e 0001 02 0003 0001 03 416461")},
		{"scores page of a long board", &Scores{Time: 1.5, Lines: []ScoreLine{{Owner: 1, Name: "Ada", Team: 2, Kills: 3, Deaths: 1}},
			First: 300, Total: 512},
			unhex(t, "05 10 000000000016e360 14 0000000000000000 0000000000000000 0001 012c 0200 0001 02 0003 0001 03 416461")},
	}
}

func TestCombatMessagesRefuseWhatTheyCannotCarry(t *testing.T) {
	bad := []struct {
		name string
		m    Message
		want error
	}{
		{"fire from actor 0", &Fire{Direction: mgl64.Vec3{1, 0, 0}}, ErrInvalid},
		{"fire not unit", &Fire{Shooter: 1, Direction: mgl64.Vec3{1, 1, 0}}, ErrInvalid},
		{"fire NaN time", &Fire{Shooter: 1, Time: math.NaN(), Direction: mgl64.Vec3{1, 0, 0}}, ErrNotFinite},
		{"fire off the map", &Fire{Shooter: 1, Origin: mgl64.Vec3{1e5, 0, 0}, Direction: mgl64.Vec3{1, 0, 0}}, ErrOutOfRange},
		{"claim point beyond the hull frame", &HitClaim{Shooter: 1, Target: 2, Local: mgl64.Vec3{40, 0, 0}, Direction: mgl64.Vec3{1, 0, 0}}, ErrOutOfRange},
		{"claim impact an hour off", &HitClaim{Shooter: 1, Target: 2, Impact: 3600, Direction: mgl64.Vec3{1, 0, 0}}, ErrOutOfRange},
		{"result verdict", &HitResult{Shooter: 1, Target: 2, Verdict: MaxVerdict + 1, Orientation: mgl64.QuatIdent()}, ErrInvalid},
		{"result health", &HitResult{Shooter: 1, Target: 2, Health: -1, Orientation: mgl64.QuatIdent()}, ErrOutOfRange},
		{"destroy target 0", &Destroy{Shooter: 1}, ErrInvalid},
		{"scores name", &Scores{Lines: []ScoreLine{{Name: ""}}}, ErrInvalid},
		{"scores lines", &Scores{Lines: make([]ScoreLine, MaxScoreLines+1)}, ErrTooLong},
		{"scores page past its board", &Scores{Lines: []ScoreLine{{Name: "a"}, {Name: "b"}}, First: 9, Total: 10}, ErrInvalid},
		{"scores board over the limit", &Scores{Lines: []ScoreLine{{Name: "a"}}, Total: MaxScoreLines + 1}, ErrInvalid},
	}
	for _, c := range bad {
		b, err := c.m.Append([]byte{7})
		if !errors.Is(err, c.want) || len(b) != 1 {
			t.Errorf("%s: %v (%d bytes), want %v and the buffer unchanged", c.name, err, len(b), c.want)
		}
	}
	// A decoded direction that is not a unit vector is refused.
	b := unhex(t, "05 0c 0005 0002 000000000016e360 000005dc fffff736 000186a1 4000 4000 0000")
	if _, _, err := Parse(b); !errors.Is(err, ErrInvalid) {
		t.Errorf("fire with a short direction: %v", err)
	}
}

func TestVersionErrorNamesBothVersions(t *testing.T) {
	b := unhex(t, "05 0f 0005 0002 0009 000000000016e360")
	b[0] = Version + 1
	_, _, err := Parse(b)
	var ve *VersionError
	if !errors.Is(err, ErrVersion) || !errors.As(err, &ve) || ve.Got != Version+1 {
		t.Fatalf("Parse of a version %d message: %v", Version+1, err)
	}
	want := fmt.Sprintf("protocol version %d, this program version %d", Version+1, Version)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%q does not say %q", err, want)
	}
}
