package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// seq returns n token ids starting at from.
func seq(from, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = from + i
	}
	return ids
}

func cat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Each step looks one prompt up; the cache keeps what earlier steps left.
func TestPrefixCacheLookup(t *testing.T) {
	shared := seq(1000, 40) // 2 full blocks and 8 tokens
	tests := []struct {
		name     string
		capacity int
		prompts  [][]int
		hits     []int
		cached   int
	}{
		{"cold then warm", 100, [][]int{cat(shared, seq(0, 24)), cat(shared, seq(50, 24))}, []int{0, 32}, 4 + 2},
		// The third block differs in its last 8 tokens: only 2 blocks match.
		{"partial block never hits", 100, [][]int{cat(shared, seq(0, 8)), cat(shared, seq(9, 8))}, []int{0, 32}, 3 + 1},
		// A hit leaves at least the last token to compute: a 32-token
		// prompt seen before hits 16, not 32.
		{"last token recomputed", 100, [][]int{seq(0, 32), seq(0, 32)}, []int{0, 16}, 2},
		// Blocks are chained: the same block after another prefix misses.
		{"chained hashes", 100, [][]int{cat(seq(0, 16), seq(100, 16), seq(7, 1)), cat(seq(1, 16), seq(100, 16), seq(7, 1))}, []int{0, 0}, 4},
		{"short prompts", 100, [][]int{seq(0, 15), seq(0, 15), nil}, []int{0, 0, 0}, 0},
		// Capacity 3: the second prompt's 2 blocks evict the first's oldest
		// block (its first), so the third lookup of the first prompt misses.
		{"eviction", 3, [][]int{seq(0, 33), seq(500, 33), seq(0, 33)}, []int{0, 0, 0}, 3},
		// Capacity 4 keeps both: the first prompt hits again.
		{"within capacity", 4, [][]int{seq(0, 33), seq(500, 33), seq(0, 33)}, []int{0, 0, 32}, 4},
		// A hit refreshes recency: after A, B, A, the next new block evicts
		// B's oldest, not A's.
		{"lru order", 4, [][]int{seq(0, 33), seq(500, 33), seq(0, 33), seq(900, 17), seq(0, 33)}, []int{0, 0, 32, 0, 32}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPrefixCache(tt.capacity, time.Unix(0, 0))
			var queries, hits uint64
			for i, p := range tt.prompts {
				got := c.lookup(p)
				if got != tt.hits[i] {
					t.Errorf("lookup %d = %d, want %d", i, got, tt.hits[i])
				}
				queries += uint64(len(p))
				hits += uint64(tt.hits[i])
			}
			st := c.stats()
			if st.Queries != queries || st.Hits != hits || st.CachedBlocks != tt.cached {
				t.Errorf("stats %+v, want queries %d hits %d cached %d", st, queries, hits, tt.cached)
			}
		})
	}
	if newPrefixCache(0, time.Now()) != nil {
		t.Error("capacity 0 makes a cache")
	}
}

// TestPrefixCacheMetrics serves prompts through /v1/completions and
// /v1/chat/completions and reads the counters and gauges back from
// /metrics, as vLLM exposes them (counters with _created series).
func TestPrefixCacheMetrics(t *testing.T) {
	cfg := testConfig()
	cfg.ITL, cfg.TTFT = 0, 0
	s := mustNew(t, cfg)
	words := make([]string, 40) // 40 tokens of the word tokenizer
	for i := range words {
		words[i] = wordText(i)
	}
	prompt := strings.Join(words, " ")
	for _, c := range []struct{ path, body string }{
		{"/v1/completions", fmt.Sprintf(`{"model":"sim-model","prompt":%q,"max_tokens":4}`, prompt)},
		{"/v1/completions", fmt.Sprintf(`{"model":"sim-model","prompt":%q,"max_tokens":4,"stream":true}`, prompt)},
		{"/v1/chat/completions", fmt.Sprintf(`{"model":"sim-model","messages":[{"role":"user","content":%q}],"max_tokens":4}`, prompt)},
	} {
		if rec := call(t, s, "POST", c.path, c.body); rec.status != 200 {
			t.Fatalf("%s: status %d: %s", c.path, rec.status, rec.body.String())
		}
	}
	// Three lookups of 40 tokens: the first misses, the others hit 2 blocks.
	if got := s.Stats().PrefixCache; got.Queries != 120 || got.Hits != 64 || got.CachedBlocks != 2 {
		t.Errorf("Stats().PrefixCache = %+v, want 120 queried, 64 hit, 2 blocks", got)
	}
	text := call(t, s, "GET", "/metrics", "").body.String()
	for _, want := range []string{
		"# TYPE vllm:prefix_cache_queries counter\n",
		`vllm:prefix_cache_queries_total{engine="0",model_name="sim-model"} 120.0` + "\n",
		`vllm:prefix_cache_hits_total{engine="0",model_name="sim-model"} 64.0` + "\n",
		`vllm:prefix_cache_hits_created{engine="0",model_name="sim-model"} `,
		"# TYPE vllm:kv_cache_usage_perc gauge\n",
		// Nothing runs now: no block is held.
		`vllm:kv_cache_usage_perc{engine="0",model_name="sim-model"} 0.0` + "\n",
		`vllm:num_requests_running{engine="0",model_name="sim-model"} 0.0` + "\n",
		`vllm:num_requests_waiting{engine="0",model_name="sim-model"} 0.0` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the exposition", want)
		}
	}

	off := testConfig()
	off.PrefixCacheBlocks = 0
	if text := call(t, mustNew(t, off), "GET", "/metrics", "").body.String(); strings.Contains(text, "prefix_cache") || strings.Contains(text, "kv_cache_usage") {
		t.Error("prefix-cache families without a prefix cache")
	}
	bad := testConfig()
	bad.PrefixCacheBlocks = -1
	if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "prefix cache blocks") {
		t.Errorf("New with -1 blocks: %v", err)
	}
}

// While requests run, the gauge is the blocks they hold (prompt plus
// planned output) over the capacity.
func TestKVCacheUsage(t *testing.T) {
	c := newPrefixCache(10, time.Now())
	c.hold(kvBlocks(30 + 4)) // 3 blocks
	if got := c.usage(); got != 0.3 {
		t.Errorf("usage %v, want 0.3", got)
	}
	c.hold(20)
	if got := c.usage(); got != 1 {
		t.Errorf("usage %v, want capped at 1", got)
	}
	c.hold(-23)
	if got := c.usage(); got != 0 {
		t.Errorf("usage %v after release, want 0", got)
	}
}
