package run

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// BenchmarkRunProbeSendLag measures the dispatcher's send lag (released -
// intended) with and without a probe loop beside it: 500 requests 200 µs
// apart, each taking 1 ms, and, with probes, a loop that never pauses
// (interval 0) and whose every probe waits 100 µs, about 10000 probes a
// second, far more than any real probe rate. The probes run on their own
// goroutine, so the lag percentiles should be the same. (On a host
// shared with other work, the lags are the host's.)
func BenchmarkRunProbeSendLag(b *testing.B) {
	offsets := make([]time.Duration, 500)
	for i := range offsets {
		offsets[i] = time.Duration(i) * 200 * time.Microsecond
	}
	main := SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
		rec.Start = now()
		time.Sleep(time.Millisecond)
		rec.End, rec.Success = now(), true
	})
	fast := SenderFunc(func(ctx context.Context, i int, rec *record.Record, now func() time.Duration) {
		rec.Start = now()
		time.Sleep(100 * time.Microsecond)
		rec.End, rec.Success = now(), true
	})
	for _, tc := range []struct {
		name  string
		probe *Probe
	}{
		{"probes=off", nil},
		{"probes=busy", &Probe{Interval: 0, Sender: fast}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var lags []time.Duration
			probes := 0
			for b.Loop() {
				res := Run(context.Background(), Plan{Offsets: offsets, Probe: tc.probe}, main)
				for _, r := range res.Records {
					lags = append(lags, r.SendLag())
				}
				probes += len(res.Probes)
			}
			slices.Sort(lags)
			us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
			b.ReportMetric(us(lags[len(lags)/2]), "p50-lag-µs")
			b.ReportMetric(us(lags[len(lags)*99/100]), "p99-lag-µs")
			b.ReportMetric(us(lags[len(lags)-1]), "max-lag-µs")
			b.ReportMetric(float64(probes)/float64(b.N), "probes/run")
		})
	}
}
