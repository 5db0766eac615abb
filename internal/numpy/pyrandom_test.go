package numpy

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// pyGolden is testdata/pyrandom.json, written by testdata/gen_pyrandom.py
// from CPython, NumPy and pandas themselves.
type pyGolden struct {
	CPython []struct {
		Seed            int64
		Getrandbits     [][2]uint64
		Random          []float64
		Randbelow       [][2]uint64
		Randint         []int
		Shuffle20       []int
		ShuffleHead     []int `json:"shuffle1000_then_head"`
		ChoiceAfter     []int `json:"choice_after"`
		Choices         []int
		Weights         []float64
		ChoicesWeighted []int `json:"choices_weighted"`
		Sample          [][3]json.RawMessage
	}
	Legacy []struct {
		Seed        uint32
		Randint     [][3]json.RawMessage
		Permutation [][2]json.RawMessage
		P           []float64
		Choice      [][5]json.RawMessage
		Pandas      [][4]json.RawMessage `json:"pandas_sample"`
	}
}

func readPyGolden(t *testing.T) *pyGolden {
	t.Helper()
	data, err := os.ReadFile("testdata/pyrandom.json")
	if err != nil {
		t.Fatal(err)
	}
	var g pyGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.CPython) == 0 || len(g.Legacy) == 0 {
		t.Fatal("testdata/pyrandom.json has no cases")
	}
	return &g
}

func unmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

func TestPyRandomMatchesCPython(t *testing.T) {
	for _, c := range readPyGolden(t).CPython {
		r := NewPyRandom(c.Seed)
		for _, kv := range c.Getrandbits {
			if got := r.Getrandbits(int(kv[0])); got != kv[1] {
				t.Errorf("seed %d: getrandbits(%d) = %d, Python %d", c.Seed, kv[0], got, kv[1])
			}
		}
		r = NewPyRandom(c.Seed)
		for i, want := range c.Random {
			if got := r.Random(); got != want {
				t.Errorf("seed %d: random() #%d = %v, Python %v", c.Seed, i, got, want)
			}
		}
		r = NewPyRandom(c.Seed)
		for _, kv := range c.Randbelow {
			if got := r.Randbelow(int(kv[0])); uint64(got) != kv[1] {
				t.Errorf("seed %d: _randbelow(%d) = %d, Python %d", c.Seed, kv[0], got, kv[1])
			}
		}
		r = NewPyRandom(c.Seed)
		var ints []int
		for range c.Randint {
			v, err := r.Randint(1, 8)
			if err != nil {
				t.Fatal(err)
			}
			ints = append(ints, v)
		}
		if !slices.Equal(ints, c.Randint) {
			t.Errorf("seed %d: randint(1, 8) = %v, Python %v", c.Seed, ints, c.Randint)
		}
		r = NewPyRandom(c.Seed)
		xs := seq(20)
		r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		if !slices.Equal(xs, c.Shuffle20) {
			t.Errorf("seed %d: shuffle(range(20)) = %v, Python %v", c.Seed, xs, c.Shuffle20)
		}
		xs = seq(1000)
		r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		if !slices.Equal(xs[:10], c.ShuffleHead) {
			t.Errorf("seed %d: shuffle(range(1000))[:10] = %v, Python %v", c.Seed, xs[:10], c.ShuffleHead)
		}
		var picks []int
		for range c.ChoiceAfter {
			picks = append(picks, r.Choice(37))
		}
		if !slices.Equal(picks, c.ChoiceAfter) {
			t.Errorf("seed %d: choice(range(37)) = %v, Python %v", c.Seed, picks, c.ChoiceAfter)
		}
		r = NewPyRandom(c.Seed)
		if got := r.Choices(13, 12); !slices.Equal(got, c.Choices) {
			t.Errorf("seed %d: choices(range(13), k=12) = %v, Python %v", c.Seed, got, c.Choices)
		}
		r = NewPyRandom(c.Seed)
		got, err := r.ChoicesWeighted(c.Weights, 12)
		if err != nil || !slices.Equal(got, c.ChoicesWeighted) {
			t.Errorf("seed %d: choices(weights=%v, k=12) = %v, %v; Python %v", c.Seed, c.Weights, got, err, c.ChoicesWeighted)
		}
		r = NewPyRandom(c.Seed)
		for _, s := range c.Sample {
			var n, k int
			var want []int
			unmarshal(t, s[0], &n)
			unmarshal(t, s[1], &k)
			unmarshal(t, s[2], &want)
			got, err := r.Sample(n, k)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("seed %d: sample(range(%d), %d) = %v, %v; Python %v", c.Seed, n, k, got, err, want)
			}
		}
	}
}

func TestPyRandomErrors(t *testing.T) {
	r := NewPyRandom(0)
	if _, err := r.Randrange(3, 3); err == nil {
		t.Error("randrange(3, 3) did not fail")
	}
	if _, err := r.Sample(3, 4); err == nil {
		t.Error("sample(range(3), 4) did not fail")
	}
	if _, err := r.ChoicesWeighted([]float64{0, 0}, 1); err == nil {
		t.Error("choices with zero weights did not fail")
	}
	// The failures drew nothing, and Seed starts the stream over.
	if got, want := r.Random(), NewPyRandom(0).Random(); got != want {
		t.Errorf("after failed calls: %v, want %v", got, want)
	}
	r.Seed(0)
	if got, want := r.Random(), NewPyRandom(0).Random(); got != want {
		t.Errorf("after Seed(0): %v, want %v", got, want)
	}
}

func TestRandomStateMethodsMatchNumPy(t *testing.T) {
	for _, c := range readPyGolden(t).Legacy {
		rs := NewRandomState(c.Seed)
		for _, k := range c.Randint {
			var lo, hi int64
			var want []int64
			unmarshal(t, k[0], &lo)
			unmarshal(t, k[1], &hi)
			unmarshal(t, k[2], &want)
			got, err := rs.Randint(lo, hi, len(want))
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("seed %d: randint(%d, %d, %d) = %v, %v; NumPy %v", c.Seed, lo, hi, len(want), got, err, want)
			}
		}
		rs = NewRandomState(c.Seed)
		for _, k := range c.Permutation {
			var n int
			var want []int64
			unmarshal(t, k[0], &n)
			unmarshal(t, k[1], &want)
			if got := rs.Permutation(n); !slices.Equal(got, want) {
				t.Errorf("seed %d: permutation(%d) = %v, NumPy %v", c.Seed, n, got, want)
			}
		}
		rs = NewRandomState(c.Seed)
		for _, k := range c.Choice {
			var n, size int
			var replace bool
			var p []float64
			var want []int64
			unmarshal(t, k[0], &n)
			unmarshal(t, k[1], &size)
			unmarshal(t, k[2], &replace)
			unmarshal(t, k[3], &p)
			unmarshal(t, k[4], &want)
			got, err := rs.Choice(n, size, replace, p)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("seed %d: choice(%d, %d, replace=%v, p=%v) = %v, %v; NumPy %v", c.Seed, n, size, replace, p, got, err, want)
			}
		}
		for _, k := range c.Pandas {
			var n, size int
			var replace bool
			var want []int64
			unmarshal(t, k[0], &n)
			unmarshal(t, k[1], &size)
			unmarshal(t, k[2], &replace)
			unmarshal(t, k[3], &want)
			got, err := NewRandomState(c.Seed).Choice(n, size, replace, nil)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("seed %d: DataFrame.sample(n=%d, replace=%v) rows %v, %v; pandas %v", c.Seed, size, replace, got, err, want)
			}
		}
	}
}

func TestRandomStateChoiceErrors(t *testing.T) {
	rs := NewRandomState(0)
	for _, tc := range []struct {
		n, size int
		replace bool
		p       []float64
	}{
		{0, 1, true, nil},
		{3, 4, false, nil},
		{3, 1, true, []float64{0.5, 0.5}},
		{2, 1, true, []float64{0.5, 0.6}},
		{2, 1, true, []float64{-0.5, 1.5}},
		{3, 2, false, []float64{1, 0, 0}},
	} {
		if _, err := rs.Choice(tc.n, tc.size, tc.replace, tc.p); err == nil {
			t.Errorf("choice(%d, %d, %v, %v) did not fail", tc.n, tc.size, tc.replace, tc.p)
		}
	}
	if _, err := rs.Randint(5, 5, 1); err == nil {
		t.Error("randint(5, 5) did not fail")
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
