package game

import (
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// ZonedHeartbeatCopy is how long after a heartbeat a local tank sends it again in a
// match whose host rations each player's downlink by relevance (subscription
// zones, wire.Zones), s (deadreckon.PublisherConfig.HeartbeatCopy). There, a tank
// cruising straight is shown by its heartbeats alone, and each one its uplink loses
// leaves every player holding its state a second older: with the copy, a state
// grows that old only when both are lost. In a small match every update goes to
// every player and the copy stays off: it changes when the thresholds publish next
// after a heartbeat, and the small-match lab goals were met without it.
const ZonedHeartbeatCopy = 0.1

// ZonedSilence is how many times Config.RemoveAfter a silent remote tank stays in a
// match whose host rations each player's downlink (Zoned): the host may hold a far
// tank back past RemoveAfter while the tanks near the player fill the budget, and a
// tank removed does not come back (a minute, by default).
const ZonedSilence = 4

// ZonedPublishing returns how a local tank publishes by pc in a match whose host
// rations each player's downlink (zones true: the host said so with wire.Zones) or
// relays every update to every player (false: pc as it is). With zones, a
// HeartbeatCopy pc leaves zero is ZonedHeartbeatCopy; one pc sets (Off included)
// stays. Match and drlab's crowd both publish by it.
func ZonedPublishing(pc deadreckon.PublisherConfig, zones bool) deadreckon.PublisherConfig {
	if zones && pc.HeartbeatCopy == 0 {
		pc.HeartbeatCopy = ZonedHeartbeatCopy
	}
	return pc
}

// Zoned reports whether the host last said it rations each player's downlink
// (wire.Zones): local tanks then publish by ZonedPublishing.
func (m *Match) Zoned() bool { return m.zoned }

// zonesMessage applies the host's word on its downlink scheduler to every local
// tank's publisher, and to those made later; it reports whether msg was one.
func (m *Match) zonesMessage(msg wire.Message) bool {
	z, ok := msg.(*wire.Zones)
	if !ok || z.On == m.zoned {
		return ok
	}
	m.zoned = z.On
	if !z.On {
		m.unzonedAt = m.last // the silences removeSilent counts start here
	}
	d := ZonedPublishing(m.dr, m.zoned).HeartbeatCopy
	for _, t := range m.tanks {
		if !t.local {
			continue
		}
		if t.pub != nil {
			if err := t.pub.SetHeartbeatCopy(d); err != nil {
				m.log.Debug("heartbeat copy", "actor", t.id, "err", err)
			}
		}
		if t.path != nil {
			if err := t.path.SetHeartbeatCopy(d); err != nil {
				m.log.Debug("heartbeat copy", "actor", t.id, "err", err)
			}
		}
	}
	return true
}
