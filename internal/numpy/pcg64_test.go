package numpy

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestPCG64RawOutputs checks the LCG and its XSL RR output against
// numpy/random/tests/data/pcg64-testset-1.csv as NumPy first generated it
// (src/pcg64/pcg64-test-data-gen.c: srandom with initstate 0xdeadbeaf,
// initseq 0, before SeedSequence existed): outputs 0-9 and 999.
func TestPCG64RawOutputs(t *testing.T) {
	want := map[int]uint64{
		0:   0xb174ddf3fe597da6,
		1:   0xfc217240c1e61e6f,
		2:   0x20279da26fec9cbf,
		3:   0xa5f4ee34651f4e1e,
		4:   0xb254d7901c68b9db,
		5:   0x6bf2a64e4052c36f,
		6:   0xbec4c7418c0f61b6,
		7:   0xb03e595a4ef2b2bd,
		8:   0xc8e051957ccb74c6,
		9:   0xf5082df7473c6f62,
		999: 0x4c44d61328ac5e4a,
	}
	p := seededPCG64(0, 0xdeadbeaf, 0, 0)
	for i := 0; i < 1000; i++ {
		got := p.Uint64()
		if w, ok := want[i]; ok && got != w {
			t.Errorf("output %d = %#x, want %#x", i, got, w)
		}
	}
}

// TestDefaultRNG checks SeedSequence seeding end to end against values
// NumPy documents or prints: np.random.default_rng(seed).random(5), where
// random() is (Uint64 >> 11) / 2⁵³.
func TestDefaultRNG(t *testing.T) {
	tests := []struct {
		seed uint64
		want []float64
	}{
		// NumPy's "Random sampling" quick start shows the first value.
		{12345, []float64{0.22733602246716966, 0.31675833970975287, 0.7973654573327341, 0.6762546707509746, 0.391109550601909}},
		{0, []float64{0.6369616873214543, 0.2697867137638703, 0.04097352393619469}},
		{42, []float64{0.7739560485559633, 0.4388784397520523, 0.8585979199113825}},
	}
	for _, tt := range tests {
		p := NewPCG64(tt.seed)
		for i, want := range tt.want {
			if got := float64(p.Uint64()>>11) / (1 << 53); got != want {
				t.Errorf("default_rng(%d).random() #%d = %.17g, want %.17g", tt.seed, i, got, want)
			}
		}
	}
	// The same quick start: default_rng(12345).integers(low=0, high=10,
	// size=3) is [6, 2, 7].
	g, err := NewGenerator(12345)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.Integers(0, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{6, 2, 7}; !slices.Equal(got, want) {
		t.Errorf("default_rng(12345).integers(0, 10, 3) = %v, want %v", got, want)
	}
}

func TestSeedWords(t *testing.T) {
	tests := []struct {
		seed uint64
		want []uint32
	}{
		{0, []uint32{0}},
		{12345, []uint32{12345}},
		{0x10deadbeef, []uint32{0xdeadbeef, 0x10}},
		{math.MaxUint64, []uint32{math.MaxUint32, math.MaxUint32}},
	}
	for _, tt := range tests {
		if got := seedWords(tt.seed); !slices.Equal(got, tt.want) {
			t.Errorf("seedWords(%#x) = %#x, want %#x", tt.seed, got, tt.want)
		}
	}
}

func TestPCG64Uint32Buffering(t *testing.T) {
	a, b := NewPCG64(7), NewPCG64(7)
	x := a.Uint64()
	lo, hi := b.Uint32(), b.Uint32()
	if lo != uint32(x) || hi != uint32(x>>32) {
		t.Errorf("Uint32 pair = %#x %#x, want low then high half of %#x", lo, hi, x)
	}
	// A buffered high half survives an intervening Uint64.
	c := NewPCG64(7)
	c.Uint32()
	y := c.Uint64()
	if y == x {
		t.Fatal("Uint64 after Uint32 repeated the buffered draw")
	}
	if got := c.Uint32(); got != uint32(x>>32) {
		t.Errorf("buffered half = %#x, want %#x", got, uint32(x>>32))
	}
}

// rawGen returns a Generator and a twin PCG64 in the same state, so tests
// can derive expected integers by hand from raw outputs.
func rawGen(seed uint64) (*Generator, *PCG64) {
	return &Generator{bits: NewPCG64(seed)}, NewPCG64(seed)
}

// lemireByHand is Lemire's method written from its definition: accept the
// 32-bit draw x when (x·n mod 2³²) ≥ (2³² − n) mod n and return ⌊x·n/2³²⌋.
func lemireByHand(next func() uint32, n uint64) uint64 {
	threshold := (1<<32 - n) % n
	for {
		m := uint64(next()) * n
		if m&math.MaxUint32 >= threshold {
			return m >> 32
		}
	}
}

func TestIntegers(t *testing.T) {
	tests := []struct {
		name      string
		low, high int64
		size      int
	}{
		{"small range", 0, 10, 50},
		{"offset range", 100, 103, 50},
		{"vocab", 0, 199998, 1000},
		{"negative low", -5, 5, 50},
		{"odd size keeps half a draw", 0, 1000, 3},
		{"range just under 2^32", 0, 1<<32 - 1, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, twin := rawGen(42)
			got, err := g.Integers(tt.low, tt.high, tt.size)
			if err != nil {
				t.Fatal(err)
			}
			n := uint64(tt.high - tt.low)
			for i, v := range got {
				want := tt.low + int64(lemireByHand(twin.Uint32, n))
				if v != want {
					t.Fatalf("value %d = %d, want %d", i, v, want)
				}
			}
			if g.bits.Uint64() != twin.Uint64() {
				t.Error("generator and twin disagree after the draws")
			}
		})
	}
}

func TestIntegersWideRanges(t *testing.T) {
	// rng = 2³²−1: raw 32-bit draws.
	g, twin := rawGen(1)
	got, _ := g.Integers(10, 10+1<<32, 3)
	for i, v := range got {
		if want := 10 + int64(twin.Uint32()); v != want {
			t.Errorf("2^32 range value %d = %d, want %d", i, v, want)
		}
	}
	// The widest int64 range, rng = 2⁶⁴−2: Lemire on 64-bit draws with
	// n = 2⁶⁴−1, where ⌊x·n/2⁶⁴⌋ = x−1 for x > 0.
	g, twin = rawGen(1)
	minInt := int64(math.MinInt64)
	got, _ = g.Integers(minInt, math.MaxInt64, 1)
	if want := int64(uint64(minInt) + twin.Uint64() - 1); got[0] != want {
		t.Errorf("full range value = %d, want %d", got[0], want)
	}
	// Other 64-bit ranges: Lemire on 64-bit draws, ⌊x·n/2⁶⁴⌋.
	g, twin = rawGen(1)
	got, _ = g.Integers(0, 1<<40, 5)
	for i, v := range got {
		if want := int64(twin.Uint64() >> 24); v != want {
			t.Errorf("2^40 range value %d = %d, want %d", i, v, want)
		}
	}
}

func TestIntegersBufferAcrossCalls(t *testing.T) {
	// Three values use one and a half 64-bit draws; the next call starts
	// with the buffered half.
	g, twin := rawGen(3)
	a, _ := g.Integers(0, 1000, 3)
	b, _ := g.Integers(0, 1000, 1)
	all := append(a, b...)
	for i, v := range all {
		if want := int64(lemireByHand(twin.Uint32, 1000)); v != want {
			t.Errorf("value %d = %d, want %d", i, v, want)
		}
	}
}

func TestIntegersNoDraws(t *testing.T) {
	tests := []struct {
		name      string
		low, high int64
		size      int
		want      []int64
	}{
		{"one value range", 7, 8, 4, []int64{7, 7, 7, 7}},
		{"empty size", 0, 100, 0, []int64{}},
		{"empty size ignores bounds", 5, 5, 0, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, twin := rawGen(9)
			got, err := g.Integers(tt.low, tt.high, tt.size)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Integers = %v, want %v", got, tt.want)
			}
			if g.bits.Uint64() != twin.Uint64() {
				t.Error("Integers consumed draws")
			}
		})
	}
}

func TestIntegersErrors(t *testing.T) {
	g, _ := rawGen(0)
	for _, b := range [][2]int64{{5, 5}, {6, 5}, {0, math.MinInt64}} {
		if _, err := g.Integers(b[0], b[1], 1); !errors.Is(err, errLowHigh) {
			t.Errorf("Integers(%d, %d) error = %v, want %v", b[0], b[1], err, errLowHigh)
		}
	}
	if _, err := g.Integers(0, 5, -1); err == nil {
		t.Error("negative size: no error")
	}
	if _, err := NewGenerator(-1); err == nil {
		t.Error("negative seed: no error")
	}
}
