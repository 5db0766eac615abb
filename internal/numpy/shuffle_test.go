package numpy

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestShuffleMatchesNumPy checks Generator.Permutation and Shuffle, and
// the draws after them, against testdata/shuffle.json (gen_shuffle.py).
func TestShuffleMatchesNumPy(t *testing.T) {
	data, err := os.ReadFile("testdata/shuffle.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			Seed  int64
			N     int
			Perm  []int
			After []int64
		}
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range g.Cases {
		gen, err := NewGenerator(c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		perm := gen.Permutation(c.N)
		if c.N > 1000 {
			perm = append(perm[:50:50], perm[len(perm)-50:]...)
		}
		if !slices.Equal(perm, c.Perm) {
			t.Errorf("seed %d n %d: permutation %v, numpy %v", c.Seed, c.N, head(perm), head(c.Perm))
		}
		after, err := gen.Integers(0, 1000, 5)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(after, c.After) {
			t.Errorf("seed %d n %d: integers after the shuffle %v, numpy %v", c.Seed, c.N, after, c.After)
		}
	}
}

func head[T any](s []T) []T { return s[:min(len(s), 10)] }
