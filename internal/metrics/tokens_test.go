package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// words counts whitespace-separated words: the test's client tokenizer.
func words(s string) int { return len(strings.Fields(s)) }

// ended sets a record's finish and stop reasons (stop as the JSON text).
func ended(r *record.Record, finish, stop string) *record.Record {
	r.FinishReason = finish
	if stop != "" {
		r.StopReason = []byte(stop)
	}
	return r
}

func TestAccountTokens(t *testing.T) {
	ok := func(text string, server int) *record.Record {
		return &record.Record{Success: true, GeneratedText: text, OutputTokens: server}
	}
	failed := &record.Record{Success: false, GeneratedText: "a b c", OutputTokens: 3, Error: "Internal Server Error"}
	notSent := &record.Record{NotSent: true, GeneratedText: "a b", OutputTokens: 9}
	tests := []struct {
		name      string
		recs      []*record.Record
		want      TokenAccounting
		share     float64
		mean      float64
		undefined bool // nothing compared: no share, no mean
	}{
		{name: "agree", recs: []*record.Record{ok("a b c", 3), ok("d", 1)},
			want: TokenAccounting{Compared: 2, ClientTokens: 4, ServerTokens: 4}},
		{name: "disagree", recs: []*record.Record{ok("a b c", 5), ok("d", 1), ok("e f g h", 1), ok("i j", 2)},
			want:  TokenAccounting{Compared: 4, Disagreeing: 2, ClientTokens: 10, ServerTokens: 9, SumAbsDiff: 5, MaxAbsDiff: 3},
			share: 50, mean: 1.25},
		{name: "missing usage", recs: []*record.Record{ok("a b", 0), ok("c d e", 3), ok("", 0)},
			want: TokenAccounting{Compared: 1, ClientTokens: 3, ServerTokens: 3, NoServerUsage: 2}},
		{name: "no usage at all", recs: []*record.Record{ok("a b", 0)},
			want: TokenAccounting{NoServerUsage: 1}, undefined: true},
		{name: "failed and not sent excluded", recs: []*record.Record{failed, ok("a", 2), notSent},
			want:  TokenAccounting{Compared: 1, Disagreeing: 1, ClientTokens: 1, ServerTokens: 2, SumAbsDiff: 1, MaxAbsDiff: 1},
			share: 100, mean: 1},
		{name: "empty", want: TokenAccounting{}, undefined: true},
		// The model's EOS (stop_reason null) and a stop token id: the
		// server counts the token, the text has none; one more than that
		// disagrees, and so does a length stop one over.
		{name: "stop tokens", recs: []*record.Record{
			ended(ok("a b", 3), "stop", ""), ended(ok("c", 2), "stop", "151645"),
			ended(ok("d e", 4), "stop", ""), ended(ok("f g", 3), "length", "")},
			want:  TokenAccounting{Compared: 4, Disagreeing: 2, ClientTokens: 7, ServerTokens: 12, SumAbsDiff: 3, MaxAbsDiff: 2, StopTokens: 2},
			share: 50, mean: 0.75},
		// A stop string cuts the text before it: not compared.
		{name: "stop strings", recs: []*record.Record{ended(ok("a", 4), "stop", `"###"`), ok("b", 1)},
			want: TokenAccounting{Compared: 1, ClientTokens: 1, ServerTokens: 1, StopStrings: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := account(t, tt.recs)
			if got != tt.want {
				t.Errorf("accounting = %+v, want %+v", got, tt.want)
			}
			share, okS := got.DisagreeingShare()
			mean, okM := got.MeanAbsDiff()
			if okS == tt.undefined || okM == tt.undefined {
				t.Errorf("share/mean defined %v/%v, want %v", okS, okM, !tt.undefined)
			}
			if share != tt.share || mean != tt.mean {
				t.Errorf("share %v mean %v, want %v and %v", share, mean, tt.share, tt.mean)
			}
		})
	}
}

// account is the token accounting the fold makes of recs (in request
// order), counting texts in words.
func account(t *testing.T, recs []*record.Record) TokenAccounting {
	t.Helper()
	acc := NewAccumulator(Options{CountTokens: words, AccountTokens: true})
	defer acc.Release()
	for i, r := range recs {
		r.Index = i
		acc.Add(r)
	}
	if _, err := acc.Close(time.Second); err != nil {
		t.Fatal(err)
	}
	return *acc.TokenAccounting()
}

// TestFoldCountsEveryText: the fold's parallel counting gives each success
// its text's count (vLLM's output length when the server sent none), and
// a failure none, over more rows than one worker's chunk.
func TestFoldCountsEveryText(t *testing.T) {
	const n = 9000
	acc := NewAccumulator(Options{CountTokens: words, AccountTokens: true})
	defer acc.Release()
	successes := 0
	for i := range n {
		r := &record.Record{Index: i, Success: i%7 != 3, GeneratedText: strings.Repeat("w ", i%50)}
		if r.Success {
			successes++
		} else {
			r.Error = "failed"
		}
		acc.Add(r)
	}
	s, err := acc.Close(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Arrays(s, true); err != nil {
		t.Fatal(err)
	}
	for i, got := range s.OutputLens {
		want := i % 50 // the client's count of the text
		if i%7 == 3 {
			want = 0 // a failure is not counted
		}
		if got != want {
			t.Fatalf("output length %d = %d, want %d", i, got, want)
		}
	}
	if ta := acc.TokenAccounting(); ta.NoServerUsage != successes || s.Completed != successes {
		t.Errorf("accounting %+v, completed %d; want %d successes without server usage", ta, s.Completed, successes)
	}
}
