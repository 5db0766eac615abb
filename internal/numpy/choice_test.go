package numpy

import (
	"encoding/json"
	"os"
	"testing"
)

// TestRandomBytesChoice replays testdata/choice.json (NumPy itself, by
// testdata/gen_choice.py): interleaved Random, Bytes, ChoiceP and scalar
// integer draws return NumPy's values and leave the generator where
// NumPy's is.
func TestRandomBytesChoice(t *testing.T) {
	data, err := os.ReadFile("testdata/choice.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Seed int64
		Ops  [][]json.RawMessage
		Out  []json.RawMessage
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 3 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		g, err := NewGenerator(c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range c.Ops {
			var name string
			json.Unmarshal(op[0], &name)
			var got any
			switch name {
			case "integers":
				var lo, hi int64
				json.Unmarshal(op[1], &lo)
				json.Unmarshal(op[2], &hi)
				v, err := g.Integers(lo, hi, 1)
				if err != nil {
					t.Fatal(err)
				}
				got = v[0]
			case "bytes":
				var n int
				json.Unmarshal(op[1], &n)
				b := make([]byte, n)
				g.Bytes(b)
				ints := make([]int, n)
				for k, x := range b {
					ints[k] = int(x)
				}
				got = ints
			case "random":
				got = g.Random()
			case "choice":
				var p []float64
				json.Unmarshal(op[1], &p)
				got, err = g.ChoiceP(p)
				if err != nil {
					t.Fatal(err)
				}
			}
			gotJSON, _ := json.Marshal(got)
			var want, have any
			json.Unmarshal(c.Out[i], &want)
			json.Unmarshal(gotJSON, &have)
			wj, _ := json.Marshal(want)
			hj, _ := json.Marshal(have)
			if string(wj) != string(hj) {
				t.Fatalf("seed %d op %d %s: got %s, want %s", c.Seed, i, name, hj, wj)
			}
		}
	}
	g, _ := NewGenerator(1)
	for _, p := range [][]float64{{0.5, 0.4}, {-0.1, 1.1}, {}} {
		if _, err := g.ChoiceP(p); err == nil {
			t.Errorf("ChoiceP(%v) accepted", p)
		}
	}
}
