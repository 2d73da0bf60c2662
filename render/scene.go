package render

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/g3n/engine/camera"
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/light"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/renderer"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// Scene defaults.
const (
	// DefaultWidth and DefaultHeight are the picture size in pixels.
	DefaultWidth, DefaultHeight = 1280, 720
	// DefaultFovY is the vertical field of view in radians (60°).
	DefaultFovY = math.Pi / 3
	// cameraNear and cameraFar are the clip distances in meters.
	cameraNear, cameraFar = 0.5, 2000.0
	// hudInterval is how often the HUD text is rebuilt, seconds.
	hudInterval = 0.25
	// DefaultFlashTime is how long a status message stays on screen (Flash).
	DefaultFlashTime = 2500 * time.Millisecond
)

// SceneConfig configures a Scene. The zero value means defaults throughout.
type SceneConfig struct {
	// Width and Height are the picture size in pixels; if zero, DefaultWidth and
	// DefaultHeight.
	Width, Height int
	// Overlays are the debug overlays shown at start.
	Overlays Overlay
	// LODDistance is the terrain level-of-detail step in meters; if zero,
	// DefaultLODDistance.
	LODDistance float64
	// Ground, when set, reports the ground height so the chase camera stays above it.
	Ground func(x, z float64) (float64, bool)
	// NoShadows leaves out the dark patch under each tank (one draw call per tank).
	NoShadows bool
	// Raycast, when set, intersects the ray origin + t·dir (0 ≤ t ≤ maxDist meters,
	// dir any length) with the ground and returns the first hit, as
	// terrain.Map.Raycast does: labels of tanks the ground hides are not drawn. If
	// nil, the scene marches the ray over Ground's heights instead.
	Raycast func(origin, dir mgl64.Vec3, maxDist float64) (hit mgl64.Vec3, ok bool)
	// Help is the key list the help panel shows (Panels.Help), in two column pairs;
	// if nil, the panel has only its heading.
	Help []HelpLine
	// Hint is the key hint in the bottom-left corner; if empty, the match's ("F1 help
	// · Enter chat · Tab players · Esc menu").
	Hint string
	// OverlayRange is how far from the focused tank (the watched one, or the
	// player's) other tanks get the debug overlays, m; if zero,
	// DefaultOverlayRange; OverlayRangeAll for every tank.
	OverlayRange float64
}

// Scene is everything drawn in one window: terrain, sky, border, tanks, overlays and
// the HUD, built from a game.Snapshot each frame. It only reads snapshots and never
// advances the simulation. A Scene is not safe for concurrent use; use it from the
// goroutine that owns the window.
type Scene struct {
	cfg      SceneConfig
	root     *core.Node
	world    *core.Node
	cam      *camera.Camera
	view     View
	chase    Chase
	terrain  *terrainNode
	sky      *graphic.Mesh
	parts    *tankParts
	tanks    map[uint32]*tankEntry
	lines    *lineBatch
	overlays Overlay
	frame    uint64
	// heartbeat is the last snapshot's Heartbeat, s, for the labels' update ages.
	heartbeat float64
	hud       *hud
	lodCount  []int
	heights   *heightGrid
	// Self is the player's tank as last drawn, for the camera when it goes missing.
	selfPos     mgl64.Vec3
	selfHeading float64
	haveSelf    bool
	// watchID is the tank the camera follows instead of the player's, 0 for none;
	// watchName picks one by name ("*": any remote) until one appears.
	watchID   uint32
	watchName string
	// Reused per frame: labels waiting for a place, and the rectangles taken.
	labelQueue []labelCandidate
	// crowd draws the tanks that are not full models; ranks is the frame's order of
	// tanks for detail and labels; fullModels how many were drawn as full models.
	crowd      *crowdBatch
	ranks      []crowdRank
	fullModels int
	// order is the last frame's ranks as snapshot indices, every index once: the
	// next frame ranks its tanks in it, so their sort starts nearly sorted
	// (rankTanks). at holds the entry each snapshot index had last frame, checked
	// by id before use: a frame's tanks are found without a map lookup each
	// (entry). seen counts the entries the frame has seen so far.
	order []int
	at    []*tankEntry
	seen  int
	// slab is where new entries are made, entrySlab at a time: the entries a
	// frame touches lie side by side rather than among their models' nodes.
	slab []tankEntry
	// roofLift is where a label is anchored in a tank's frame (roofPoint), and
	// labelUp the turret's radius along the picture's up this frame (labelAnchor):
	// worked out once, not for each tank.
	roofLift, labelUp mgl64.Vec3
	labelTaken        []rect
	minimap           *minimap
	combat            *combatLayer
	// free is the point a free camera follows when no tank is watched and there is
	// no player's tank (LookAt), and freeHeading the way it looks.
	free        mgl64.Vec3
	freeHeading float64
	hasFree     bool
	// fixedEye and fixedLook place the camera outright while hasFixed (LookFrom).
	fixedEye, fixedLook mgl64.Vec3
	hasFixed            bool
	// menu is the menu shown over the match (ShowMenu), made on first use.
	menu *MenuView
}

// Watch makes the camera follow the tank called name instead of the player's own: ""
// goes back to the player's tank and "*" follows the first remote tank. Watching a
// remote tank shows its dead reckoning from close by.
func (s *Scene) Watch(name string) {
	s.watchID, s.watchName = 0, name
}

// WatchID makes the camera follow the tank with actor id (0: the player's own).
func (s *Scene) WatchID(id uint32) { s.watchID, s.watchName = id, "" }

// LookAt makes the camera a free one when no tank is watched and there is no player's
// tank: it follows point p, world meters, looking along heading (rad, as a tank's
// yaw).
func (s *Scene) LookAt(p mgl64.Vec3, heading float64) {
	if geom.FiniteVec(p) && geom.Finite(heading) {
		s.free, s.freeHeading, s.hasFree = p, heading, true
	}
}

// LookFrom places the camera at eye looking at look, world meters, from the next
// Update until LookFrom is called with on false (a replay's kill camera: from the
// shooter's turret at its target).
func (s *Scene) LookFrom(eye, look mgl64.Vec3, on bool) {
	s.hasFixed = on && geom.FiniteVec(eye) && geom.FiniteVec(look) && eye != look
	s.fixedEye, s.fixedLook = eye, look
}

// WatchNext moves the camera to the next tank of snap after the one watched now, and
// back to the player's own after the last; it returns the watched tank's name, or ""
// for the player's own.
func (s *Scene) WatchNext(snap *game.Snapshot) string {
	s.watchName = ""
	start := -1
	for i := range snap.Tanks {
		if snap.Tanks[i].ID == s.watchID {
			start = i
		}
	}
	for i := start + 1; i < len(snap.Tanks); i++ {
		if i != snap.Self {
			s.watchID = snap.Tanks[i].ID
			return snap.Tanks[i].Name
		}
	}
	s.watchID = 0
	return ""
}

// Watched returns the tank of snap the camera follows instead of the player's, or
// nil when it follows the player's own (also when the tank Watch named is not in
// snap).
func (s *Scene) Watched(snap *game.Snapshot) *game.TankView {
	if s.watchID == 0 && s.watchName == "" {
		return nil
	}
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		match := tv.ID == s.watchID && s.watchID != 0
		if s.watchID == 0 {
			match = (s.watchName == "*" && !tv.Local) || (s.watchName != "*" && tv.Name == s.watchName)
		}
		if match && geom.FiniteVec(tv.Position) {
			s.watchID = tv.ID
			return tv
		}
	}
	return nil
}

// focus returns the tank the camera follows: the watched one, else the player's, or
// nil when there is neither.
func (s *Scene) focus(snap *game.Snapshot) *game.TankView {
	if tv := s.Watched(snap); tv != nil {
		return tv
	}
	if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
		return &snap.Tanks[snap.Self]
	}
	return nil
}

// tankEntry is one tank's models and labels, kept while the tank is in snapshots.
type tankEntry struct {
	id         uint32
	gone       bool // removed from the scene: the index cache must not hand it out
	model      *tankModel
	name, info *textLabel // nil until the tank is first labelled (labelsOf)
	nameText   string
	stale      bool
	detailed   bool    // drawn as a full model this frame (else in the crowd batch)
	modelShown bool    // the full model's visibility as last set
	alpha      float32 // the labels' opacity step; 0 before the first
	seen       uint64
}

// showModel sets the full model's visibility. It is set only on a change:
// hundreds of tanks' nodes touched every frame for nothing would cost a pass over
// their memory.
func (e *tankEntry) showModel(on bool) {
	if on != e.modelShown {
		e.model.root.SetVisible(on)
		e.modelShown = on
	}
}

// NewScene builds a scene over terrain t. It returns an error when t is empty or
// malformed. It makes no OpenGL calls, so it may run before a window exists; drawing
// needs a Viewer.
func NewScene(t Terrain, cfg SceneConfig) (*Scene, error) {
	if cfg.Width <= 0 {
		cfg.Width = DefaultWidth
	}
	if cfg.Height <= 0 {
		cfg.Height = DefaultHeight
	}
	if !(cfg.OverlayRange > 0) {
		cfg.OverlayRange = DefaultOverlayRange
	}
	tn, err := newTerrainNode(t, cfg.LODDistance)
	if err != nil {
		return nil, err
	}
	s := &Scene{
		cfg:      cfg,
		root:     core.NewNode(),
		world:    core.NewNode(),
		terrain:  tn,
		parts:    newTankParts(!cfg.NoShadows),
		tanks:    make(map[uint32]*tankEntry),
		lines:    newLineBatch(true),
		overlays: cfg.Overlays,
		lodCount: make([]int, len(t.Chunks[0])),
	}
	s.cam = camera.NewPerspective(float32(cfg.Width)/float32(cfg.Height), cameraNear, cameraFar,
		float32(DefaultFovY*180/math.Pi), camera.Vertical)
	s.view = View{FovY: DefaultFovY, Near: cameraNear, Far: cameraFar, Width: cfg.Width, Height: cfg.Height,
		Orientation: mgl64.QuatIdent()}
	s.root.Add(s.world)
	s.sky = newSkyDome()
	s.world.Add(s.sky)
	s.world.Add(tn.root)
	s.heights = newHeightGrid(t, tn.min, tn.max)
	if s.cfg.Ground == nil {
		s.cfg.Ground = s.heights.heightAt
	}
	s.world.Add(newBorder(tn, s.heights))
	for _, r := range t.Rocks {
		s.world.Add(newRock(r))
	}
	s.world.Add(s.lines.lines)
	s.crowd = newCrowdBatch(s.parts)
	s.world.Add(s.crowd.mesh)
	s.roofLift = s.parts.shape.roof().Add(mgl64.Vec3{0, roofPointLift, 0})
	// The sun: warm directional light from the south-west, high in the sky, and a
	// cool ambient fill so shadowed slopes keep their colour.
	sun := light.NewDirectional(&math32.Color{R: 1, G: 0.96, B: 0.88}, 0.85)
	sp := vec3(sunDirection)
	sun.SetPositionVec(&sp)
	s.world.Add(sun)
	s.world.Add(light.NewAmbient(&math32.Color{R: 0.62, G: 0.68, B: 0.80}, 0.75))
	s.hud = newHUD(cfg.Width, cfg.Height, cfg.Help, cfg.Hint)
	s.minimap = newMinimap(s.heights, tn.min, tn.max)
	s.hud.setMinimap(s.minimap)
	s.root.Add(s.hud.root)
	s.combat = newCombatLayer(s.hud.root, s.hud.fonts)
	s.world.Add(s.combat.root)
	// Look at the middle of the map until there is a tank to follow.
	c := tn.min.Add(tn.max).Mul(0.5)
	s.selfPos = mgl64.Vec3{c[0], tn.max[1], c[2]}
	s.setCamera(s.selfPos.Add(mgl64.Vec3{-120, 80, 0}), s.selfPos)
	return s, nil
}

// Overlays returns the debug overlays now shown.
func (s *Scene) Overlays() Overlay { return s.overlays }

// SetOverlays chooses the debug overlays to show from the next Update on.
func (s *Scene) SetOverlays(o Overlay) { s.overlays = o }

// View returns the camera as of the last Update.
func (s *Scene) View() View { return s.view }

// Chase returns the chase camera, for orbit and zoom input.
func (s *Scene) Chase() *Chase { return &s.chase }

// Size returns the picture size in pixels.
func (s *Scene) Size() (w, h int) { return s.cfg.Width, s.cfg.Height }

// Resize changes the picture size in pixels. Sizes below one pixel are ignored (a
// minimised window).
func (s *Scene) Resize(w, h int) {
	if w < 1 || h < 1 {
		return
	}
	s.cfg.Width, s.cfg.Height = w, h
	s.view.Width, s.view.Height = w, h
	s.cam.SetAspect(float32(w) / float32(h))
	old := s.hud.scale
	s.hud.resize(w, h)
	if s.menu != nil {
		s.menu.Resize(w, h)
	}
	if s.hud.scale != old {
		for _, e := range s.tanks {
			if e.name != nil {
				s.hud.fonts.setFontSize(e.name, 15*float64(s.hud.scale))
			}
			if e.info != nil {
				s.hud.fonts.setFontSize(e.info, 13*float64(s.hud.scale))
			}
		}
	}
}

// Flash shows a status message at the bottom of the picture for a few seconds.
func (s *Scene) Flash(msg string) { s.FlashFor(msg, 0) }

// FlashFor shows a status message at the bottom of the picture for d; if d is zero
// or less, for DefaultFlashTime.
func (s *Scene) FlashFor(msg string, d time.Duration) {
	if d <= 0 {
		d = DefaultFlashTime
	}
	s.hud.setFlash(msg, d.Seconds())
}

// ScoresPages returns the scoreboard's page shown and how many pages it has, as of
// the last frame that showed it: the client turns pages within them.
func (s *Scene) ScoresPages() (page, pages int) { return s.hud.scoresPage, max(1, s.hud.scoresPages) }

// SetPanels chooses the HUD's panels (help, players list, message, chat box) from
// the next Update on.
func (s *Scene) SetPanels(p Panels) { s.hud.setPanels(p) }

// centreCovered reports whether a panel over the middle of the picture shows (the
// help, the scoreboard, a message or the pause menu): the crosshair, drawn after the
// HUD, would sit on top of it.
func (s *Scene) centreCovered() bool {
	p := &s.hud.panels
	return p.Help || p.Scores || p.Message != "" || (s.menu != nil && s.menu.root.Visible())
}

// SetHelp replaces the key list the help panel shows (SceneConfig.Help), for keys
// rebound during the match.
func (s *Scene) SetHelp(lines []HelpLine) {
	s.hud.helpLines = slices.Clone(lines)
	s.hud.drawHelp()
	s.hud.layout()
}

// Help returns the key list the help panel shows.
func (s *Scene) Help() []HelpLine { return slices.Clone(s.hud.helpLines) }

// Dispose frees the scene's meshes, textures and labels, for a window that outlives
// it. The scene must not be used afterwards.
func (s *Scene) Dispose() { s.root.DisposeChildren(true) }

// LODCounts returns how many terrain chunks used each level of detail at the last
// Update, finest first. The slice is reused by the next Update.
func (s *Scene) LODCounts() []int { return s.lodCount }

// placeCamera puts this frame's camera where it belongs: the fixed view, else
// behind the watched tank, the player's own, or the free camera's place.
func (s *Scene) placeCamera(snap *game.Snapshot, dt float64) {
	if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
		me := &snap.Tanks[snap.Self]
		if geom.FiniteVec(me.Position) {
			s.selfPos, s.selfHeading, s.haveSelf = me.Position, geom.Yaw(me.Orientation), true
		}
	}
	if s.hasFixed {
		s.setCamera(s.fixedEye, s.fixedLook)
	} else if tv := s.Watched(snap); tv != nil {
		eye, look := s.chase.Follow(tv.Position, geom.Yaw(tv.Orientation), dt, s.cfg.Ground)
		s.setCamera(eye, look)
	} else if s.haveSelf {
		eye, look := s.chase.Follow(s.selfPos, s.selfHeading, dt, s.cfg.Ground)
		s.setCamera(eye, look)
	} else if s.hasFree {
		eye, look := s.chase.Follow(s.free, s.freeHeading, dt, s.cfg.Ground)
		s.setCamera(eye, look)
	}
}

// tankOverlays are the overlays drawTankOverlays draws.
const tankOverlays = OverlayGhost | OverlayTrail | OverlayClamp | OverlayMotion

// drawTankOverlays draws tv's overlays, with its last-known state k for the ghost,
// when it is near the focused tank (SceneConfig.OverlayRange) or watched; the
// player's own tank (self) has none unless the camera watches it.
func (s *Scene) drawTankOverlays(tv *game.TankView, k *game.Known, self bool, watched, focus *game.TankView) {
	if s.overlays&tankOverlays == 0 { // as a player plays: nothing to draw for any tank
		return
	}
	if focus != nil && tv != watched && tv.Position.Sub(focus.Position).Len() > s.cfg.OverlayRange {
		return
	}
	if self && watched != tv {
		return
	}
	if s.overlays&OverlayGhost != 0 {
		s.drawGhosts(tv, k)
	}
	s.drawOverlays(tv)
}

// Update builds the scene for snap. dt is the wall time since the previous frame in
// seconds; it only paces the chase camera. Tanks missing from snap are removed.
func (s *Scene) Update(snap *game.Snapshot, dt float64) {
	s.frame++
	s.heartbeat = snap.Heartbeat
	s.hud.tick(dt)
	// Camera first, so labels project with this frame's view.
	s.placeCamera(snap, dt)
	s.terrain.update(s.view.Eye, s.lodCount)
	s.sky.SetPositionVec(ptr(vec3(s.view.Eye)))

	s.lines.reset()
	s.lines.clipNear(s.view.Eye, s.view.Forward(), overlayNear)
	watched := s.Watched(snap)
	focus := s.focus(snap)
	s.rankTanks(snap, watched)
	s.crowd.reset()
	s.fullModels, s.seen = 0, 0
	cone := s.view.cone()
	for r := range s.ranks {
		// Ranked by distance (targets first): the nearest get full models.
		tv := &snap.Tanks[s.ranks[r].i]
		dist := s.ranks[r].dist
		e := s.entry(s.ranks[r].i, tv)
		s.ranks[r].e = e
		if e.seen != s.frame {
			e.seen = s.frame
			s.seen++
		}
		e.hideLabels()
		self := s.ranks[r].i == snap.Self
		e.detailed = self || tv == watched || (s.fullModels < DetailModels && dist <= DetailDistance)
		e.showModel(e.detailed)
		if e.detailed {
			s.fullModels++
			e.model.setTeam(s.parts, tv.Team)
			e.model.setPose(vec3(tv.Position), quat(tv.Orientation), tv.Turret, tv.Gun)
		} else if cone.inView(tv.Position, 4+dist*markerAngle) {
			s.drawCrowd(tv, dist)
		}
		s.drawTankOverlays(tv, snap.KnownOf(s.ranks[r].i), self, watched, focus)
	}
	s.queueLabels(snap)
	s.removeUnseen()
	s.combat.update(s, snap)
	s.drawSnapshotGhosts(snap)
	s.lines.commit()
	s.crowd.commit()
	s.minimap.update(snap, s.view, watched, dt)
	s.hud.update(snap, s, dt)
	s.placeLabels()
}

// queueLabels queues the frame's labels for placement: the watched and aimed-at
// tanks first, then the nearest, LabelCap in all; the rest are left unlabelled and
// cost nothing. The ranks past the targets run by distance from the eye, so once
// one is beyond labelMaxDistance by more than a roof's reach from the tank's middle,
// so is every one after it: none of them can be labelled, and they are not looked at
// (prepareLabel would turn each away after working out its roof).
func (s *Scene) queueLabels(snap *game.Snapshot) {
	s.labelUp = s.view.Orientation.Rotate(mgl64.Vec3{0, s.parts.shape.turretRadius, 0})
	reach := labelMaxDistance + s.roofLift.Len()
	for r := 0; r < len(s.ranks) && len(s.labelQueue) < LabelCap; r++ {
		if !s.ranks[r].target && s.ranks[r].dist > reach {
			break
		}
		i := s.ranks[r].i
		s.prepareLabel(s.ranks[r].e, &snap.Tanks[i], i == snap.Self)
	}
}

// overlayNear is how far in front of the eye, m, overlays begin: nothing of them is
// drawn closer, where a ghost or an arrow would fill the picture.
const overlayNear = 4.0

func ptr[T any](v T) *T { return &v }

// setCamera points the camera from eye at look.
func (s *Scene) setCamera(eye, look mgl64.Vec3) {
	dir := look.Sub(eye)
	s.view.Eye = eye
	s.view.Orientation = LookRotation(dir, mgl64.Vec3{0, 1, 0})
	p, q := vec3(eye), quat(s.view.Orientation)
	s.cam.SetPositionVec(&p)
	s.cam.SetQuaternionQuat(&q)
}

// entrySlab is how many tank entries are made at once (Scene.slab).
const entrySlab = 64

// removeUnseen removes the entries of tanks the frame did not see. When the frame
// saw as many entries as there are, there is none to remove, and the walk over
// every entry's memory is spared.
func (s *Scene) removeUnseen() {
	if s.seen == len(s.tanks) {
		return
	}
	for id, e := range s.tanks {
		if e.seen != s.frame {
			s.removeEntry(e)
			e.gone, e.model = true, nil // its slab holds no model of a tank gone
			delete(s.tanks, id)
		}
	}
}

// entry returns the models for tv, index i of the snapshot, creating them the first
// time tv's id appears. A tank is mostly at the index it had last frame, where the
// index cache finds it without a lookup in the map.
func (s *Scene) entry(i int, tv *game.TankView) *tankEntry {
	e := s.at[i] // sized to the snapshot by rankTanks
	if e == nil || e.gone || e.id != tv.ID {
		var ok bool
		if e, ok = s.tanks[tv.ID]; !ok {
			if len(s.slab) == cap(s.slab) {
				s.slab = make([]tankEntry, 0, entrySlab)
			}
			s.slab = append(s.slab, tankEntry{id: tv.ID, model: newTankModel(s.parts, tv.Team, nil), nameText: tv.Name})
			e = &s.slab[len(s.slab)-1]
			e.modelShown = e.model.root.Visible()
			s.world.Add(e.model.root)
			s.tanks[tv.ID] = e
			s.at[i] = e
			return e
		}
		s.at[i] = e
	}
	if e.nameText != tv.Name {
		e.nameText = tv.Name
		if e.name != nil {
			setText(e.name, tv.Name)
		}
	}
	return e
}

// labelsOf makes e's name label the first time the tank is to carry it, and its info
// label the first time info is to be shown (the labels overlay), in e's colours at
// opacity a: a label costs images, and of hundreds of tanks only LabelCap are
// labelled at once.
func (s *Scene) labelsOf(e *tankEntry, info bool, a float32) {
	if e.name != nil && (!info || e.info != nil) {
		return
	}
	c := tankLabelColors(e.stale, a)
	if e.name == nil {
		e.name = s.newTankLabel(e.nameText, labelStyle{size: 15, fg: c.nameFg, bg: c.nameBg})
	}
	if info && e.info == nil {
		e.info = s.newTankLabel("", labelStyle{size: 13, fg: c.infoFg, bg: c.infoBg})
	}
}

// newTankLabel returns a hidden label over a tank showing text in style st, its size
// in points at HUD scale 1.
func (s *Scene) newTankLabel(text string, st labelStyle) *textLabel {
	st.size *= float64(s.hud.scale)
	l := s.hud.fonts.newLabel(text, st)
	l.SetPaddings(1, 3, 1, 3)
	l.SetVisible(false)
	s.hud.labels.Add(l)
	return l
}

// labelled reports whether e's name or info label is shown.
func (e *tankEntry) labelled() bool {
	return e.name != nil && e.name.Visible() || e.info != nil && e.info.Visible()
}

// hideLabels hides e's labels, if it has any.
func (e *tankEntry) hideLabels() {
	if e.name != nil {
		e.name.SetVisible(false)
	}
	if e.info != nil {
		e.info.SetVisible(false)
	}
}

func (s *Scene) removeEntry(e *tankEntry) {
	s.world.Remove(e.model.root)
	e.model.root.DisposeChildren(true)
	for _, l := range [2]*textLabel{e.name, e.info} {
		if l != nil {
			s.hud.labels.Remove(l)
			l.Dispose()
		}
	}
}

// drawOverlays adds tv's trail, clamp and motion lines to the frame's line batch.
func (s *Scene) drawOverlays(tv *game.TankView) {
	if s.overlays&OverlayTrail != 0 {
		lift := mgl64.Vec3{0, 0.3, 0}
		// The trail takes a light tint of the tank's team colour.
		tc := teamColor(tv.Team)
		trailColor := math32.Color{R: 0.4 + 0.6*tc.R, G: 0.4 + 0.6*tc.G, B: 0.4 + 0.6*tc.B}
		for k := 1; k < len(tv.Trail); k++ {
			a, b := tv.Trail[k-1], tv.Trail[k]
			if geom.FiniteVec(a) && geom.FiniteVec(b) {
				s.lines.segment(a.Add(lift), b.Add(lift), trailColor)
			}
		}
	}
	if s.overlays&OverlayClamp != 0 && tv.Clamped && clampPlausible(tv) {
		for _, h := range tv.ClampHits {
			s.lines.segment(h.Add(mgl64.Vec3{0, 3, 0}), h, rayColor)
		}
		for k := 0; k < 3; k++ {
			a, b := tv.ClampHits[k], tv.ClampHits[(k+1)%3]
			s.lines.segment(a.Add(mgl64.Vec3{0, 0.05, 0}), b.Add(mgl64.Vec3{0, 0.05, 0}), rayColor)
		}
		if n := tv.GroundNormal; geom.FiniteVec(n) && n.Len() > 0 {
			s.lines.arrow(tv.Position, n.Normalize().Mul(3), normalColor)
		}
	}
	if s.overlays&OverlayMotion != 0 {
		base := tv.Position.Add(mgl64.Vec3{0, defaultShape().turretPivot[1] + 0.2, 0})
		if geom.FiniteVec(tv.Velocity) {
			s.lines.arrow(base, tv.Velocity, velocityColor)
		}
		if geom.FiniteVec(tv.Acceleration) {
			s.lines.arrow(base, tv.Acceleration.Mul(2), accelColor)
		}
	}
}

// Draw renders the scene with r into the current framebuffer.
func (s *Scene) Draw(r *renderer.Renderer) error {
	if err := r.Render(s.root, s.cam); err != nil {
		return fmt.Errorf("render scene: %w", err)
	}
	return nil
}

// newRock builds a grey boulder for an obstacle.
func newRock(r Rock) *graphic.Mesh {
	g := geometry.NewSphere(1, 7, 5)
	m := material.NewStandard(&math32.Color{R: 0.46, G: 0.44, B: 0.42})
	mesh := graphic.NewMesh(g, m)
	mesh.SetPositionVec(ptr(vec3(r.Center)))
	mesh.SetScale(float32(r.Radius), float32(math.Max(r.Height, 0.5)), float32(r.Radius))
	return mesh
}

// maxClampReach is how far from a tank's position a clamp ray may hit, meters; hits
// further away are not this frame's clamp and are not drawn.
const maxClampReach = 12.0

// clampPlausible reports whether tv's clamp hits are finite and near the tank.
func clampPlausible(tv *game.TankView) bool {
	for _, h := range tv.ClampHits {
		if !geom.FiniteVec(h) || h.Sub(tv.Position).Len() > maxClampReach {
			return false
		}
	}
	return true
}
