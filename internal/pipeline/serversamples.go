package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/scenario"
)

// serverSampler samples the server's load gauges (KV-cache usage, running
// and waiting requests) every metrics.scrape_interval during the timed
// phase, on a goroutine of its own: it is one of the run's sinks only to
// learn the run's start (run.Starter, called on the sinks' goroutine, so
// it never delays a send) and ignores the records. Each scrape has the
// benchmark's TLS settings, none of its headers, and a timeout shorter than
// the interval (promscrape.SampleTimeout); a failed scrape gives no sample
// and never fails the run. Each sample goes to the records file as it is
// taken, as a {"server_sample": …} line.
type serverSampler struct {
	scr      *promscrape.Scraper
	interval time.Duration
	file     *record.FileSink // nil without a records file
	closeTr  func()
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{} // closed when the sampling goroutine returns; nil before Start

	mu      sync.Mutex
	samples []promscrape.ServerSample
}

// newServerSampler returns the sampler of a run of sc against base, or nil
// when the run does not sample (sc.ScrapeInterval; argv says vbench serve)
// or the transport cannot be built (the run's client would have failed on
// the same CA file first). ctx bounds the sampling (an interrupted run
// stops it); file, when not nil, is the records file.
func newServerSampler(ctx context.Context, sc *scenario.Scenario, base string, argv bool, file *record.FileSink) *serverSampler {
	interval := sc.ScrapeInterval(argv)
	if interval <= 0 {
		return nil
	}
	tr, err := backend.NewTransport(sc.Target.Insecure, sc.Target.CAFile)
	if err != nil {
		return nil
	}
	s := &serverSampler{
		scr:      promscrape.New(base, tr, promscrape.SampleTimeout(interval)),
		interval: interval,
		file:     file,
		closeTr:  tr.CloseIdleConnections,
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	return s
}

// Start starts sampling on the run's clock (run.Starter).
func (s *serverSampler) Start(start time.Time) {
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		s.scr.Sample(s.ctx, start, s.interval, s.add)
	}()
}

// Record ignores the run's records (run.Sink).
func (s *serverSampler) Record(*record.Record) {}

// add keeps one sample and writes it to the records file.
func (s *serverSampler) add(smp promscrape.ServerSample) {
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
	if s.file != nil {
		s.file.ServerSample(smp)
	}
}

// stop ends the sampling when the timed phase is over, waits for a scrape
// in flight to give up, and returns the samples in time order (nil for
// a nil sampler). It must come before the records file is closed.
func (s *serverSampler) stop() []promscrape.ServerSample {
	if s == nil {
		return nil
	}
	s.cancel()
	if s.done != nil {
		<-s.done
	}
	s.closeTr()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
}

// serverTimelineJSON is the "server_timeline" member of the result's
// "vbench" object when the run sampled (nil, no key, when it did not):
// the interval, every sample with its time in seconds on the run's clock,
// and for each gauge some sample held, its max and mean over the samples
// (metrics.KeyServerKVCacheUsageMax and the others' paths):
//
//	{"interval_s": 1.0, "samples": [{"t_s": 1.0004, "kv_cache_usage": 0.12, "running": 8.0, "waiting": 0.0}, …],
//	 "kv_cache_usage": {"samples": 12, "max": 0.2, "mean": 0.1}, "running": {…}, "waiting": {…}}
//
// A gauge the server does not expose is -1 in the samples and has no
// summary; a server without /metrics leaves "samples" empty.
func serverTimelineJSON(interval time.Duration, samples []promscrape.ServerSample) any {
	if interval <= 0 {
		return nil
	}
	o := py.NewObject()
	o.Set("interval_s", interval.Seconds())
	list := make([]*py.Object, len(samples))
	for i, s := range samples {
		x := py.NewObject()
		x.Set("t_s", s.At.Seconds())
		x.Set("kv_cache_usage", s.KVCacheUsage)
		x.Set("running", s.Running)
		x.Set("waiting", s.Waiting)
		list[i] = x
	}
	o.Set("samples", list)
	st := promscrape.Summarize(samples)
	if st == nil {
		return o
	}
	for _, g := range []struct {
		key string
		st  *promscrape.GaugeStats
	}{{"kv_cache_usage", st.KVCacheUsage}, {"running", st.Running}, {"waiting", st.Waiting}} {
		if g.st == nil {
			continue
		}
		x := py.NewObject()
		x.Set("samples", g.st.Samples)
		x.Set("max", g.st.Max)
		x.Set("mean", g.st.Mean)
		o.Set(g.key, x)
	}
	return o
}

// serverSamplesLine is vbench's line after the result block about the
// sampled server gauges; "" without samples.
func serverSamplesLine(samples []promscrape.ServerSample) string {
	st := promscrape.Summarize(samples)
	if st == nil {
		return ""
	}
	var parts []string
	if g := st.KVCacheUsage; g != nil {
		parts = append(parts, fmt.Sprintf("KV cache usage max %s %% (mean %s %%)", py.Fixed(100*g.Max, 1), py.Fixed(100*g.Mean, 1)))
	}
	count := func(name string, g *promscrape.GaugeStats) {
		if g != nil {
			parts = append(parts, fmt.Sprintf("%s max %s (mean %s)", name, strconv.FormatFloat(g.Max, 'f', -1, 64), py.Fixed(g.Mean, 1)))
		}
	}
	count("running", st.Running)
	count("waiting", st.Waiting)
	line := "Server gauges: " + strconv.Itoa(len(samples)) + " samples"
	for i, p := range parts {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		line += sep + p
	}
	return line + "\n"
}

// ServerSamplesLine is the line about the sampled server gauges that a
// run prints after its result block ("" without samples), for a run
// folded back from its records file.
func ServerSamplesLine(samples []promscrape.ServerSample) string { return serverSamplesLine(samples) }

// decodeServerSamples decodes a records file's server-sample lines,
// skipping any that is not a sample.
func decodeServerSamples(raw []json.RawMessage) []promscrape.ServerSample {
	var out []promscrape.ServerSample
	for _, r := range raw {
		s := promscrape.ServerSample{KVCacheUsage: -1, Running: -1, Waiting: -1} // a gauge left out is absent
		if json.Unmarshal(r, &s) == nil {
			out = append(out, s)
		}
	}
	return out
}
