package sim

import (
	"reflect"
	"strings"
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

// Config.MaxNumBatchedTokens adds one ITL to the time to first token per
// prefill step after the first: ceil(P / N) steps for a prompt of P tokens.
func TestMaxNumBatchedTokens(t *testing.T) {
	for _, tc := range []struct {
		batched, prompt int
		extra           time.Duration
	}{
		{0, 100, 0}, {64, 64, 0}, {64, 65, 10 * time.Millisecond}, {64, 129, 20 * time.Millisecond}, {1024, 1000, 0},
	} {
		cfg := DefaultConfig()
		cfg.TTFT, cfg.ITL, cfg.MaxNumBatchedTokens = 50*time.Millisecond, 10*time.Millisecond, tc.batched
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var c choice
		mt := 2
		ids := make([]int, tc.prompt)
		if e := s.plan(&c, 0, ids, &genRequest{MaxTokens: &mt, IgnoreEOS: true}, apiCompletions); e != nil {
			t.Fatalf("plan: %+v", e)
		}
		if want := 50*time.Millisecond + tc.extra; c.due != want {
			t.Errorf("batched %d, prompt %d: first token due %v, want %v", tc.batched, tc.prompt, c.due, want)
		}
	}
}

// Config.MaxNumSeqs runs one request at a time here: the second waits,
// counted in vllm:num_requests_waiting, and its first token comes after
// the first request ended (its schedule starts when it gets the slot).
func TestMaxNumSeqs(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL, cfg.MaxNumSeqs = 20*time.Millisecond, 20*time.Millisecond, 1
	s := mustNew(t, cfg)
	body := `{"model": "sim-model", "prompt": "hello", "max_tokens": 5, "ignore_eos": true}`
	type done struct {
		end time.Time
		rec *recorder
	}
	first := make(chan done, 1)
	go func() {
		rec := call(t, s, "POST", "/v1/completions", body)
		first <- done{time.Now(), rec}
	}()
	waitFor(t, "the first request to run", func() bool { return s.metrics.running.Load() == 1 })
	second := make(chan done, 1)
	go func() {
		rec := call(t, s, "POST", "/v1/completions", body)
		second <- done{time.Now(), rec}
	}()
	waitFor(t, "the second request to wait", func() bool { return s.metrics.waiting.Load() == 1 })
	if rec := call(t, s, "GET", "/metrics", ""); !strings.Contains(rec.body.String(), "vllm:num_requests_waiting{") ||
		!strings.Contains(rec.body.String(), `model_name="sim-model"} 1.0`) {
		t.Errorf("/metrics does not show one waiting request")
	}
	a, b := <-first, <-second
	if a.rec.status != 200 || b.rec.status != 200 {
		t.Fatalf("statuses %d, %d", a.rec.status, b.rec.status)
	}
	// The second answer took at least the first's whole schedule on top
	// of its own: TTFT 20 ms + 4 × ITL 20 ms = 100 ms each. Run side by
	// side they would end together; the bound leaves room for the first's
	// end to be stamped late on a loaded machine.
	if gap := b.end.Sub(a.end); gap < 50*time.Millisecond {
		t.Errorf("the second request ended %v after the first, want about its own 100 ms schedule after it", gap)
	}
	if n := s.metrics.waiting.Load(); n != 0 {
		t.Errorf("%d requests still counted as waiting", n)
	}
}

// waitFor polls cond until it holds (failing after 10 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
