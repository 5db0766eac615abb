package dataset

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/scenario"
)

// drain takes every request of s.
func drain(t *testing.T, s *Stream) []Request {
	t.Helper()
	var out []Request
	for {
		r, err := s.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// TestStreamLazyOrWhole: a kind with Count is pulled lazily, and gives
// the requests a kind built whole gives, with and without a server whose
// tokenizer agrees; when the server counts the first prompt differently,
// the stream is built whole and realigned.
func TestStreamLazyOrWhole(t *testing.T) {
	count := func(_ scenario.Dataset, n int) int { return n }
	for _, tc := range []struct {
		name    string
		count   func(scenario.Dataset, int) int
		server  ServerTokenizer
		lazy    bool
		realign bool
		upfront int // requests made by Open
	}{
		{"whole", nil, nil, false, false, 5},
		{"lazy", count, nil, true, false, 1},
		{"lazy, server agrees", count, agreeingServer{}, true, false, 1},
		{"lazy, server differs: realigned whole", count, &fakeServer{}, false, true, 5},
		{"whole, server differs", nil, &fakeServer{}, false, true, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pulled int
			spec := toyKind(t, Kind{Align: true, NeedsTokenizer: true, Count: tc.count}, -1, &pulled)
			env := Env{Tokenizer: toyTokenizer{}, Seed: 1, NumPrompts: 5, IDPrefix: "s-"}
			if tc.server != nil {
				env.Server = func() (ServerTokenizer, error) { return tc.server, nil }
			}
			s, err := Open(context.Background(), spec, env)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Lazy() != tc.lazy || pulled != tc.upfront || s.Len() != 5 {
				t.Fatalf("lazy %v, %d made by Open, Len %d; want %v, %d, 5", s.Lazy(), pulled, s.Len(), tc.lazy, tc.upfront)
			}
			first := s.First()
			got := drain(t, s)
			if len(got) != 5 || !reflect.DeepEqual(got[0], first) {
				t.Fatalf("%d requests, first %+v (First %+v)", len(got), got[0], first)
			}
			if realigned := got[0].Prompt == "to"; realigned != tc.realign {
				t.Errorf("prompt %q: realigned %v, want %v", got[0].Prompt, realigned, tc.realign)
			}
			for i, r := range got {
				if r.OutputLen != i+1 || r.ID != "s-"+string(rune('0'+i)) {
					t.Errorf("request %d: %+v", i, r)
				}
			}
		})
	}
}

// agreeingServer counts a prompt as the toy tokenizer does.
type agreeingServer struct{}

func (agreeingServer) Tokenize(_ context.Context, p string) ([]int, error) {
	return toyTokenizer{}.Encode(p, false), nil
}
func (agreeingServer) Detokenize(context.Context, []int) (string, error) { return "", nil }

// TestStreamCountMismatch: a lazy kind that makes fewer or more requests
// than it counted is an internal error, not a silently shorter run.
func TestStreamCountMismatch(t *testing.T) {
	for _, counted := range []int{3, 7} {
		var pulled int
		spec := toyKind(t, Kind{NeedsTokenizer: true, Count: func(scenario.Dataset, int) int { return counted }}, -1, &pulled)
		s, err := Open(context.Background(), spec, Env{Tokenizer: toyTokenizer{}, NumPrompts: 5})
		if err != nil {
			t.Fatal(err)
		}
		var last error
		for range 10 {
			if _, last = s.Next(); last != nil {
				break
			}
		}
		s.Close()
		if last == nil || last == io.EOF || !strings.Contains(last.Error(), "internal error") {
			t.Errorf("counted %d of 5: last error %v, want an internal error", counted, last)
		}
	}
}

// TestFeedbackWait: Wait returns an expected answer once put, forgets it,
// drops answers not expected, and stops at the run's end or ctx's.
func TestFeedbackWait(t *testing.T) {
	f := NewFeedback()
	f.Expect(1)
	f.Put(Answer{Index: 0, Text: "not expected"})
	go func() {
		time.Sleep(time.Millisecond)
		f.Put(Answer{Index: 1, Text: "one"})
	}()
	a, err := f.Wait(context.Background(), 1)
	if err != nil || a.Text != "one" {
		t.Fatalf("Wait(1) = %+v, %v", a, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Wait(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait for an answer not expected, ctx cancelled: %v", err)
	}
	f.End()
	if _, err := f.Wait(context.Background(), 1); !errors.Is(err, ErrRunEnded) {
		t.Errorf("Wait after End: %v, want ErrRunEnded", err)
	}
}

// TestRegisterRefusesFeedbackWithoutCount: a kind that waits for answers
// must be made as it is pulled.
func TestRegisterRefusesFeedbackWithoutCount(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Register accepted Feedback without Count")
		}
	}()
	RegisterForTest(Kind{Name: "toy", Spec: newSpec[toySpec](), Feedback: true, New: func(scenario.Dataset) (Source, error) { return nil, nil }})
}
