package lab

import (
	"bufio"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot size: a square top view above an error strip, at plotDPI.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 11 * vg.Inch
	// plotDPI is the resolution of the PNG drawn by writePlot.
	plotDPI = 110
)

// palette returns the algorithms' colours: distinct and colour-blind friendly
// (Okabe–Ito).
func palette() [8]color.RGBA {
	return [8]color.RGBA{
		{0, 114, 178, 255},   // blue
		{213, 94, 0, 255},    // vermillion
		{0, 158, 115, 255},   // green
		{204, 121, 167, 255}, // purple
		{230, 159, 0, 255},   // orange
		{86, 180, 233, 255},  // sky
		{240, 228, 66, 255},  // yellow
		{120, 120, 120, 255}, // grey
	}
}

// savePlot draws the results of one scenario (each with a Record) to a PNG file; see
// writePlot.
func savePlot(name string, path *Path, results []Result) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("save plot: %w", err)
	}
	w := bufio.NewWriter(f)
	if err := writePlot(w, path, results); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("save plot: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save plot: %w", err)
	}
	return nil
}

// writePlot draws, as a PNG, the true path and each result's displayed path seen from
// above (x east, −z north, in meters, equal scales) with the points where the owner
// published marked, on terrain their heights over time, and at the bottom each
// result's position error over the measured time. Results without a Record are
// skipped.
func writePlot(w io.Writer, path *Path, results []Result) error {
	var recs []Result
	for _, r := range results {
		if r.Record != nil && len(r.Record.Shown) > 0 {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return errors.New("plot: no recorded run")
	}
	top := plot.New()
	top.Title.Text = fmt.Sprintf("%s seen from above: truth (black), displayed paths, ● updates sent", path.Name)
	top.X.Label.Text = "x (m, east)"
	top.Y.Label.Text = "−z (m, north)"
	top.Legend.Top, top.Legend.Left = true, true
	top.Legend.XOffs = vg.Points(6)
	top.Add(plotter.NewGrid())

	bottom := plot.New()
	bottom.Title.Text = "distance from the truth at the same instant"
	bottom.X.Label.Text = "time (s)"
	bottom.Y.Label.Text = "position error (m)"
	bottom.Legend.Top = true
	bottom.Add(plotter.NewGrid())

	// On terrain, a side panel shows height over time: falls, landings and clamping.
	var side *plot.Plot
	if path.Ground != nil {
		side = plot.New()
		side.Title.Text = "height over time (ground clamping)"
		side.X.Label.Text = "time (s)"
		side.Y.Label.Text = "y (m, up)"
		side.Add(plotter.NewGrid())
	}

	// The truth over the recorded window.
	t0, t1 := recs[0].Record.Times[0], recs[0].Record.Times[len(recs[0].Record.Times)-1]
	var truth, truthY plotter.XYs
	for _, p := range path.Poses {
		if p.Time >= t0-1e-9 && p.Time <= t1+1e-9 {
			truth = append(truth, plotter.XY{X: p.Position.X(), Y: -p.Position.Z()})
			truthY = append(truthY, plotter.XY{X: p.Time, Y: p.Position.Y()})
		}
	}
	if side != nil {
		l, err := plotter.NewLine(truthY)
		if err != nil {
			return fmt.Errorf("plot truth height: %w", err)
		}
		l.Color, l.Width = color.Black, vg.Points(3)
		side.Add(l)
	}
	tl, err := plotter.NewLine(truth)
	if err != nil {
		return fmt.Errorf("plot truth: %w", err)
	}
	tl.Color = color.Black
	tl.Width = vg.Points(3)
	top.Add(tl)
	top.Legend.Add("truth", tl)

	// Updates are drawn once when every algorithm published the same ones (fixed
	// rate), else in each algorithm's colour.
	shared := true
	for _, r := range recs[1:] {
		shared = shared && sameVecs(r.Record.Updates, recs[0].Record.Updates)
	}
	var scatters []*plotter.Scatter
	colors := palette()
	for k, r := range recs {
		rec := r.Record
		c := colors[k%len(colors)]
		shown := make(plotter.XYs, len(rec.Shown))
		errs := make(plotter.XYs, len(rec.Shown))
		for i, p := range rec.Shown {
			shown[i] = plotter.XY{X: p.X(), Y: -p.Z()}
			errs[i] = plotter.XY{X: rec.Times[i], Y: rec.Err[i]}
		}
		l, err := plotter.NewLine(shown)
		if err != nil {
			return fmt.Errorf("plot %s: %w", r.Algo, err)
		}
		l.Color, l.Width = c, vg.Points(1.4)
		top.Add(l)
		top.Legend.Add(r.Algo, l)
		if len(rec.Updates) > 0 && (!shared || k == 0) {
			ups := make(plotter.XYs, len(rec.Updates))
			for i, p := range rec.Updates {
				ups[i] = plotter.XY{X: p.X(), Y: -p.Z()}
			}
			sc, err := plotter.NewScatter(ups)
			if err != nil {
				return fmt.Errorf("plot %s updates: %w", r.Algo, err)
			}
			sc.Color, sc.Radius, sc.Shape = c, vg.Points(3), draw.CircleGlyph{}
			if shared {
				sc.Color = color.Black
			}
			scatters = append(scatters, sc)
		}

		if side != nil {
			ys := make(plotter.XYs, len(rec.Shown))
			for i, p := range rec.Shown {
				ys[i] = plotter.XY{X: rec.Times[i], Y: p.Y()}
			}
			l, err := plotter.NewLine(ys)
			if err != nil {
				return fmt.Errorf("plot %s height: %w", r.Algo, err)
			}
			l.Color, l.Width = c, vg.Points(1.2)
			side.Add(l)
		}

		el, err := plotter.NewLine(errs)
		if err != nil {
			return fmt.Errorf("plot %s error: %w", r.Algo, err)
		}
		el.Color, el.Width = c, vg.Points(1.4)
		bottom.Add(el)
		bottom.Legend.Add(fmt.Sprintf("%s: mean %.3f m, p95 %.3f m, %.1f updates/s", r.Algo, r.MeanErrM, r.P95ErrM, r.UpdatesPerS), el)
	}
	for _, sc := range scatters {
		top.Add(sc) // on top of the paths
	}
	if shared && len(scatters) > 0 {
		top.Legend.Add("update sent", scatters[0])
	}
	bottom.Y.Min = 0
	bottom.Y.Max *= 1.45 // legend headroom

	img := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	dc := draw.New(img)
	split := plotHeight * 0.32
	if side != nil {
		split = plotHeight * 0.45
	}
	topCanvas := draw.Crop(dc, 0, 0, split, 0)
	equalAspect(top, topCanvas)
	top.Draw(topCanvas)
	if side != nil {
		mid := plotHeight * 0.24
		side.Draw(draw.Crop(dc, 0, 0, mid, split-plotHeight))
		split = mid
	}
	bottom.Draw(draw.Crop(dc, 0, 0, 0, split-plotHeight))
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	return nil
}

// equalAspect sets the top view's ranges so that a meter is as long across as up on
// canvas c, centred on the data with a margin, and headroom for the legend.
func equalAspect(p *plot.Plot, c draw.Canvas) {
	w, h := p.X.Max-p.X.Min, p.Y.Max-p.Y.Min
	cx, cy := (p.X.Min+p.X.Max)/2, (p.Y.Min+p.Y.Max)/2
	w, h = max(w, 1)*1.06, max(h, 1)*1.06
	h *= 1.22 // legend headroom
	cy += 0.09 * h
	for range 2 { // the data area depends a little on the tick labels
		p.X.Min, p.X.Max = cx-w/2, cx+w/2
		p.Y.Min, p.Y.Max = cy-h/2, cy+h/2
		da := p.DataCanvas(c)
		aw, ah := float64(da.Max.X-da.Min.X), float64(da.Max.Y-da.Min.Y)
		if aw <= 0 || ah <= 0 {
			return
		}
		// Meters per point along each axis; widen the axis that has fewer.
		if w/aw > h/ah {
			h = w / aw * ah
		} else {
			w = h / ah * aw
		}
	}
	p.X.Min, p.X.Max = cx-w/2, cx+w/2
	p.Y.Min, p.Y.Max = cy-h/2, cy+h/2
}

// sameVecs reports whether a and b hold the same points.
func sameVecs(a, b []mgl64.Vec3) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
