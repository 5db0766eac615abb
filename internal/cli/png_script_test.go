package cli_test

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// pngcheck is the script command "pngcheck GLOB W H": exactly one file
// matches GLOB, and it decodes as a W×H PNG of which at least a tenth of
// the pixels are not white (a figure was drawn on the background).
func pngcheck(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: pngcheck GLOB W H")
	}
	matches, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(matches) != 1 {
		ts.Fatalf("pngcheck: %d files match %s, want 1: %q", len(matches), args[0], matches)
	}
	w, err := strconv.Atoi(args[1])
	ts.Check(err)
	h, err := strconv.Atoi(args[2])
	ts.Check(err)
	f, err := os.Open(matches[0])
	ts.Check(err)
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		ts.Fatalf("pngcheck: %s: %v", args[0], err)
	}
	if b := img.Bounds(); b != image.Rect(0, 0, w, h) {
		ts.Fatalf("pngcheck: %s is %v, want %dx%d", args[0], b, w, h)
	}
	drawn := 0
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	for y := range h {
		for x := range w {
			if color.RGBAModel.Convert(img.At(x, y)) != white {
				drawn++
			}
		}
	}
	if drawn < w*h/10 {
		ts.Fatalf("pngcheck: %s: only %d of %d pixels are drawn", args[0], drawn, w*h)
	}
}
