package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
)

// probeRequest is vLLM's probe: a copy of its test input (request 0, with
// the run's model and request 0's extra body) whose prompt is "Hi", one
// token long, asking for one output token, with no chat messages, no
// pre-tokenized or batched prompt, no conversation and no request id. A
// chat backend sends "Hi" as the one user message.
func probeRequest(first dataset.Request) dataset.Request {
	return dataset.Request{Prompt: "Hi", PromptLen: 1, OutputLen: 1, Model: first.Model, ExtraBody: first.ExtraBody}
}

// prepareProbe builds the probe's payload before the run, or returns nil
// when load.probe_request_rate is 0.
func prepareProbe(sc *scenario.Scenario, c *backend.Client, first dataset.Request) (*backend.Prepared, error) {
	if sc.Load.ProbeRequestRate <= 0 {
		return nil, nil
	}
	p, err := c.Prepare([]dataset.Request{probeRequest(first)}, false)
	if err != nil {
		return nil, err
	}
	return &p[0], nil
}

// runProbe is the dispatcher's probe loop for p (nil: no probes): sent on
// the run's client, so probes share its connection pool (limited to
// load.max_concurrency) but never take a concurrency slot, pausing
// 1/load.probe_request_rate after each response.
func runProbe(sc *scenario.Scenario, c *backend.Client, p *backend.Prepared) *run.Probe {
	if p == nil {
		return nil
	}
	return &run.Probe{
		Interval: run.ProbeInterval(float64(sc.Load.ProbeRequestRate)),
		Sender: run.SenderFunc(func(ctx context.Context, _ int, rec *record.Record, now func() time.Duration) {
			c.Send(ctx, p, rec, now)
		}),
	}
}

// probeConns is how many connections to open before the clock starts: the
// first wave's, and one more for the first probe when the pool has room
// for it (without a concurrency limit, or a first wave below it).
func probeConns(wave, maxConc int, probes bool) int {
	if probes && (maxConc <= 0 || wave < maxConc) {
		return wave + 1
	}
	return wave
}

// probeNote is vbench's diagnostic when probes were sent and none
// succeeded: vLLM then prints no probe section and saves no probe keys,
// which would otherwise pass unremarked ("" when there is nothing to say).
func probeNote(recs []*record.Record, sum *metrics.ProbeSummary) string {
	if len(recs) == 0 || sum != nil {
		return ""
	}
	first := "none"
	for _, r := range recs {
		if !r.Success {
			first = r.Error
			break
		}
	}
	return fmt.Sprintf("warning: all %d probe requests failed, so there are no probe statistics (first error: %s)", len(recs), first)
}
