package schedule

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{in: "0/1", want: Shard{0, 1}},
		{in: "2/3", want: Shard{2, 3}},
		{in: " 0/16 ", want: Shard{0, 16}},
		{in: "3/3", err: "from 0 to 2"},
		{in: "-1/3", err: "from 0 to 2"},
		{in: "0/0", err: "at least 1"},
		{in: "1", err: "want I/N"},
		{in: "a/3", err: "integers"},
		{in: "1/b", err: "integers"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseShard(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != strings.TrimSpace(tc.in) {
			t.Errorf("String() = %q", got.String())
		}
	}
}

// TestStripeUnion checks the stripe rule's property: for every plan size
// and shard count, the stripes are disjoint, their union is the whole
// plan, Len counts each stripe, Global enumerates it in order, and the
// stripes' sizes differ by at most one.
func TestStripeUnion(t *testing.T) {
	for total := 0; total <= 40; total++ {
		for count := 1; count <= 9; count++ {
			owner := make([]int, total)
			for i := range owner {
				owner[i] = -1
			}
			lo, hi := math.MaxInt, 0
			sum := 0
			for idx := 0; idx < count; idx++ {
				s := Shard{idx, count}
				n := s.Len(total)
				sum += n
				lo, hi = min(lo, n), max(hi, n)
				prev := -1
				for local := 0; local < n; local++ {
					g := s.Global(local)
					if g <= prev || g >= total {
						t.Fatalf("%d requests, shard %v: Global(%d) = %d after %d", total, s, local, g, prev)
					}
					prev = g
					if owner[g] != -1 {
						t.Fatalf("%d requests: request %d in shards %d and %d", total, g, owner[g], idx)
					}
					owner[g] = idx
					if !s.Owns(g) {
						t.Fatalf("%d requests, shard %v: Owns(%d) false", total, s, g)
					}
					if s.Local(g) != local {
						t.Fatalf("shard %v: Local(%d) = %d, want %d", s, g, s.Local(g), local)
					}
				}
			}
			if sum != total {
				t.Fatalf("%d requests over %d shards: stripes hold %d", total, count, sum)
			}
			for i, o := range owner {
				if o == -1 {
					t.Fatalf("%d requests over %d shards: request %d in no stripe", total, count, i)
				}
			}
			if total > 0 && hi-lo > 1 {
				t.Fatalf("%d requests over %d shards: stripe sizes from %d to %d", total, count, lo, hi)
			}
		}
	}
}

// TestStripeOffsets checks that each stripe keeps the whole plan's
// intended times: merged back in index order, the stripes' offsets are
// the plan's, for a random arrival process.
func TestStripeOffsets(t *testing.T) {
	spec := Spec{Rate: 50, Burstiness: 0.7}
	const total = 101
	whole, err := NewCursor(spec, total, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]time.Duration, total)
	for i := range want {
		want[i] = whole.Next()
	}
	for _, count := range []int{1, 2, 3, 7, 150} {
		got := make([]time.Duration, total)
		seen := 0
		for idx := 0; idx < count; idx++ {
			c, err := NewCursor(spec, total, 7)
			if err != nil {
				t.Fatal(err)
			}
			s := Shard{idx, count}
			st := Stripe(c, s)
			if st.Len() != s.Len(total) {
				t.Fatalf("shard %v: Len %d, want %d", s, st.Len(), s.Len(total))
			}
			var last time.Duration
			for local := 0; local < st.Len(); local++ {
				last = st.Next()
				got[s.Global(local)] = last
				seen++
			}
			if st.Len() > 0 {
				if again := st.Next(); again != last {
					t.Errorf("shard %v: Next past the end = %v, want the last again (%v)", s, again, last)
				}
			}
		}
		if seen != total {
			t.Fatalf("%d shards: %d offsets, want %d", count, seen, total)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d shards: request %d at %v, want %v", count, i, got[i], want[i])
			}
		}
	}
}

func TestShardMaxConcurrency(t *testing.T) {
	for _, tc := range []struct {
		total, count int
		want         []int
		err          bool
	}{
		{total: 0, count: 3, want: []int{0, 0, 0}},
		{total: 9, count: 3, want: []int{3, 3, 3}},
		{total: 10, count: 3, want: []int{4, 3, 3}},
		{total: 2, count: 3, err: true},
	} {
		sum := 0
		for idx := 0; idx < tc.count; idx++ {
			got, err := Shard{idx, tc.count}.MaxConcurrency(tc.total)
			if tc.err {
				if err == nil {
					t.Errorf("MaxConcurrency(%d) over %d: no error", tc.total, tc.count)
				}
				continue
			}
			if err != nil || got != tc.want[idx] {
				t.Errorf("shard %d/%d of %d: %d, %v; want %d", idx, tc.count, tc.total, got, err, tc.want[idx])
			}
			sum += got
		}
		if !tc.err && sum != tc.total {
			t.Errorf("%d over %d: parts add up to %d", tc.total, tc.count, sum)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "2/3", "3/3", "x", "1/0", "-1/-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseShard(in)
		if err != nil {
			return
		}
		if s.Check() != nil || s.Index < 0 || s.Index >= s.Count {
			t.Fatalf("ParseShard(%q) = %v accepted", in, s)
		}
	})
}
