package promscrape

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/vbench/vbench/internal/record"
)

// ServerSample is one reading of the server's load gauges (see
// record.ServerSample, where the type lives so that the records file can
// hold it): vLLM's KV-cache usage and its running and waiting request
// counts, the last two summed over the server's label sets (engines,
// models), the first their mean; a gauge the server does not expose is -1.
type ServerSample = record.ServerSample

// vLLM's load gauges, read by exact family name.
const (
	FamKVCacheUsage    = "vllm:kv_cache_usage_perc"
	FamGPUCacheUsage   = "vllm:gpu_cache_usage_perc" // its name before vLLM 0.10
	FamRequestsRunning = "vllm:num_requests_running"
	FamRequestsWaiting = "vllm:num_requests_waiting"
)

// gaugeAcc sums one gauge over its label sets.
type gaugeAcc struct {
	sum float64
	n   int
}

func (g *gaugeAcc) add(v float64) {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		g.sum += v
		g.n++
	}
}

// total is the sum, or -1 without a series.
func (g *gaugeAcc) total() float64 {
	if g.n == 0 {
		return -1
	}
	return g.sum
}

// mean is the mean, or -1 without a series.
func (g *gaugeAcc) mean() float64 {
	if g.n == 0 {
		return -1
	}
	return g.sum / float64(g.n)
}

// ReadGauges reads vLLM's load gauges from a text exposition, without
// parsing the rest: a vLLM server's /metrics is mostly histogram buckets,
// and a sampler that reads it every second should not pay expfmt's
// allocations for them. A sample line counts when its metric name is
// exactly one of the gauge families (so "vllm:num_requests_running_total"
// does not); comment lines, other families, malformed lines and NaN or
// infinite values are skipped. The sample's At is left 0. An exposition
// over MaxBody bytes is ErrTooLarge.
func ReadGauges(r io.Reader) (ServerSample, error) {
	lr := &io.LimitedReader{R: r, N: MaxBody + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, 4<<10), MaxBody+1) // vLLM's lines are short; a longer one grows it
	var kv, gpu, run, wait gaugeAcc
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 5 || line[0] != 'v' {
			continue
		}
		name, v, ok := gaugeLine(line)
		if !ok {
			continue
		}
		switch string(name) { // no allocation: the conversion is only compared
		case FamKVCacheUsage:
			kv.add(v)
		case FamGPUCacheUsage:
			gpu.add(v)
		case FamRequestsRunning:
			run.add(v)
		case FamRequestsWaiting:
			wait.add(v)
		}
	}
	if lr.N <= 0 {
		return emptySample, ErrTooLarge
	}
	if err := sc.Err(); err != nil {
		return emptySample, fmt.Errorf("reading the exposition: %w", err)
	}
	s := ServerSample{KVCacheUsage: kv.mean(), Running: run.total(), Waiting: wait.total()}
	if kv.n == 0 {
		s.KVCacheUsage = gpu.mean()
	}
	return s, nil
}

// emptySample is a sample with no gauge.
var emptySample = ServerSample{KVCacheUsage: -1, Running: -1, Waiting: -1}

// gaugeLine splits a sample line of a vllm:…_perc or vllm:num_requests_…
// family into its metric name and value; false for any other line. Label
// values may hold any character: quotes and backslash escapes are
// followed to the closing brace.
func gaugeLine(line []byte) (name []byte, v float64, ok bool) {
	end := bytes.IndexAny(line, "{ \t")
	if end < 0 {
		return nil, 0, false
	}
	name = line[:end]
	if !bytes.HasPrefix(name, []byte("vllm:")) || !(bytes.HasSuffix(name, []byte("_perc")) || bytes.HasPrefix(name, []byte("vllm:num_requests_"))) {
		return nil, 0, false
	}
	rest := line[end:]
	if rest[0] == '{' {
		i := labelsEnd(rest)
		if i < 0 {
			return nil, 0, false
		}
		rest = rest[i+1:]
	}
	rest = bytes.TrimLeft(rest, " \t")
	if j := bytes.IndexAny(rest, " \t"); j >= 0 {
		rest = rest[:j] // a timestamp follows
	}
	f, err := strconv.ParseFloat(string(rest), 64)
	if err != nil {
		return nil, 0, false
	}
	return name, f, true
}

// labelsEnd returns the index of the brace that closes the label set
// rest starts with, or -1.
func labelsEnd(rest []byte) int {
	quoted := false
	for i := 1; i < len(rest); i++ {
		switch c := rest[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '}':
			return i
		}
	}
	return -1
}

// SampleTimeout is how long one scrape of a sampler with the given
// interval may take: four fifths of the interval, at most DefaultTimeout,
// so that a scrape is always over before the next tick.
func SampleTimeout(interval time.Duration) time.Duration {
	return min(interval-interval/5, DefaultTimeout)
}

// Gauges reads the server's load gauges once (see ReadGauges); At is
// clock() when the response's headers arrived. Every failure wraps
// ErrNotAvailable.
func (s *Scraper) Gauges(ctx context.Context, clock func() time.Duration) (ServerSample, error) {
	var g ServerSample
	err := s.get(ctx, func(body io.Reader) (err error) {
		at := clock()
		g, err = ReadGauges(body)
		g.At = at
		return err
	})
	if err != nil {
		return emptySample, err
	}
	return g, nil
}

// Sample reads the server's load gauges at start+interval,
// start+2·interval, … (absolute times, so a slow scrape never shifts the
// ticks after it; a tick already past when the previous scrape ends is
// skipped) until ctx is done, and hands each sample that holds at least
// one gauge to emit, on Sample's goroutine, in time order. Failed scrapes
// (no /metrics, a timeout, a refused connection) give no sample and no
// error. The sample's At is on the clock that starts at start (time.Since,
// which is monotonic). Use a Scraper whose timeout is SampleTimeout of the
// interval.
func (s *Scraper) Sample(ctx context.Context, start time.Time, interval time.Duration, emit func(ServerSample)) {
	if interval <= 0 {
		return
	}
	clock := func() time.Duration { return time.Since(start) }
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for k := time.Duration(1); ; k++ {
		if now := clock(); k*interval <= now {
			k = now/interval + 1 // skip the ticks already past
		}
		timer.Reset(time.Until(start.Add(k * interval)))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		g, err := s.Gauges(ctx, clock)
		if err != nil || g.Empty() || ctx.Err() != nil {
			continue
		}
		emit(g)
	}
}

// GaugeStats summarises one gauge over a run's samples.
type GaugeStats struct {
	// Samples is the number of samples that hold the gauge.
	Samples int
	// Max and Mean are over those samples (the samples are evenly spaced,
	// so the mean is the gauge's average over the sampled time).
	Max, Mean float64
}

// SampleStats summarises a run's samples gauge by gauge; a gauge no
// sample holds is nil.
type SampleStats struct {
	KVCacheUsage, Running, Waiting *GaugeStats
}

// Summarize returns the statistics of samples (nil when there are none).
func Summarize(samples []ServerSample) *SampleStats {
	if len(samples) == 0 {
		return nil
	}
	stat := func(get func(ServerSample) float64) *GaugeStats {
		var g GaugeStats
		var sum float64
		for _, s := range samples {
			v := get(s)
			if v < 0 {
				continue
			}
			if g.Samples == 0 || v > g.Max {
				g.Max = v
			}
			sum += v
			g.Samples++
		}
		if g.Samples == 0 {
			return nil
		}
		g.Mean = sum / float64(g.Samples)
		return &g
	}
	return &SampleStats{
		KVCacheUsage: stat(func(s ServerSample) float64 { return s.KVCacheUsage }),
		Running:      stat(func(s ServerSample) float64 { return s.Running }),
		Waiting:      stat(func(s ServerSample) float64 { return s.Waiting }),
	}
}
