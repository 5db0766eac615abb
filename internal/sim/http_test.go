package sim

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// startServer starts a loopback simulator closed at the end of the test.
func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func post(t *testing.T, ctx context.Context, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestServeOverHTTP(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 500*time.Microsecond
	s := startServer(t, cfg)
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL() = %q", s.URL())
	}
	resp := post(t, context.Background(), s.URL()+"/v1/chat/completions",
		`{"model":"sim-model","messages":[{"role":"user","content":"hi there"}],"max_completion_tokens":6,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
		map[string]string{"x-request-id": "bench-abc-0"})
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") != "bench-abc-0" {
		t.Errorf("status %d, x-request-id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	r := summarize(t, readAll(t, resp))
	if r.tokenEvents != 6 || r.finishReason != "length" || *r.usage != [3]int{2, 8, 6} {
		t.Errorf("stream %+v", r)
	}
	health, err := http.Get(s.URL() + "/health")
	if err != nil || health.StatusCode != 200 || readAll(t, health) != "" {
		t.Errorf("health: %v", err)
	}
}

// /metrics parses with the Prometheus text parser, and its counters agree
// with the requests served.
func TestMetricsExposition(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 200*time.Microsecond
	s := startServer(t, cfg)
	for range 3 {
		readAll(t, post(t, context.Background(), s.URL()+"/v1/completions",
			`{"prompt":"a b c","max_tokens":5,"ignore_eos":true,"stream":true}`, nil))
	}
	readAll(t, post(t, context.Background(), s.URL()+"/v1/chat/completions",
		`{"messages":[{"role":"user","content":"x y z w"}],"max_tokens":2,"ignore_eos":true}`, nil))
	readAll(t, post(t, context.Background(), s.URL()+"/v1/completions", `{"model":"other","prompt":"a"}`, nil))

	resp, err := http.Get(s.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q", ct)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(readAll(t, resp)))
	if err != nil {
		t.Fatalf("expfmt: %v", err)
	}
	labelsOK := func(m *dto.Metric, want map[string]string) bool {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	}
	vllmLabels := map[string]string{"model_name": "sim-model", "engine": "0"}
	value := func(name string, typ dto.MetricType, labels map[string]string) float64 {
		t.Helper()
		f, ok := families[name]
		if !ok {
			t.Fatalf("no metric family %s", name)
		}
		if f.GetType() != typ {
			t.Fatalf("%s is a %v, want %v", name, f.GetType(), typ)
		}
		for _, m := range f.GetMetric() {
			if !labelsOK(m, labels) {
				continue
			}
			switch typ {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				return float64(m.GetHistogram().GetSampleCount())
			case dto.MetricType_SUMMARY:
				return float64(m.GetSummary().GetSampleCount())
			}
		}
		t.Fatalf("%s has no series with labels %v", name, labels)
		return 0
	}
	withReason := func(r string) map[string]string {
		return map[string]string{"model_name": "sim-model", "engine": "0", "finished_reason": r}
	}
	st := s.Stats()
	tests := []struct {
		name   string
		typ    dto.MetricType
		labels map[string]string
		want   float64
	}{
		{"vllm:prompt_tokens_total", dto.MetricType_COUNTER, vllmLabels, 3*3 + 4},
		{"vllm:generation_tokens_total", dto.MetricType_COUNTER, vllmLabels, 3*5 + 2},
		{"vllm:request_success_total", dto.MetricType_COUNTER, withReason("length"), 4},
		{"vllm:request_success_total", dto.MetricType_COUNTER, withReason("stop"), 0},
		{"vllm:request_success_total", dto.MetricType_COUNTER, withReason("abort"), 0},
		{"vllm:num_requests_running", dto.MetricType_GAUGE, vllmLabels, 0},
		{"vllm:num_requests_waiting", dto.MetricType_GAUGE, vllmLabels, 0},
		{"vllm:time_to_first_token_seconds", dto.MetricType_HISTOGRAM, vllmLabels, 4},
		{"vllm:inter_token_latency_seconds", dto.MetricType_HISTOGRAM, vllmLabels, 3*4 + 1},
		{"vllm:e2e_request_latency_seconds", dto.MetricType_HISTOGRAM, vllmLabels, 4},
		{"vbench_sim_write_lateness_seconds", dto.MetricType_SUMMARY, nil, 3*5 + 1},
		{"vbench_sim_write_lateness_max_seconds", dto.MetricType_GAUGE, nil, st.LatenessMax.Seconds()},
		{"vbench_sim_injected_failures_total", dto.MetricType_COUNTER, nil, 0},
	}
	for _, tt := range tests {
		if got := value(tt.name, tt.typ, tt.labels); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	if st.Events != 16 || st.PromptTokens != 13 || st.GeneratedTokens != 17 || st.Requests != 5 || st.Failed != 1 {
		t.Errorf("Stats() = %+v", st)
	}
	// The TTFT histogram's sum is at least the configured TTFT per request.
	ttft := families["vllm:time_to_first_token_seconds"].GetMetric()[0].GetHistogram()
	if ttft.GetSampleSum() < 4*cfg.TTFT.Seconds() {
		t.Errorf("TTFT sum %v below 4 × %v", ttft.GetSampleSum(), cfg.TTFT)
	}
}

// A client that disconnects mid-stream ends its handler: the request is
// counted as aborted and no longer running.
func TestClientDisconnectStopsStream(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, 20*time.Millisecond
	s := startServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, s.URL()+"/v1/completions", `{"prompt":"p","max_tokens":100000,"ignore_eos":true,"stream":true}`, nil)
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: {") {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	resp.Body.Close()
	// Generous bound: this only fails if the handler never notices.
	deadline := time.Now().Add(10 * time.Second)
	for st := s.Stats(); st.Running != 0 || st.Aborted != 1; st = s.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("handler still running after the client left: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := s.Stats(); st.GeneratedTokens >= 100000 || st.Completed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Close cancels running streams and returns only when their handlers have.
func TestCloseWaitsForHandlers(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT = time.Hour
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL()+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"p","stream":true}`))
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	// Generous bound: this only fails if the stream never starts.
	deadline := time.Now().Add(10 * time.Second)
	for st := s.Stats(); st.Running != 1; st = s.Stats() { // the stream has started
		select {
		case err := <-errc:
			t.Fatalf("client ended before the stream started: %v; stats %+v", err, st)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream not running after 10 s: %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if st := s.Stats(); st.Running != 0 || st.Aborted != 1 {
		t.Errorf("after Close: %+v", st)
	}
	<-errc // the client sees the connection end
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := http.Get(s.URL() + "/health"); err == nil {
		t.Error("server still answers after Close")
	}
	if err := mustNew(t, cfg).Close(); err != nil {
		t.Errorf("Close of an unstarted server: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Config{}, "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "invalid simulator config") {
		t.Errorf("Start with an empty config: %v", err)
	}
	s := startServer(t, testConfig())
	_, err := Start(testConfig(), strings.TrimPrefix(s.URL(), "http://"))
	if err == nil || !strings.Contains(err.Error(), "start simulator") {
		t.Errorf("Start on a busy port: %v", err)
	}
}

func TestDialAddr(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8000}, "127.0.0.1:8000"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8000}, "127.0.0.1:8000"},
		{&net.TCPAddr{Port: 9}, "127.0.0.1:9"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 80}, "[::1]:80"},
		{&net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 1}, "10.1.2.3:1"},
	}
	for _, tt := range tests {
		if got := dialAddr(tt.addr); got != tt.want {
			t.Errorf("dialAddr(%v) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// Close also ends a stream with a request pipelined behind it on its
// connection, whose first byte the server has read meanwhile (net/http's
// own background read stops at such a byte, so a stream that relied on it
// to notice the close would run on).
func TestCloseEndsStreamWithPipelinedRequest(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Hour
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closing := false
	defer func() {
		if !closing { // a Close that hangs would hang the cleanup too
			s.Close()
		}
	}()
	c := dialRaw(t, s)
	if _, err := io.WriteString(c, streamRequest(3)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "data: {") {
		t.Fatalf("first line %q, %v", line, err)
	}
	// The next request, behind the stream that now waits an hour.
	if _, err := io.WriteString(c, streamRequest(3)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the server read the pipelined request's first bytes
	closing = true
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(30 * time.Second): // a bound on a hang: the stream's next event is an hour away
		t.Fatal("Close still waits for the stream")
	}
	if st := s.Stats(); st.Running != 0 || st.Aborted != 1 {
		t.Errorf("after Close: %+v", st)
	}
}
