package pipeline

import (
	"fmt"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/py"
)

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
