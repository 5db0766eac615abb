package numpy

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// pychoiceGolden is testdata/pychoice.json, written by
// testdata/pychoice_gen.py with Debian's python3.
type pychoiceGolden struct {
	Python string `json:"python"`
	Cases  []struct {
		Seed  uint64 `json:"seed"`
		Draws []struct {
			N      string   `json:"n"`
			Values []string `json:"values"`
		} `json:"draws"`
	} `json:"cases"`
	Lora []struct {
		Seed    uint64   `json:"seed"`
		Modules []string `json:"modules"`
		Chosen  []string `json:"chosen"`
	} `json:"lora"`
}

func loadPychoice(t *testing.T) pychoiceGolden {
	t.Helper()
	data, err := os.ReadFile("testdata/pychoice.json")
	if err != nil {
		t.Fatal(err)
	}
	var g pychoiceGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 || len(g.Lora) == 0 {
		t.Fatal("testdata/pychoice.json holds no cases")
	}
	return g
}

// random.seed(seed) then random.choice(range(n)), 40 times per n, the n
// in turn on one generator: bit-exact with CPython, including n that need
// one rejection in two (n = 2^k + small) and two 32-bit words (n > 2^32).
func TestPyRandbelowMatchesCPython(t *testing.T) {
	g := loadPychoice(t)
	for _, c := range g.Cases {
		m := NewMT19937Key(PythonSeedKey(c.Seed))
		for _, d := range c.Draws {
			n, err := strconv.ParseUint(d.N, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range d.Values {
				got := PyRandbelow(m, n)
				if strconv.FormatUint(got, 10) != want {
					t.Fatalf("seed %d, n %d, draw %d: got %d, want %s (python %s)", c.Seed, n, i, got, want, g.Python)
				}
			}
		}
	}
}

// vLLM's --lora-assignment random: random.choice(names) per request after
// random.seed(seed).
func TestPyChoiceLoRA(t *testing.T) {
	for _, c := range loadPychoice(t).Lora {
		m := NewMT19937Key(PythonSeedKey(c.Seed))
		for i, want := range c.Chosen {
			if got := c.Modules[PyRandbelow(m, uint64(len(c.Modules)))]; got != want {
				t.Fatalf("seed %d, request %d: %s, want %s", c.Seed, i, got, want)
			}
		}
	}
}

func TestPyGetrandbitsRange(t *testing.T) {
	m := NewMT19937Key(PythonSeedKey(3))
	for k := 1; k <= 64; k++ {
		for range 20 {
			if v := PyGetrandbits(m, k); k < 64 && v>>k != 0 {
				t.Fatalf("getrandbits(%d) = %d has more than %d bits", k, v, k)
			}
		}
	}
}
