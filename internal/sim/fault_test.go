package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		in   string
		want Fault
		err  string
	}{
		{"500:every=3", Fault{Kind: Fault500, Every: 3}, ""},
		{"503:rate=0.05", Fault{Kind: Fault503, Rate: 0.05}, ""},
		{"429:rate=1", Fault{Kind: Fault429, Rate: 1}, ""},
		{"reset:every=1", Fault{Kind: FaultReset, Every: 1}, ""},
		{"stall:every=10", Fault{Kind: FaultStall, Every: 10}, ""},
		{"404:every=2", Fault{}, "the kind must be one of 500, 503, 429, reset, stall"},
		{"503", Fault{}, "say which requests it hits: 503:every=N or 503:rate=P"},
		{"503:every=0", Fault{}, "every must be a positive integer"},
		{"503:rate=0", Fault{}, "rate must be a number in (0, 1]"},
		{"503:rate=1.5", Fault{}, "rate must be a number in (0, 1]"},
		{"503:rate=nan", Fault{}, "rate must be a number in (0, 1]"},
		{"503:often", Fault{}, "after the kind comes every=N or rate=P"},
		{"slow-headers:every=2", Fault{Kind: FaultSlowHeaders, Every: 2}, ""},
		{"slow-headers:rate=0.5,delay=250ms", Fault{Kind: FaultSlowHeaders, Rate: 0.5, Delay: 250 * time.Millisecond}, ""},
		{"huge:every=3", Fault{Kind: FaultHuge, Every: 3}, ""},
		{"500:every=2,delay=1s", Fault{}, "only slow-headers takes more than every=N or rate=P"},
		{"slow-headers:every=2,wait=1s", Fault{}, "slow-headers takes only delay=D"},
		{"slow-headers:every=2,delay=-1s", Fault{}, "delay must be a positive duration"},
		{"slow-headers:every=2,delay=soon", Fault{}, "delay must be a positive duration"},
	}
	for _, tt := range tests {
		got, err := ParseFault(tt.in)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
		case err != nil || got != tt.want:
			t.Errorf("%q: %+v, %v; want %+v", tt.in, got, err, tt.want)
		case got.String() != tt.in:
			t.Errorf("%q: String() = %q", tt.in, got.String())
		}
	}
	if err := (Config{Faults: []Fault{{Kind: Fault500}}}).validate(); err == nil {
		t.Error("a fault without every or rate is accepted")
	}
}

// Each fault hits the requests it selects, over a real connection: the
// status faults answer vLLM's error JSON (429 with Retry-After), reset
// resets the connection before any header, stall answers nothing until the
// client gives up; the other requests are served, and the injected count
// is right. A rate selects about that share of requests, deterministically.
func TestFaultsInjected(t *testing.T) {
	cfg := testConfig()
	cfg.Faults = []Fault{{Kind: Fault503, Every: 4}, {Kind: Fault429, Every: 5}, {Kind: FaultReset, Every: 6}, {Kind: FaultStall, Every: 7}}
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	var got []string
	for i := 1; i <= 12; i++ {
		// Only the stalled request waits for the deadline: the others get
		// one no loaded machine misses.
		timeout := 10 * time.Second
		if i == 7 {
			timeout = 300 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/v1/completions", strings.NewReader(`{"prompt":"a","max_tokens":1}`))
		resp, err := client.Do(req)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			got = append(got, "timeout")
		case err != nil && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "reset")):
			got = append(got, "reset")
		case err != nil:
			t.Fatalf("request %d: %v", i, err)
		default:
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			v := fmt.Sprint(resp.StatusCode)
			if resp.StatusCode != 200 {
				if !strings.Contains(string(b), fmt.Sprintf("simulated fault: request %d", i)) {
					t.Errorf("request %d: body %s", i, b)
				}
				if ra := resp.Header.Get("Retry-After"); ra != "" {
					v += "+retry-after=" + ra
				}
			}
			got = append(got, v)
		}
		cancel()
	}
	want := "[200 200 200 503 429+retry-after=1 reset timeout 503 200 429+retry-after=1 200 503]"
	if fmt.Sprint(got) != want {
		t.Errorf("outcomes\n got %v\nwant %s", got, want)
	}
	if n := s.Stats().InjectedFailures; n != 7 {
		t.Errorf("%d injected, want 7", n)
	}

	// A rate: about that share, the same requests for the same seed.
	pick := func(seed int64) []uint64 {
		cfg := testConfig()
		cfg.Seed, cfg.Faults = seed, []Fault{{Kind: Fault500, Rate: 0.05}}
		s := mustNew(t, cfg)
		var hit []uint64
		for seq := uint64(1); seq <= 20000; seq++ {
			if s.faultFor(seq, "") != nil {
				hit = append(hit, seq)
			}
		}
		return hit
	}
	a, b := pick(1), pick(1)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("the same seed picks other requests")
	}
	// 1000 expected; 4.5 standard deviations is ±139.
	if len(a) < 861 || len(a) > 1139 {
		t.Errorf("rate 0.05 hit %d of 20000 requests", len(a))
	}
	if fmt.Sprint(pick(2)[:5]) == fmt.Sprint(a[:5]) {
		t.Error("another seed picks the same requests")
	}
}

// A disconnect cuts a stream after the first half of its tokens: the
// client reads those events, then the connection ends without the
// stream's end ([DONE] and the final chunk); a request that does not
// stream is reset. Both with the stream loops and with plain timers.
func TestFaultDisconnect(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("plain_timers=%v", plain), func(t *testing.T) {
			cfg := testConfig()
			cfg.PlainTimers = plain
			cfg.Faults = []Fault{{Kind: FaultDisconnect, Every: 2}}
			s, err := Start(cfg, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			post := func(body string) (string, error) {
				resp, err := client.Post(s.URL()+"/v1/completions", "application/json", strings.NewReader(body))
				if err != nil {
					return "", err
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				return string(b), err
			}
			stream := `{"prompt":"a","max_tokens":9,"ignore_eos":true,"stream":true}`
			whole, err := post(stream) // request 1: served
			if err != nil || strings.Count(whole, `"text"`) != 9 || !strings.Contains(whole, "data: [DONE]") {
				t.Fatalf("request 1: %v\n%s", err, whole)
			}
			cut, err := post(stream) // request 2: cut after 4 of 9
			if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("request 2: error %v, want an unexpected EOF", err)
			}
			if n := strings.Count(cut, `"text"`); n != 4 || strings.Contains(cut, "[DONE]") {
				t.Errorf("request 2: %d token events, [DONE] %v; want 4 and none:\n%s", n, strings.Contains(cut, "[DONE]"), cut)
			}
			if _, err := post(stream); err != nil { // request 3: served
				t.Errorf("request 3: %v", err)
			}
			if _, err := post(`{"prompt":"a","max_tokens":3}`); err == nil { // request 4: not streamed, reset
				t.Error("request 4 (not streamed) was answered")
			}
			if n := s.Stats().InjectedFailures; n != 2 {
				t.Errorf("%d injected, want 2", n)
			}
		})
	}
}

// A bare server lists its models without vLLM's fields and has no
// /tokenize, /detokenize or /metrics.
func TestBareServer(t *testing.T) {
	cfg := testConfig()
	cfg.Bare = true
	s := mustNew(t, cfg)
	rec := call(t, s, "GET", "/v1/models", "")
	if rec.status != 200 || strings.Contains(rec.body.String(), "root") || !strings.Contains(rec.body.String(), `"id":"sim-model"`) {
		t.Errorf("/v1/models: %d %s", rec.status, rec.body.String())
	}
	for _, c := range [][2]string{{"POST", "/tokenize"}, {"POST", "/detokenize"}, {"GET", "/metrics"}} {
		if rec := call(t, s, c[0], c[1], `{"prompt":"a"}`); rec.status != 404 {
			t.Errorf("%s %s: %d, want 404", c[0], c[1], rec.status)
		}
	}
	if rec := call(t, s, "POST", "/v1/completions", `{"prompt":"a","max_tokens":2}`); rec.status != 200 {
		t.Errorf("/v1/completions: %d", rec.status)
	}
}

// Each stream quirk rewrites a write's events as it says, after the chunk
// header's room, and leaves that room alone.
func TestQuirked(t *testing.T) {
	events := "data: {\"a\":1}\n\ndata: [DONE]\n\n"
	tests := []struct {
		kind  FaultKind
		first bool
		want  string
	}{
		{FaultNoSpace, true, "data:{\"a\":1}\n\ndata:[DONE]\n\n"},
		{FaultComments, false, ": keep-alive\n\ndata: {\"a\":1}\n\ndata: [DONE]\n\n"},
		{FaultCRLF, true, "data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n"},
		{FaultNoDone, true, "data: {\"a\":1}\n\n"},
		{FaultBadJSON, true, "data: {,\"a\":1}\n\ndata: [DONE]\n\n"},
		{FaultBadJSON, false, events},
		{FaultHuge, false, events},
		{FaultSplit, true, events},
		{FaultUsageInLast, true, events},
		{FaultEmptyFinal, true, events},
	}
	for _, tt := range tests {
		b := append([]byte("HEADROOM"), events...)
		got := quirked(tt.kind, b, 8, tt.first)
		if string(got[:8]) != "HEADROOM" || string(got[8:]) != tt.want {
			t.Errorf("%s (first %v): %q, want %q", tt.kind, tt.first, got, "HEADROOM"+tt.want)
		}
	}
}

// A disconnect on a pooling request (which does not stream) is a reset.
func TestFaultDisconnectPooling(t *testing.T) {
	cfg := testConfig()
	cfg.Faults = []Fault{{Kind: FaultDisconnect, Every: 1}}
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Post(s.URL()+"/v1/embeddings", "application/json", strings.NewReader(`{"input":"a"}`))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("answered %d", resp.StatusCode)
	}
	if n := s.Stats().InjectedFailures; n != 1 {
		t.Errorf("%d injected, want 1", n)
	}
}

// A huge fault pads the first event with a 1 MiB field and leaves the
// JSON valid.
func TestQuirkedHuge(t *testing.T) {
	got := quirked(FaultHuge, []byte("data: {\"a\":1}\n\ndata: {\"b\":2}\n\n"), 0, true)
	first, rest, _ := strings.Cut(string(got), "\n\n")
	var v map[string]any
	if err := json.Unmarshal([]byte(strings.TrimPrefix(first, "data: ")), &v); err != nil {
		t.Fatal(err)
	}
	if pad, _ := v["padding"].(string); len(pad) != hugePad || v["a"] != 1.0 {
		t.Errorf("first event: padding of %d bytes, a=%v", len(pad), v["a"])
	}
	if rest != "data: {\"b\":2}\n\n" {
		t.Errorf("rest: %q", rest)
	}
}

// streamBody posts a streamed request to s and returns the whole body and
// the time its first byte of body took.
func streamBody(t *testing.T, s *Server, path, body string) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	head := time.Since(start)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), head
}

// The stream-shape faults change where the usage and the finish reason
// are, and nothing else: the same tokens, the same counts.
func TestStreamShapeFaults(t *testing.T) {
	const req = `{"prompt":"a","max_tokens":5,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	const chatReq = `{"messages":[{"role":"user","content":"a"}],"max_tokens":5,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	for _, path := range []string{"/v1/completions", "/v1/chat/completions"} {
		body := req
		if strings.Contains(path, "chat") {
			body = chatReq
		}
		for _, plain := range []bool{false, true} {
			name := fmt.Sprintf("%s/plain_timers=%v", path, plain)
			cfg := testConfig()
			cfg.PlainTimers = plain
			cfg.Faults = []Fault{{Kind: FaultUsageInLast, Every: 2}, {Kind: FaultEmptyFinal, Every: 3}}
			s, err := Start(cfg, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			normal, _ := streamBody(t, s, path, body)   // request 1
			inLast, _ := streamBody(t, s, path, body)   // request 2
			emptyEnd, _ := streamBody(t, s, path, body) // request 3
			s.Close()
			ev := sseEvents(t, normal)
			if ev[len(ev)-1] != "[DONE]" || !strings.Contains(ev[len(ev)-2], `"choices":[],"usage":{"prompt_tokens"`) {
				t.Fatalf("%s: normal stream ends %q", name, ev[len(ev)-2:])
			}
			usage := ev[len(ev)-2][strings.Index(ev[len(ev)-2], `"usage":`):]
			// usage-in-last: one event fewer; the last content chunk
			// carries the same usage, and its finish reason.
			in := sseEvents(t, inLast)
			if len(in) != len(ev)-1 || !strings.HasSuffix(in[len(in)-2], `}],`+usage) || !strings.Contains(in[len(in)-2], `"finish_reason":"length"`) {
				t.Errorf("%s: usage-in-last stream:\n%s", name, inLast)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(in[len(in)-2]), &m); err != nil {
				t.Errorf("%s: usage-in-last chunk: %v", name, err)
			}
			// empty-final: one event more, with an empty delta or text
			// and the finish reason; the last token's has none.
			em := sseEvents(t, emptyEnd)
			last := em[len(em)-3]
			if len(em) != len(ev)+1 || strings.Count(emptyEnd, `"finish_reason":"length"`) != 1 ||
				!(strings.Contains(last, `"delta":{},`) || strings.Contains(last, `"text":"",`)) || !strings.Contains(last, `"finish_reason":"length"`) {
				t.Errorf("%s: empty-final stream:\n%s", name, emptyEnd)
			}
			if err := json.Unmarshal([]byte(last), &m); err != nil {
				t.Errorf("%s: empty-final chunk: %v", name, err)
			}
		}
	}
}

// A split stream arrives in 7-byte writes with the same bytes as a whole
// one; a slow-headers answer starts its delay late and keeps its token
// schedule.
func TestSplitAndSlowHeaders(t *testing.T) {
	cfg := testConfig()
	cfg.Faults = []Fault{{Kind: FaultSplit, Every: 2}, {Kind: FaultSlowHeaders, Every: 3, Delay: 300 * time.Millisecond}}
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const req = `{"prompt":"a","max_tokens":4,"ignore_eos":true,"stream":true}`
	whole, _ := streamBody(t, s, "/v1/completions", req)
	split, _ := streamBody(t, s, "/v1/completions", req)
	slow, late := streamBody(t, s, "/v1/completions", req)
	norm := func(b string) string { // the ids and times differ
		return regexp.MustCompile(`"id":"[^"]*","object":"text_completion","created":\d+`).ReplaceAllString(b, "")
	}
	if norm(split) != norm(whole) || norm(slow) != norm(whole) {
		t.Errorf("bodies differ:\n%s\n%s\n%s", whole, split, slow)
	}
	if late < 300*time.Millisecond {
		t.Errorf("slow headers after %v, want 300ms or more", late)
	}
}

// A split stream is written in many small writes: a raw reader sees more
// reads than events.
func TestSplitWrites(t *testing.T) {
	cfg := testConfig()
	cfg.Faults = []Fault{{Kind: FaultSplit, Every: 1}}
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"prompt":"a","max_tokens":3,"ignore_eos":true,"stream":true}`
	fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	all, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	// Each piece is a chunk of its own: size line "7\r\n".
	if n := strings.Count(string(all), "\r\n7\r\n"); n < 20 {
		t.Errorf("%d 7-byte chunks:\n%s", n, all)
	}
}

// MaxConns resets connections beyond the limit at once, and takes one
// again once a place is free.
func TestMaxConns(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConns = 2
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addr := strings.TrimPrefix(s.URL(), "http://")
	get := func(c net.Conn) error {
		if _, err := fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		buf := make([]byte, 12)
		_, err := io.ReadFull(c, buf)
		return err
	}
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := get(c); err != nil {
			t.Fatalf("connection within the limit: %v", err)
		}
		held = append(held, c)
	}
	// The kernel completes the handshake; the reset comes at once, so
	// the dial itself may see it.
	extra, err := net.Dial("tcp", addr)
	if err == nil {
		err = get(extra)
		extra.Close()
	}
	if err == nil || !(errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)) {
		t.Errorf("third connection: %v, want a reset", err)
	}
	if n := s.Stats().RefusedConns; n != 1 {
		t.Errorf("%d refused, want 1", n)
	}
	held[0].Close()
	for i := 0; ; i++ { // the server notices the close a moment later
		c, err := net.Dial("tcp", addr)
		if err == nil {
			err = get(c)
			c.Close()
		}
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("no place freed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A request reset once is reset again when it comes back with the same
// X-Request-Id, whatever its arrival count; others are not.
func TestResetSticks(t *testing.T) {
	cfg := testConfig()
	cfg.Faults = []Fault{{Kind: FaultReset, Every: 2}}
	s, err := Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(id string) error {
		req, _ := http.NewRequest("POST", s.URL()+"/v1/completions", strings.NewReader(`{"prompt":"a","max_tokens":1}`))
		req.Header.Set("X-Request-Id", id)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for i, tc := range []struct {
		id    string
		reset bool
	}{{"a", false}, {"b", true}, {"b", true}, {"c", true}, {"d", false}, {"b", true}, {"e", false}, {"c", true}} {
		if err := post(tc.id); (err != nil) != tc.reset {
			t.Errorf("request %d (%s): %v, want reset %v", i+1, tc.id, err, tc.reset)
		}
	}
}

// A disconnect cuts a stream after half its tokens even when they are all
// due at once, and a late writer would send them in one write.
func TestFaultDisconnectCoalesced(t *testing.T) {
	for _, plain := range []bool{false, true} {
		cfg := testConfig()
		cfg.ITL, cfg.Jitter, cfg.PlainTimers = 0, 0, plain
		cfg.Faults = []Fault{{Kind: FaultDisconnect, Every: 1}}
		s, err := Start(cfg, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Post(s.URL()+"/v1/completions", "application/json",
			strings.NewReader(`{"prompt":"a","max_tokens":12,"ignore_eos":true,"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if n := strings.Count(string(b), `"text"`); n != 6 || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("plain timers %v: %d token events, error %v; want 6 and an unexpected EOF", plain, n, err)
		}
		s.Close()
	}
}
