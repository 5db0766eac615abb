package pipeline

import (
	"context"
	"fmt"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
)

// serverScrape reads the server's /metrics before and after the timed
// phase, as vLLM does for its speculative- and diffusion-decoding
// statistics (and vbench for the prefix-cache hit rate): with the benchmark's TLS settings and none of its headers.
// Neither scrape is on the request path, and a server without /metrics
// only leaves the statistics out.
type serverScrape struct {
	scr    *promscrape.Scraper
	close  func()
	before *promscrape.Snapshot
	// warn says once which /metrics line could not be read.
	warn   func(string)
	warned bool
}

// newServerScrape returns the scraper of base, or one that reads nothing
// when the transport cannot be built (the run's client would have failed
// on the same CA file first).
func newServerScrape(sc *scenario.Scenario, base string, warn func(string)) *serverScrape {
	tr, err := backend.NewTransport(sc.Target.Insecure, sc.Target.CAFile)
	if err != nil {
		return &serverScrape{close: func() {}}
	}
	return &serverScrape{scr: promscrape.New(base, tr, 0), close: tr.CloseIdleConnections, warn: warn}
}

// scrape reads /metrics once; nil when not available.
func (s *serverScrape) scrape(ctx context.Context) *promscrape.Snapshot {
	if s.scr == nil {
		return nil
	}
	snap, err := s.scr.Scrape(ctx)
	if err != nil {
		return nil
	}
	if n := len(snap.Skipped); n > 0 && !s.warned && s.warn != nil {
		s.warned = true
		s.warn(fmt.Sprintf("warning: %s: %d line(s) could not be read and were skipped (the rest was read), the first: %s", s.scr.URL(), n, snap.Skipped[0]))
	}
	return snap
}

// start takes the scrape before the timed phase, and closes its
// connection, which would otherwise stay open through the run beside the
// benchmark's own.
func (s *serverScrape) start(ctx context.Context) {
	s.before = s.scrape(ctx)
	s.close()
}

// finish takes the scrape after the timed phase and sets out's server
// statistics from the two (duration is the run's, in seconds).
func (s *serverScrape) finish(ctx context.Context, duration float64, out *Outcome) {
	defer s.close()
	if s.before == nil {
		return
	}
	after := s.scrape(ctx)
	if after == nil {
		return
	}
	if st := promscrape.SpecDecode(s.before, after); st != nil {
		out.SpecDecode = &report.SpecDecodeStats{
			AcceptanceRate: st.AcceptanceRate, AcceptanceLength: st.AcceptanceLength,
			NumDrafts: int(st.NumDrafts), DraftTokens: int(st.DraftTokens), AcceptedTokens: int(st.AcceptedTokens),
			PerPositionAcceptanceRates: st.PerPosition,
		}
	}
	out.PrefixCache = promscrape.PrefixCache(s.before, after)
	if st := promscrape.Diffusion(s.before, after, duration); st != nil {
		out.Diffusion = &report.DiffusionStats{
			CommittedThroughput: st.CommittedThroughput, StepsPerCanvas: st.StepsPerCanvas, CommittedPerStep: st.CommittedPerStep,
			CommittedTokens: int(st.CommittedTokens), DenoisingSteps: int(st.DenoisingSteps), CanvasPositions: int(st.CanvasPositions),
		}
	}
}
