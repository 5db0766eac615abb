package metrics

import (
	"fmt"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// benchRecords returns n successful records of chunks token events each
// (TTFT ≈ 50 ms, ITL ≈ 10 ms with a little deterministic spread), as a run
// of n requests would leave them.
func benchRecords(n, chunks int) []*record.Record {
	recs := make([]*record.Record, n)
	times := make([]time.Duration, n*chunks) // one backing array: less setup garbage
	for i := range recs {
		start := time.Duration(i) * time.Millisecond
		c := times[i*chunks : (i+1)*chunks : (i+1)*chunks]
		t := start + 50*time.Millisecond + time.Duration(i%7)*time.Microsecond
		for k := range c {
			c[k] = t
			t += 10*time.Millisecond + time.Duration((i+k)%11)*time.Microsecond
		}
		recs[i] = &record.Record{Index: i, Intended: start, Released: start, Start: start, Chunks: c, End: c[len(c)-1],
			PromptLen: 1024, OutputTokens: chunks, Success: true, Status: 200}
	}
	return recs
}

// BenchmarkCompute folds 1 M records (8 token events each, so 7 M ITLs)
// into vLLM's summary with the default metrics and percentiles.
func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			recs := benchRecords(n, 8)
			dur := recs[n-1].End
			opt := Options{PercentileMetrics: []string{TTFT, TPOT, ITL, E2EL}, Percentiles: []float64{50, 90, 99},
				CountTokens: func(string) int { return 1 }}
			b.ReportAllocs()
			for b.Loop() {
				s := Compute(recs, dur, opt)
				if s.Completed != n {
					b.Fatal(s.Completed)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
