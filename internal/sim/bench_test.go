package sim

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkConcurrentStreams runs rounds of N concurrent streaming
// completions (100 tokens each at ITL 10ms, so N·100 SSE events per second)
// against a loopback simulator, with the client in the same process, and
// reports the simulator's write lateness. One op is one round (about 1s).
func BenchmarkConcurrentStreams(b *testing.B) {
	for _, streams := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			const tokens = 100
			cfg := testConfig()
			cfg.TTFT, cfg.ITL = 20*time.Millisecond, 10*time.Millisecond
			s, err := Start(cfg, "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			transport := &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: streams}
			defer transport.CloseIdleConnections()
			client := &http.Client{Transport: transport}
			body := fmt.Sprintf(`{"prompt":"hello world","max_tokens":%d,"ignore_eos":true,"stream":true}`, tokens)
			for b.Loop() {
				var wg sync.WaitGroup
				for range streams {
					wg.Go(func() {
						resp, err := client.Post(s.URL()+"/v1/completions", "application/json", strings.NewReader(body))
						if err != nil {
							b.Error(err)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					})
				}
				wg.Wait()
			}
			st := s.Stats()
			if st.GeneratedTokens != uint64(b.N*streams*tokens) {
				b.Fatalf("generated %d tokens, want %d", st.GeneratedTokens, b.N*streams*tokens)
			}
			b.ReportMetric(float64(st.LatenessP50.Microseconds()), "p50-late-µs")
			b.ReportMetric(float64(st.LatenessP99.Microseconds()), "p99-late-µs")
			b.ReportMetric(float64(st.LatenessMax.Microseconds()), "max-late-µs")
		})
	}
}
