package dataset

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestPyRandomGolden checks pyRandom against the values CPython printed
// (testdata/pyrandom_sharegpt.py).
func TestPyRandomGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/pyrandom_sharegpt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Seed        int64    `json:"seed"`
		GetRandBits []uint64 `json:"getrandbits"`
		RandBelow   []int    `json:"randbelow"`
		Shuffle20   []int    `json:"shuffle20"`
		Choice7     []int    `json:"choice7_after"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, c := range cases {
		r := newPyRandom(c.Seed)
		var bits []uint64
		for _, k := range []int{1, 5, 31, 32, 33, 48, 64} {
			bits = append(bits, r.getrandbits(k))
		}
		if !slices.Equal(bits, c.GetRandBits) {
			t.Errorf("seed %d: getrandbits = %v, want %v", c.Seed, bits, c.GetRandBits)
		}
		r = newPyRandom(c.Seed)
		var below []int
		for _, n := range []int{1, 2, 3, 10, 1000, 90000, 1<<31 + 1, 1<<40 + 3} {
			below = append(below, r.randbelow(n))
		}
		if !slices.Equal(below, c.RandBelow) {
			t.Errorf("seed %d: _randbelow = %v, want %v", c.Seed, below, c.RandBelow)
		}
		r = newPyRandom(c.Seed)
		xs := make([]int, 20)
		for i := range xs {
			xs[i] = i
		}
		r.shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		if !slices.Equal(xs, c.Shuffle20) {
			t.Errorf("seed %d: shuffle = %v, want %v", c.Seed, xs, c.Shuffle20)
		}
		var ch []int
		for range 10 {
			ch = append(ch, r.choice(7))
		}
		if !slices.Equal(ch, c.Choice7) {
			t.Errorf("seed %d: choice = %v, want %v", c.Seed, ch, c.Choice7)
		}
	}
}
