package metrics

import (
	"sync"
	"sync/atomic"

	"github.com/vbench/vbench/internal/record"
)

// TokenAccounting compares two counts of every successful request's
// output: the client tokenizer's count of its generated text and the
// server's usage.completion_tokens. vLLM's client reports one number per
// request (the server's when it has one, see ComputeOutcomes); this says
// how far the two disagree, which a server whose detokenised text does
// not re-tokenise to the same ids, a chat template's stray tokens, or a
// wrong client tokenizer show. Failed and never-sent requests are left out.
type TokenAccounting struct {
	// Compared is the number of successful requests with a server count.
	Compared int
	// Disagreeing is how many of them the two counts differ on.
	Disagreeing int
	// ClientTokens and ServerTokens are the sums of the two counts over
	// the compared requests.
	ClientTokens int
	ServerTokens int
	// SumAbsDiff and MaxAbsDiff are the sum and the largest of
	// |client - server| over the compared requests.
	SumAbsDiff int
	MaxAbsDiff int
	// NoServerUsage is the number of successful requests whose response
	// had no usage.completion_tokens (or 0): vLLM's rule counts their
	// output with the client tokenizer, so there is nothing to compare.
	NoServerUsage int
}

// DisagreeingShare is Disagreeing as a percentage of Compared; ok is
// false when nothing was compared.
func (t TokenAccounting) DisagreeingShare() (pct float64, ok bool) {
	if t.Compared == 0 {
		return 0, false
	}
	return 100 * float64(t.Disagreeing) / float64(t.Compared), true
}

// MeanAbsDiff is the mean |client - server| over the compared requests;
// ok is false when nothing was compared.
func (t TokenAccounting) MeanAbsDiff() (mean float64, ok bool) {
	if t.Compared == 0 {
		return 0, false
	}
	return float64(t.SumAbsDiff) / float64(t.Compared), true
}

// AccountTokens folds the records into their TokenAccounting. counts[i]
// is the client's count of recs[i]'s generated text (CountOutputs gives
// them); it is read only for successful records that were sent.
func AccountTokens(recs []*record.Record, counts []int) TokenAccounting {
	var t TokenAccounting
	for i, r := range recs {
		if !r.Success || r.NotSent {
			continue
		}
		if r.OutputTokens <= 0 {
			t.NoServerUsage++
			continue
		}
		c := counts[i]
		t.Compared++
		t.ClientTokens += c
		t.ServerTokens += r.OutputTokens
		d := c - r.OutputTokens
		if d < 0 {
			d = -d
		}
		if d != 0 {
			t.Disagreeing++
		}
		t.SumAbsDiff += d
		t.MaxAbsDiff = max(t.MaxAbsDiff, d)
	}
	return t
}

// CountOutputs counts the tokens of every successful, sent record's
// generated text with count, on at most workers goroutines (at least 1):
// out[i] is recs[i]'s count, 0 for the others. It runs after the timed
// phase, never during it. count must be safe for concurrent use (client
// tokenizers are).
func CountOutputs(recs []*record.Record, count func(string) int, workers int) []int {
	out := make([]int, len(recs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, len(recs))) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(recs) {
					return
				}
				if r := recs[i]; r.Success && !r.NotSent {
					out[i] = count(r.GeneratedText)
				}
			}
		})
	}
	wg.Wait()
	return out
}
