package sim

import (
	"reflect"
	"testing"
	"time"
)

// Config.ITLPerRunning makes a request's inter-token latency grow with the
// requests running when it is admitted, itself included; without it the
// latency does not depend on load.
func TestITLPerRunning(t *testing.T) {
	for _, tc := range []struct {
		name    string
		per     time.Duration
		running int64 // requests already running
		want    time.Duration
	}{
		{"off, idle", 0, 0, 10 * time.Millisecond},
		{"off, busy", 0, 7, 10 * time.Millisecond},
		{"alone", time.Millisecond, 0, 11 * time.Millisecond},
		{"eight running", time.Millisecond, 7, 18 * time.Millisecond},
		{"fractional", 250 * time.Microsecond, 3, 11 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ITL, cfg.ITLPerRunning = 10*time.Millisecond, tc.per
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			s.metrics.running.Add(tc.running)
			var c choice
			mt := 4
			if e := s.plan(&c, 0, []int{1, 2, 3}, &genRequest{MaxTokens: &mt, IgnoreEOS: true}, apiCompletions); e != nil {
				t.Fatalf("plan: %+v", e)
			}
			if c.sched.itl != tc.want {
				t.Errorf("inter-token latency %v, want %v", c.sched.itl, tc.want)
			}
			first, second := c.due, c.sched.next()
			if second-first != tc.want {
				t.Errorf("tokens %v apart, want %v", second-first, tc.want)
			}
		})
	}
	cfg := DefaultConfig()
	cfg.ITLPerRunning = -time.Millisecond
	if _, err := New(cfg); err == nil {
		t.Error("a negative ITLPerRunning was accepted")
	}
}

// vLLM's cache resets answer 200 with an empty body, are counted and
// reported to OnCacheReset, and /reset_prefix_cache empties the prefix
// cache; a bare server has none of them.
func TestCacheResets(t *testing.T) {
	cfg := testConfig()
	var heard []string
	cfg.OnCacheReset = func(route string) { heard = append(heard, route) }
	s := mustNew(t, cfg)
	ids := make([]int, 4*PrefixBlockSize+1)
	for i := range ids {
		ids[i] = i
	}
	s.metrics.prefix.lookup(ids)
	if n := s.metrics.prefix.cached(); n != 4 {
		t.Fatalf("%d blocks cached, want 4", n)
	}
	for _, path := range []string{"/reset_mm_cache", "/reset_prefix_cache", "/reset_encoder_cache", "/reset_prefix_cache"} {
		if rec := call(t, s, "POST", path, ""); rec.status != 200 || rec.body.Len() != 0 {
			t.Errorf("POST %s: status %d, body %q", path, rec.status, rec.body.String())
		}
	}
	if n := s.metrics.prefix.cached(); n != 0 {
		t.Errorf("%d blocks cached after /reset_prefix_cache, want 0", n)
	}
	if hit := s.metrics.prefix.lookup(ids); hit != 0 {
		t.Errorf("a prompt hit %d cached tokens after the reset, want 0", hit)
	}
	if hit := s.metrics.prefix.lookup(ids); hit != 4*PrefixBlockSize {
		t.Errorf("the cache refilled: %d tokens hit, want %d", hit, 4*PrefixBlockSize)
	}
	want := map[string]int64{"/reset_prefix_cache": 2, "/reset_mm_cache": 1, "/reset_encoder_cache": 1}
	if got := s.CacheResets(); !reflect.DeepEqual(got, want) {
		t.Errorf("CacheResets() = %v, want %v", got, want)
	}
	if len(heard) != 4 || heard[1] != "/reset_prefix_cache" {
		t.Errorf("OnCacheReset heard %v", heard)
	}
	cfg = testConfig()
	cfg.Bare = true
	if rec := call(t, mustNew(t, cfg), "POST", "/reset_prefix_cache", ""); rec.status != 404 {
		t.Errorf("a bare server answered /reset_prefix_cache with %d, want 404", rec.status)
	}
}
