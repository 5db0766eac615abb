package promscrape

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gaugeExposition is vLLM's load gauges for two engines as Python's
// prometheus_client writes them, with the labels in different orders,
// other families around them and names that only look like the gauges.
func gaugeExposition(run0, run1, wait0, wait1, kv0, kv1 string) string {
	return `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} ` + run0 + `
vllm:num_requests_running{model_name="meta-llama/Llama-3.1-8B-Instruct",engine="1"} ` + run1 + `
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} ` + wait0 + `
vllm:num_requests_waiting{model_name="meta-llama/Llama-3.1-8B-Instruct",engine="1"} ` + wait1 + `
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} ` + kv0 + `
vllm:kv_cache_usage_perc{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} ` + kv1 + `
# HELP vllm:num_requests_running_total Not a gauge of vLLM's.
# TYPE vllm:num_requests_running_total counter
vllm:num_requests_running_total{engine="0"} 999.0
vllm:num_requests_running_created{engine="0"} 1.7330238457316825e+09
vllm:num_requests_swapped{engine="0"} 7.0
vllm:num_requests_waiting_by_reason{engine="0",reason="capacity"} 5.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.01",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.4
`
}

func TestReadGauges(t *testing.T) {
	tests := []struct {
		name string
		text string
		want ServerSample
	}{
		{"two engines: running and waiting summed, KV usage averaged",
			gaugeExposition("3.0", "5.0", "0.0", "2.0", "0.25", "0.75"),
			ServerSample{KVCacheUsage: 0.5, Running: 8, Waiting: 2}},
		{"vLLM before 0.10: gpu_cache_usage_perc",
			strings.ReplaceAll(gaugeExposition("1.0", "0.0", "0.0", "0.0", "0.5", "0.1"), FamKVCacheUsage, FamGPUCacheUsage),
			ServerSample{KVCacheUsage: 0.3, Running: 1, Waiting: 0}},
		{"kv_cache_usage_perc wins over gpu_cache_usage_perc",
			gaugeExposition("1.0", "0.0", "0.0", "0.0", "0.5", "0.1") + FamGPUCacheUsage + `{engine="0"} 0.9` + "\n",
			ServerSample{KVCacheUsage: 0.3, Running: 1, Waiting: 0}},
		{"missing gauges", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 4\n",
			ServerSample{KVCacheUsage: -1, Running: 4, Waiting: -1}},
		{"a family declared without samples is missing", "# HELP vllm:num_requests_waiting w\n# TYPE vllm:num_requests_waiting gauge\n",
			emptySample},
		{"no gauges at all", "# TYPE x gauge\nx 1\n", emptySample},
		{"not an exposition", "<html><body>Not Found</body></html>", emptySample},
		{"empty", "", emptySample},
		{"labels holding braces, quotes and spaces; a timestamp; NaN skipped",
			`vllm:num_requests_running{model_name="a} b \"c}\" ",engine="0"} 2 1700000000000` + "\n" +
				`vllm:num_requests_running{engine="1"}	3` + "\n" +
				`vllm:num_requests_running{engine="2"} NaN` + "\n" +
				`vllm:num_requests_waiting{engine="0"} +Inf` + "\n" +
				`vllm:kv_cache_usage_perc{engine="0` + "\n" +
				"vllm:kv_cache_usage_perc 0.5 \r\n",
			ServerSample{KVCacheUsage: 0.5, Running: 5, Waiting: -1}},
		{"a malformed value is skipped", "vllm:num_requests_running{engine=\"0\"} many\nvllm:num_requests_running{engine=\"1\"} 1e1\n",
			ServerSample{KVCacheUsage: -1, Running: 10, Waiting: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadGauges(strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ReadGauges = %+v, want %+v", got, tt.want)
			}
			if got.Empty() != (tt.want == emptySample) {
				t.Errorf("Empty = %v", got.Empty())
			}
		})
	}
	if _, err := ReadGauges(strings.NewReader(strings.Repeat("#", MaxBody+1))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a huge body: %v", err)
	}
	// A line longer than the scanner's first buffer (a long HELP text, a
	// long label value) is read whole.
	long := "# HELP x " + strings.Repeat("h", 100<<10) + "\nvllm:num_requests_running{model_name=\"" + strings.Repeat("m", 10<<10) + "\"} 7\n"
	if got, err := ReadGauges(strings.NewReader(long)); err != nil || got.Running != 7 {
		t.Errorf("long lines: %+v, %v", got, err)
	}
}

// The scanner agrees with expfmt's parse on the shipped realistic scrapes.
func TestReadGaugesMatchesParse(t *testing.T) {
	for _, name := range []string{"before.prom", "after.prom"} {
		text := readFile(t, name)
		got, err := ReadGauges(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for _, s := range mustParse(t, text).Family(FamRequestsRunning, Gauge).Series {
			want += s.Value
		}
		if got.Running != want || got.Waiting != -1 {
			t.Errorf("%s: ReadGauges = %+v, want running %v", name, got, want)
		}
	}
}

func TestSampleTimeout(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{100 * time.Millisecond, 80 * time.Millisecond},
		{time.Second, 800 * time.Millisecond},
		{time.Minute, DefaultTimeout},
	} {
		if got := SampleTimeout(tt.in); got != tt.want {
			t.Errorf("SampleTimeout(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// sampleServer serves /metrics with handle and counts the scrapes.
type sampleServer struct {
	*httptest.Server
	hits    atomic.Int64
	headers chan http.Header
}

func newSampleServer(t *testing.T, handle func(n int64, w http.ResponseWriter, r *http.Request)) *sampleServer {
	s := &sampleServer{headers: make(chan http.Header, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		select {
		case s.headers <- r.Header.Clone():
		default:
		}
		handle(s.hits.Add(1), w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// sampleUntil runs Sample on srv until stop says so (it is asked after
// each sample, and after each scrape the server saw), then cancels it and
// waits for it to return; it returns the samples.
func sampleUntil(t *testing.T, srv *sampleServer, interval time.Duration, stop func(samples int, hits int64) bool) []ServerSample {
	t.Helper()
	scr := New(srv.URL, nil, SampleTimeout(interval))
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []ServerSample
	done := make(chan struct{})
	go func() {
		defer close(done)
		scr.Sample(ctx, time.Now(), interval, func(s ServerSample) {
			mu.Lock()
			got = append(got, s)
			mu.Unlock()
		})
	}()
	tick := time.NewTicker(interval / 4)
	defer tick.Stop()
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if stop(n, srv.hits.Load()) {
			break
		}
		<-tick.C
	}
	cancel()
	<-done // Sample returns once cancelled, whatever the server does
	mu.Lock()
	defer mu.Unlock()
	return got
}

func TestSampleReadsTwoEngines(t *testing.T) {
	srv := newSampleServer(t, func(n int64, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, gaugeExposition(fmt.Sprint(n), "1.0", "0.0", "2.0", "0.5", "0.25"))
	})
	const interval = 20 * time.Millisecond
	got := sampleUntil(t, srv, interval, func(samples int, _ int64) bool { return samples >= 3 })
	if len(got) < 3 {
		t.Fatalf("%d samples", len(got))
	}
	for i, s := range got {
		// Tick k is at k·interval and k ≥ i+1: a response cannot come sooner.
		if s.At < time.Duration(i+1)*interval {
			t.Errorf("sample %d at %v, before its tick", i, s.At)
		}
		if i > 0 && s.At <= got[i-1].At {
			t.Errorf("sample %d at %v, not after sample %d at %v", i, s.At, i-1, got[i-1].At)
		}
		if s.Running < 2 || s.Waiting != 2 || s.KVCacheUsage != 0.375 {
			t.Errorf("sample %d = %+v", i, s)
		}
	}
	h := <-srv.headers
	for _, name := range []string{"Authorization", "X-Api-Key", "Traceparent"} {
		if h.Get(name) != "" {
			t.Errorf("the sampler sent %s", name)
		}
	}
}

func TestSampleGivesNothing(t *testing.T) {
	for _, tt := range []struct {
		name   string
		handle func(n int64, w http.ResponseWriter, r *http.Request)
	}{
		{"404", func(_ int64, w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{"no gauges", func(_ int64, w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "# TYPE x gauge\nx 1\n") }},
		// Each scrape times out before the next tick; the sampler goes on.
		{"hanging", func(_ int64, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSampleServer(t, tt.handle)
			got := sampleUntil(t, srv, 10*time.Millisecond, func(samples int, hits int64) bool { return samples > 0 || hits >= 3 })
			if len(got) != 0 {
				t.Errorf("samples %+v", got)
			}
		})
	}
	// Without a server at all.
	scr := New("http://127.0.0.1:1", nil, SampleTimeout(time.Millisecond))
	if _, err := scr.Gauges(context.Background(), func() time.Duration { return 0 }); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("Gauges = %v, want ErrNotAvailable", err)
	}
}

// A cancelled context or no interval stops Sample at once.
func TestSampleStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	scr := New("http://127.0.0.1:1", nil, time.Second)
	scr.Sample(ctx, time.Now(), time.Millisecond, func(ServerSample) { t.Error("a sample") })
	scr.Sample(context.Background(), time.Now(), 0, func(ServerSample) { t.Error("a sample") })
}

func TestSummarize(t *testing.T) {
	if Summarize(nil) != nil {
		t.Error("Summarize(nil) is not nil")
	}
	st := Summarize([]ServerSample{
		{At: 1, KVCacheUsage: 0.5, Running: 2, Waiting: -1},
		{At: 2, KVCacheUsage: 0.25, Running: 6, Waiting: -1},
		{At: 3, KVCacheUsage: -1, Running: 1, Waiting: -1},
	})
	if g := st.KVCacheUsage; g == nil || *g != (GaugeStats{Samples: 2, Max: 0.5, Mean: 0.375}) {
		t.Errorf("kv = %+v", g)
	}
	if g := st.Running; g == nil || *g != (GaugeStats{Samples: 3, Max: 6, Mean: 3}) {
		t.Errorf("running = %+v", g)
	}
	if st.Waiting != nil {
		t.Errorf("waiting = %+v, want nil", st.Waiting)
	}
}

func FuzzReadGauges(f *testing.F) {
	f.Add(gaugeExposition("3.0", "5.0", "0.0", "2.0", "0.25", "0.75"))
	f.Add(`vllm:num_requests_running{model_name="a} b \"c}\" ",engine="0"} 2 1700000000000` + "\n")
	f.Add("vllm:kv_cache_usage_perc{\n")
	f.Fuzz(func(t *testing.T, text string) {
		g, err := ReadGauges(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []float64{g.KVCacheUsage, g.Running, g.Waiting} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("ReadGauges = %+v", g)
			}
		}
	})
}

// vllmExposition is a vLLM-sized exposition: two engines, the load
// gauges and 24 histogram families of 20 buckets each (about 1000 lines).
func vllmExposition() string {
	var b strings.Builder
	b.WriteString(gaugeExposition("3.0", "5.0", "0.0", "2.0", "0.25", "0.75"))
	for h := range 24 {
		name := fmt.Sprintf("vllm:histogram_%d_seconds", h)
		fmt.Fprintf(&b, "# HELP %s A histogram.\n# TYPE %s histogram\n", name, name)
		for e := range 2 {
			lbl := fmt.Sprintf(`engine="%d",model_name="meta-llama/Llama-3.1-8B-Instruct"`, e)
			for i := range 20 {
				fmt.Fprintf(&b, "%s_bucket{%s,le=\"%g\"} %d.0\n", name, lbl, 0.001*float64(int(1)<<i), 10*i)
			}
			fmt.Fprintf(&b, "%s_bucket{%s,le=\"+Inf\"} 200.0\n%s_count{%s} 200.0\n%s_sum{%s} 12.5\n%s_created{%s} 1.7e+09\n",
				name, lbl, name, lbl, name, lbl, name, lbl)
		}
	}
	return b.String()
}

// BenchmarkReadGauges and BenchmarkParseExposition compare the sampler's
// scanner with the full expfmt parse on a vLLM-sized exposition.
func BenchmarkReadGauges(b *testing.B) {
	text := vllmExposition()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadGauges(strings.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseExposition(b *testing.B) {
	text := vllmExposition()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}
