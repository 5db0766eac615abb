package pipeline

import (
	"fmt"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/py"
)

// reasoningJSON is the "reasoning" member of the result's "vbench" object:
// the successes that reasoned, their reasoning and answer tokens, and the
// statistics (ms) of their time to first reasoning token (ttfr) and to
// first answer token (ttfa); nil (no key) when no stream carried
// reasoning.
func reasoningJSON(rs *metrics.ReasoningSummary) any {
	if rs == nil {
		return nil
	}
	stats := func(m metrics.MetricStats) *py.Object {
		o := py.NewObject()
		o.Set("mean", m.Mean)
		o.Set("median", m.Median)
		o.Set("std", m.Std)
		for _, p := range m.Percentiles {
			o.Set("p"+metrics.PercentileWord(p.P), p.Value)
		}
		return o
	}
	o := py.NewObject()
	o.Set("requests", rs.Requests)
	o.Set("answered", rs.Answered)
	o.Set("reasoning_tokens", rs.ReasoningTokens)
	o.Set("answer_tokens", rs.AnswerTokens)
	o.Set("ttfr_ms", stats(rs.TTFR))
	o.Set("ttfa_ms", stats(rs.TTFA))
	return o
}

// reasoningLine is vbench's line after the result block about reasoning
// streams; "" when none carried reasoning.
func reasoningLine(rs *metrics.ReasoningSummary) string {
	if rs == nil {
		return ""
	}
	return fmt.Sprintf("Reasoning: %d requests reasoned (%d then answered): %d reasoning and %d answer tokens; time to first reasoning token mean %s ms, to first answer token mean %s ms\n",
		rs.Requests, rs.Answered, rs.ReasoningTokens, rs.AnswerTokens, py.Fixed(rs.TTFR.Mean, 2), py.Fixed(rs.TTFA.Mean, 2))
}
