package sim

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// While a request runs, vLLM's load gauges show it: one running request,
// none waiting (the simulator never queues), and the KV blocks of its
// prompt and planned output held; after it ends they are back to 0. The
// gauges are counters the handler bumps once per request, never per token.
func TestLoadGaugesFollowRequests(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT = time.Hour
	cfg.PrefixCacheBlocks = 100
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/v1/completions",
			strings.NewReader(`{"prompt": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "max_tokens": 30, "stream": true}`))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	// Generous bound: this only fails if the request never starts.
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().Running != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("request not running after 10 s: %+v", s.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	metrics := func() string { return call(t, s, "GET", "/metrics", "").body.String() }
	text := metrics()
	for _, want := range []string{
		`vllm:num_requests_running{engine="0",model_name="sim-model"} 1.0` + "\n",
		`vllm:num_requests_waiting{engine="0",model_name="sim-model"} 0.0` + "\n",
		// 10 prompt tokens and 30 planned: 3 blocks of 16 of 100.
		`vllm:kv_cache_usage_perc{engine="0",model_name="sim-model"} 0.03` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q while the request runs in\n%s", want, text)
		}
	}
	cancel()
	<-errc
	for s.Stats().Running != 0 || s.metrics.prefix.inUse.Load() != 0 { // the handler's deferred releases
		if time.Now().After(deadline) {
			t.Fatalf("request still running after 10 s: %+v", s.Stats())
		}
		time.Sleep(time.Millisecond)
	}
	text = metrics()
	for _, want := range []string{
		`vllm:num_requests_running{engine="0",model_name="sim-model"} 0.0` + "\n",
		`vllm:kv_cache_usage_perc{engine="0",model_name="sim-model"} 0.0` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q after the request in\n%s", want, text)
		}
	}
}
