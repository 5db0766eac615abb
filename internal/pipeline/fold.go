package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

// Folded is a run's result rebuilt from its records file alone, e.g. after
// the run was killed before it could write its result.
type Folded struct {
	// Header is the file's header line.
	Header *record.Header
	// Scenario is the run's scenario, from the header.
	Scenario *scenario.Scenario
	// Records are the file's records in request order.
	Records []*record.Record
	// Summary is the metrics summary of Records (see FoldRecords for its
	// duration).
	Summary *metrics.Summary
	// Duration is the duration the summary's rates divide by.
	Duration time.Duration
	// Truncated reports that the file's last line was cut short and was
	// left out.
	Truncated bool
	// ServerSamples are the server gauges the run sampled, from the file's
	// server-sample lines, in time order.
	ServerSamples []promscrape.ServerSample
}

// FoldRecords rebuilds a run's summary from its records file at path: the
// header's scenario gives the metric options (percentile metrics and
// percentiles, goodput, whether the concurrency limit and the request rate
// were set), and the records are folded through a metrics.Accumulator as
// the run folded them. countTokens counts the tokens of a generated text
// for the successes whose server reported no completion_tokens (the run's
// client tokenizer); nil means the run had none (tokenizer.skip_init).
//
// The summary's duration is the run's own when the file has its run-end
// line (record.RunEnd). A run killed before its end wrote none: the
// summary then uses the time of the last response any record holds,
// which is a little shorter than the run would have had, so throughputs
// read a little higher; the latency statistics are exactly the run's.
func FoldRecords(path string, countTokens func(string) int) (*Folded, error) {
	f, sc, err := readFold(path)
	if err != nil {
		return nil, err
	}
	return fold(f, sc, countTokens), nil
}

// Fold is FoldRecords with the run's own client tokenizer, resolved from
// the header's scenario as the run resolved it (its diagnostics go to
// env's observer), when a success needs its text counted; when every
// success carries the server's completion_tokens, nothing is resolved.
func Fold(ctx context.Context, path string, env Env) (*Folded, error) {
	f, sc, err := readFold(path)
	if err != nil {
		return nil, err
	}
	count, err := runCounter(ctx, path, f, sc, env)
	if err != nil {
		return nil, err
	}
	return fold(f, sc, count), nil
}

// runCounter is the output-token counter a fold of f (from a run of sc,
// read from path) needs: nil when the run had no tokenizer, the run's own
// tokenizer when a success lacks the server's completion_tokens, else a
// counter never called.
func runCounter(ctx context.Context, path string, f *record.File, sc *scenario.Scenario, env Env) (func(string) int, error) {
	if sc.Tokenizer.SkipInit {
		return nil, nil
	}
	for _, r := range f.Records {
		if r.Success && r.OutputTokens == 0 {
			tok, _, err := loadTokenizerEnv(ctx, sc, env, newEndpoint(sc))
			if err != nil {
				return nil, fmt.Errorf("%s: the run's tokenizer, to count output tokens the server did not report: %w", path, err)
			}
			return countTokens(tok), nil
		}
	}
	return func(string) int { return 0 }, nil // never called: the server counted
}

// readFold reads a records file and the scenario its header holds.
func readFold(path string) (*record.File, *scenario.Scenario, error) {
	f, sc, err := readHeaded(path)
	if err == nil && len(f.Records) == 0 {
		return nil, nil, fmt.Errorf("%s: no records: the run completed no request before it stopped", path)
	}
	return f, sc, err
}

// readHeaded reads a records file and the scenario its header holds; it
// may hold no record.
func readHeaded(path string) (*record.File, *scenario.Scenario, error) {
	f, err := record.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if f.Header == nil {
		return nil, nil, fmt.Errorf("%s: no header line: the file was not streamed by a vbench run (records written after a run have no header), so its scenario is unknown", path)
	}
	if len(f.Header.Scenario) == 0 {
		return nil, nil, fmt.Errorf("%s: the header holds no scenario", path)
	}
	sc, err := scenario.LoadBytes("scenario.json", f.Header.Scenario, scenario.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the header's scenario: %w", path, err)
	}
	return f, sc, nil
}

// fold folds the records of f, from a run of sc.
func fold(f *record.File, sc *scenario.Scenario, countTokens func(string) int) *Folded {
	maxConc := 0
	if sc.Load.MaxConcurrency != nil {
		maxConc = *sc.Load.MaxConcurrency
	}
	opt := metrics.Options{
		PercentileMetrics: sc.Metrics.PercentileMetrics,
		Percentiles:       sc.Metrics.MetricPercentiles,
		Goodput:           sc.Metrics.Goodput,
		CountTokens:       countTokens,
		MaxConcurrencySet: maxConc > 0,
		RequestRateFinite: !sc.Load.RequestRate.IsInf(),
		Pooling:           scenario.Pooling(sc.Target.Backend),
	}
	var dur time.Duration
	if f.End != nil {
		dur = f.End.Duration() // the run's own
	} else {
		for _, r := range f.Records {
			dur = max(dur, r.Start, r.End)
			if n := len(r.Chunks); n > 0 {
				dur = max(dur, r.Chunks[n-1])
			}
		}
	}
	sum := metrics.Compute(f.Records, dur, opt)
	recs := slices.Clone(f.Records)
	slices.SortStableFunc(recs, func(a, b *record.Record) int { return a.Index - b.Index })
	return &Folded{Header: f.Header, Scenario: sc, Records: recs, Summary: sum, Duration: dur, Truncated: f.Truncated,
		ServerSamples: decodeServerSamples(f.ServerSamples)}
}

// NotSentLine is the line a run prints for the requests it never sent (the
// run was interrupted first), counted from the folded records: "" when
// every record was sent.
func (f *Folded) NotSentLine() string {
	n, ended := 0, 0
	for _, r := range f.Records {
		switch {
		case r.NotSent && r.Conversation != "" && strings.HasPrefix(r.Error, dataset.EndedTurnPrefix):
			ended++
		case r.NotSent:
			n++
		}
	}
	return notSentText(n, len(f.Records)) + endedTurnsText(ended, len(f.Records))
}
