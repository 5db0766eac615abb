package pipeline

import (
	"fmt"
	"runtime"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/tokenizer"
)

// outputCounter counts generated texts with the run's tokenizer, for two
// readers: vLLM's output-length rule (metrics.Options.CountTokens, which
// counts only the successes without server usage) and the token
// accounting, which counts every success after the run. The accounting
// counts first, on every core, and keeps the counts vLLM's rule will ask
// for, so no text is tokenized twice.
type outputCounter struct {
	tok tokenizer.Tokenizer
	// known are the client counts of the texts vLLM's rule counts (the
	// successes without server usage), filled by account.
	known map[string]int
}

// newOutputCounter returns the counter of tok; nil when the run has no
// tokenizer (tokenizer.skip_init).
func newOutputCounter(tok tokenizer.Tokenizer) *outputCounter {
	if tok == nil {
		return nil
	}
	return &outputCounter{tok: tok}
}

// countFunc is metrics.Options.CountTokens: nil without a tokenizer.
func (c *outputCounter) countFunc() func(string) int {
	if c == nil {
		return nil
	}
	return c.count
}

// count is the tokenizer's count of text (no special tokens), from the
// counts account made when it has it.
func (c *outputCounter) count(text string) int {
	if n, ok := c.known[text]; ok {
		return n
	}
	return c.encode(text)
}

func (c *outputCounter) encode(text string) int { return len(c.tok.Encode(text, false)) }

// account counts the generated text of every successful request of a
// finished run with the client tokenizer, on a worker per core, and
// compares the counts with the server's usage. It returns nil without a
// tokenizer, and when the server's /tokenize (the tokenizer of last
// resort) failed meanwhile, saying so with warn. Call it before the
// metrics accumulator is closed, so that vLLM's rule reuses its counts.
func (c *outputCounter) account(recs []*record.Record, warn func(string)) *metrics.TokenAccounting {
	if c == nil {
		return nil
	}
	counts := metrics.CountOutputs(recs, c.encode, runtime.GOMAXPROCS(0))
	if srv, ok := c.tok.(*tokenizer.Server); ok && srv.Err() != nil {
		warn(fmt.Sprintf("warning: no token accounting: the server's tokenizer failed while counting the outputs: %v", srv.Err()))
		return nil
	}
	c.known = map[string]int{}
	for i, r := range recs {
		if r.Success && !r.NotSent && r.OutputTokens <= 0 {
			c.known[r.GeneratedText] = counts[i]
		}
	}
	ta := metrics.AccountTokens(recs, counts)
	return &ta
}

// tokenAccountingJSON is the "token_accounting" member of the result's
// "vbench" object (the metrics.KeyToken* paths); nil (no key) without
// accounting. The share (in percent) and the mean are null when no
// request had server usage.
func tokenAccountingJSON(ta *metrics.TokenAccounting) any {
	if ta == nil {
		return nil
	}
	orNull := func(v float64, ok bool) any {
		if !ok {
			return nil
		}
		return v
	}
	o := py.NewObject()
	o.Set("compared", ta.Compared)
	o.Set("disagreeing", ta.Disagreeing)
	o.Set("disagreeing_share", orNull(ta.DisagreeingShare()))
	o.Set("client_tokens", ta.ClientTokens)
	o.Set("server_tokens", ta.ServerTokens)
	o.Set("mean_abs_diff", orNull(ta.MeanAbsDiff()))
	o.Set("max_abs_diff", ta.MaxAbsDiff)
	o.Set("no_server_usage", ta.NoServerUsage)
	o.Set("stop_tokens", ta.StopTokens)
	o.Set("stop_strings", ta.StopStrings)
	return o
}

// tokenAccountingLine is vbench's line after the result block comparing
// the client's and the server's output token counts; "" without
// accounting.
func tokenAccountingLine(ta *metrics.TokenAccounting, tokName string) string {
	if ta == nil {
		return ""
	}
	noUsage := ""
	if ta.NoServerUsage > 0 {
		noUsage = fmt.Sprintf("; %d without server usage (counted by the client tokenizer, as vLLM does)", ta.NoServerUsage)
	}
	if ta.StopStrings > 0 {
		noUsage += fmt.Sprintf("; %d ended on a stop string (not compared: the text stops before it)", ta.StopStrings)
	}
	share, ok := ta.DisagreeingShare()
	if !ok {
		return fmt.Sprintf("Token accounting: no request had server usage to compare with tokenizer %s%s\n", tokName, noUsage)
	}
	mean, _ := ta.MeanAbsDiff()
	stops := ""
	if ta.StopTokens > 0 {
		stops = fmt.Sprintf(" (%d of them stop tokens, which have no text)", ta.StopTokens)
	}
	return fmt.Sprintf("Token accounting: %d of %d requests disagree (%s %%) between tokenizer %s and the server's usage: %d vs %d output tokens%s, mean |diff| %s, max %d%s\n",
		ta.Disagreeing, ta.Compared, py.Fixed(share, 2), tokName, ta.ClientTokens, ta.ServerTokens, stops, py.Fixed(mean, 2), ta.MaxAbsDiff, noUsage)
}
