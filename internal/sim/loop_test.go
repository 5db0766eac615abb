package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// The loop's heap pops in due order, also after removals from its middle,
// and keeps every stream's index right.
func TestLoopHeap(t *testing.T) {
	lp := &streamLoop{}
	rng := rand.New(rand.NewPCG(3, 4))
	var all []*generation
	for range 400 {
		g := &generation{}
		g.loop.due = time.Duration(rng.IntN(1000))
		lp.push(g)
		all = append(all, g)
	}
	removed := map[*generation]bool{}
	for range 100 {
		g := all[rng.IntN(len(all))]
		if removed[g] {
			continue
		}
		if lp.heap[g.loop.idx] != g {
			t.Fatalf("stale index %d", g.loop.idx)
		}
		lp.remove(g.loop.idx)
		removed[g] = true
		if g.loop.idx != -1 {
			t.Fatalf("removed stream keeps index %d", g.loop.idx)
		}
	}
	var want, got []time.Duration
	for _, g := range all {
		if !removed[g] {
			want = append(want, g.loop.due)
		}
	}
	slices.Sort(want)
	for len(lp.heap) > 0 {
		for i, g := range lp.heap {
			if g.loop.idx != i {
				t.Fatalf("heap[%d] has index %d", i, g.loop.idx)
			}
		}
		got = append(got, lp.heap[0].loop.due)
		lp.remove(0)
	}
	if !slices.Equal(got, want) {
		t.Errorf("pops out of order")
	}
}

// More streams than one loop takes: every stream is complete and counted.
func TestLoopManyStreams(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	s := startServer(t, cfg)
	const streams, tokens = 3 * loopShare, 20
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	for i := range streams {
		wg.Go(func() {
			resp := post(t, context.Background(), s.URL()+"/v1/completions",
				fmt.Sprintf(`{"prompt":"p %d","max_tokens":%d,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`, i, tokens), nil)
			r := summarize(t, readAll(t, resp))
			if r.tokenEvents != tokens || r.usage == nil || r.usage[2] != tokens {
				errs <- fmt.Errorf("stream %d: %+v", i, r)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := s.Stats(); st.Completed != streams || st.Running != 0 || st.GeneratedTokens != streams*tokens {
		t.Errorf("stats %+v", st)
	}
}

// A client that stops reading has its stream aborted once the socket
// buffers are full and a write stalls for loopWriteStall, and the streams
// sharing its loop go on meanwhile.
func TestLoopStalledClient(t *testing.T) {
	cfg := testConfig()
	cfg.TTFT, cfg.ITL, cfg.MaxModelLen = 0, 0, 1<<20
	s := startServer(t, cfg)
	c, err := net.Dial("tcp", s.URL()[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"prompt":"p","max_tokens":1000000,"ignore_eos":true,"stream":true}`
	if _, err := fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		t.Fatal(err)
	}
	// The stalled stream never reads; another one, on the same loop (fewer
	// than loopShare streams run), completes.
	resp := post(t, context.Background(), s.URL()+"/v1/completions",
		`{"prompt":"q","max_tokens":50,"ignore_eos":true,"stream":true}`, nil)
	if r := summarize(t, readAll(t, resp)); r.tokenEvents != 50 {
		t.Errorf("the other stream: %+v", r)
	}
	for st := s.Stats(); st.Aborted != 1 || st.Running != 0; st = s.Stats() {
		time.Sleep(10 * time.Millisecond) // the test's timeout bounds this
	}
	if st := s.Stats(); st.Completed != 1 || st.GeneratedTokens >= 1000000 {
		t.Errorf("stats %+v", st)
	}
}
