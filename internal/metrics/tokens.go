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
	// StopTokens is how many compared requests ended on a stop token (the
	// model's EOS, or a stop token id: finish_reason "stop" without a stop
	// string) that the server counted: such a token has no text, so the
	// server's count is the client's plus one, which is agreement.
	StopTokens int
	// StopStrings is the number of successful requests that ended on a
	// stop string: the text is cut before it while the server counts the
	// tokens that made it, so they are not compared.
	StopStrings int
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
// them); it is read only for successful records that were sent. A request
// that ended on a stop token agrees when the server counts one token more
// than its text has (the stop token); one that ended on a stop string is
// not compared (see TokenAccounting).
func AccountTokens(recs []*record.Record, counts []int) TokenAccounting {
	var t TokenAccounting
	for i, r := range recs {
		if r.Success && !r.NotSent {
			t.add(r.OutputTokens, counts[i], r.EndedOnStopString(), r.EndedOnStopToken())
		}
	}
	return t
}

// add counts one successful request: the server's count (0 when it sent
// none), the client's count of its text, and how it ended.
func (t *TokenAccounting) add(server, client int, stopString, stopToken bool) {
	if server <= 0 {
		t.NoServerUsage++
		return
	}
	if stopString {
		t.StopStrings++
		return
	}
	t.Compared++
	t.ClientTokens += client
	t.ServerTokens += server
	d := client - server
	if d == -1 && stopToken {
		d = 0 // the stop token: counted by the server, without text
		t.StopTokens++
	}
	if d < 0 {
		d = -d
	}
	if d != 0 {
		t.Disagreeing++
	}
	t.SumAbsDiff += d
	t.MaxAbsDiff = max(t.MaxAbsDiff, d)
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
