package dataset

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeServer tokenizes into one token per byte (token = byte value) and
// detokenizes back; the client's PromptLen counts words, so every prompt
// of more than one letter disagrees with it.
type fakeServer struct {
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	tokenizeErr func(prompt string) error
	detokCalls  int
	gate        chan struct{} // if set, calls wait on it
}

func (s *fakeServer) enter() func() {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	if s.gate != nil {
		<-s.gate
	}
	return func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
}

func (s *fakeServer) Tokenize(ctx context.Context, prompt string) ([]int, error) {
	defer s.enter()()
	if s.tokenizeErr != nil {
		if err := s.tokenizeErr(prompt); err != nil {
			return nil, err
		}
	}
	ids := make([]int, len(prompt))
	for i := range len(prompt) {
		ids[i] = int(prompt[i])
	}
	return ids, ctx.Err()
}

func (s *fakeServer) Detokenize(ctx context.Context, ids []int) (string, error) {
	defer s.enter()()
	s.mu.Lock()
	s.detokCalls++
	s.mu.Unlock()
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b), ctx.Err()
}

func wordRequests(prompts ...string) []Request {
	reqs := make([]Request, len(prompts))
	for i, p := range prompts {
		reqs[i] = Request{Prompt: p, PromptLen: len(strings.Fields(p)), OutputLen: 8, ID: strconv.Itoa(i)}
	}
	return reqs
}

func TestAlign(t *testing.T) {
	unavailable := errors.New("404 Not Found")
	tests := []struct {
		name        string
		reqs        []Request
		tokenizeErr func(string) error
		want        []string // prompts after alignment
		wantResult  AlignResult
		wantMessage string
	}{
		{
			name: "server agrees",
			// One-letter words: bytes and words count alike for request 0.
			reqs:       wordRequests("a", "bb cc"),
			want:       []string{"a", "bb cc"},
			wantResult: AlignResult{Status: AlignMatched, Server: 1, Expected: 1},
		},
		{
			name:        "mismatch truncates over-long prompts",
			reqs:        wordRequests("hello world", "abc", "x"),
			want:        []string{"he", "a", "x"},
			wantResult:  AlignResult{Status: AlignRealigned, Server: 11, Expected: 2, Replaced: 2},
			wantMessage: "WARNING: tokenizer mismatch (server=11, expected=2), re-aligning prompts.",
		},
		{
			name:        "unavailable",
			reqs:        wordRequests("hello world"),
			tokenizeErr: func(string) error { return unavailable },
			want:        []string{"hello world"},
			wantResult:  AlignResult{Status: AlignUnavailable},
			wantMessage: "WARNING: /tokenize unavailable, skipping alignment.",
		},
		{
			name: "failed request keeps its prompt",
			reqs: wordRequests("hello world", "fails here", "abc"),
			tokenizeErr: func(p string) error {
				if p == "fails here" {
					return unavailable
				}
				return nil
			},
			want:        []string{"he", "fails here", "a"},
			wantResult:  AlignResult{Status: AlignRealigned, Server: 11, Expected: 2, Replaced: 2, Failed: 1},
			wantMessage: "WARNING: tokenizer mismatch (server=11, expected=2), re-aligning prompts.",
		},
		{
			name:       "no requests",
			reqs:       nil,
			want:       nil,
			wantResult: AlignResult{Status: AlignSkipped},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.reqs)
			srv := &fakeServer{tokenizeErr: tt.tokenizeErr}
			got, res, err := Align(context.Background(), srv, tt.reqs)
			if err != nil {
				t.Fatal(err)
			}
			var prompts []string
			for i, r := range got {
				prompts = append(prompts, r.Prompt)
				if r.PromptLen != tt.reqs[i].PromptLen || r.ID != tt.reqs[i].ID {
					t.Errorf("request %d changed more than its prompt: %+v", i, r)
				}
			}
			if !slices.Equal(prompts, tt.want) {
				t.Errorf("prompts = %q, want %q", prompts, tt.want)
			}
			if res != tt.wantResult {
				t.Errorf("result = %+v, want %+v", res, tt.wantResult)
			}
			if res.Message() != tt.wantMessage {
				t.Errorf("Message() = %q, want %q", res.Message(), tt.wantMessage)
			}
			if !slices.EqualFunc(tt.reqs, orig, requestEqual) {
				t.Error("Align modified its input")
			}
		})
	}
}

func TestAlignSkipsBatches(t *testing.T) {
	srv := &fakeServer{}
	reqs := []Request{{Prompts: []string{"a b", "c"}, PromptLen: 3}}
	got, res, err := Align(context.Background(), srv, reqs)
	if err != nil || res.Status != AlignSkipped || !slices.EqualFunc(got, reqs, requestEqual) {
		t.Errorf("Align(batch) = %+v, %+v, %v; want it unchanged and skipped", got, res, err)
	}
}

func TestAlignInFlightLimit(t *testing.T) {
	prompts := make([]string, 300)
	for i := range prompts {
		prompts[i] = "two words"
	}
	srv := &fakeServer{gate: make(chan struct{})}
	done := make(chan AlignResult)
	go func() {
		_, res, _ := Align(context.Background(), srv, wordRequests(prompts...))
		done <- res
	}()
	waitInFlight(srv, 1) // request 0's check
	srv.gate <- struct{}{}
	waitInFlight(srv, maxAlignInFlight) // the re-alignment fills every slot
	close(srv.gate)
	res := <-done
	if srv.maxInFlight != maxAlignInFlight {
		t.Errorf("at most %d calls were in flight, want %d", srv.maxInFlight, maxAlignInFlight)
	}
	if res.Replaced != len(prompts) || srv.detokCalls != len(prompts) {
		t.Errorf("replaced %d prompts with %d detokenize calls, want %d", res.Replaced, srv.detokCalls, len(prompts))
	}
}

// waitInFlight yields until n calls are waiting in srv.
func waitInFlight(srv *fakeServer, n int) {
	for {
		srv.mu.Lock()
		k := srv.inFlight
		srv.mu.Unlock()
		if k >= n {
			return
		}
		runtime.Gosched()
	}
}

func TestAlignCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Align(ctx, &fakeServer{}, wordRequests("hello world", "abc"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// TestAlignStopsAfterFailures: once the server stops answering, the calls
// waiting for a slot are not made; every prompt not aligned keeps its text.
func TestAlignStopsAfterFailures(t *testing.T) {
	prompts := make([]string, 1000)
	for i := range prompts {
		prompts[i] = "two words"
	}
	var calls int
	var mu sync.Mutex
	srv := &fakeServer{tokenizeErr: func(string) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return nil // request 0's check succeeds
		}
		return errors.New("no answer within 30s")
	}}
	got, res, err := Align(context.Background(), srv, wordRequests(prompts...))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != AlignRealigned || res.Replaced != 0 || res.Failed != len(prompts) {
		t.Errorf("result = %+v, want realigned, none replaced, all %d failed", res, len(prompts))
	}
	// At most the failures that stop it, plus those already in flight.
	if calls-1 > maxAlignFailures+maxAlignInFlight {
		t.Errorf("%d calls after the check, want at most %d", calls-1, maxAlignFailures+maxAlignInFlight)
	}
	for i, r := range got {
		if r.Prompt != prompts[i] {
			t.Fatalf("prompt %d changed to %q", i, r.Prompt)
		}
	}
}
