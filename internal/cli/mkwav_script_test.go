package cli_test

import (
	"bytes"
	"math"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vbench/vbench/internal/wav"
)

func init() { scriptCmds["mkwav"] = mkwav }

// mkwav FILE SECONDS RATE writes a mono 16-bit WAV of a 440 Hz tone.
func mkwav(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mkwav FILE SECONDS RATE")
	}
	secs, err := strconv.ParseFloat(args[1], 64)
	ts.Check(err)
	rate, err := strconv.Atoi(args[2])
	ts.Check(err)
	a := &wav.Audio{Rate: rate, Samples: make([]float64, int(secs*float64(rate)))}
	for i := range a.Samples {
		a.Samples[i] = 0.5 * math.Sin(2*math.Pi*440*float64(i)/float64(rate))
	}
	var b bytes.Buffer
	ts.Check(wav.Encode16(&b, a))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b.Bytes(), 0o644))
}
