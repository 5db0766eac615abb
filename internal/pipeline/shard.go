package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/vbench/vbench/internal/clocksync"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
)

// ShardSync says how the clients of a run split over several (load.shard)
// start together.
type ShardSync struct {
	// StartAt, when not zero, is the instant every shard's run starts, on
	// the reference clock (shard 0's when Clock is set, else each host's
	// own): vbench run --start-at. A shard ready only after it fails
	// rather than send its requests late.
	StartAt time.Time
	// Clock, when set, is shard 0's time endpoint (host:port, vbench run
	// --clock): shard 0 serves its clock there (on every interface, at
	// that port) from before its run until the other shards have measured
	// again after theirs; the others measure their offset to it by
	// Cristian's method before the run (to place StartAt on their own
	// clock) and after it, and record both in their records file.
	Clock string
	// Linger is how long shard 0 waits after its run for the other
	// shards' after-run measurements (0: DefaultLinger).
	Linger time.Duration
}

// clockSamples is the number of round trips of one clock measurement:
// the one with the smallest round trip gives the offset.
const clockSamples = 32

// shardRun is the coordination of one shard's run.
type shardRun struct {
	shard  schedule.Shard
	sync   ShardSync
	server *clocksync.Server // shard 0's time endpoint, nil otherwise
	// before and after are the clock offsets measured around the run
	// (nil when none was).
	before, after *record.ClockOffset
	// saidDone is set once this shard has told shard 0 it is done.
	saidDone bool
}

// DefaultLinger is how long shard 0 waits at most, after its run, for the
// other shards' after-run clock measurements (ShardSync.Linger).
const DefaultLinger = 10 * time.Minute

// startShard checks sc's shard against env's start options and, for
// shard 0 of a run with a clock, starts serving the clock. It returns nil
// for a run that is neither sharded nor timed to start.
func startShard(sc *scenario.Scenario, env Env) (*shardRun, error) {
	sh := schedule.Whole
	if s := sc.Load.Shard; s != nil {
		sh = schedule.Shard{Index: s.Index, Count: s.Count}
		if err := sh.Check(); err != nil {
			return nil, unsupported("load.shard: %v", err)
		}
	}
	var sync ShardSync
	if env.Shard != nil {
		sync = *env.Shard
	}
	if sc.Load.Shard == nil && sync.StartAt.IsZero() {
		if sync.Clock != "" {
			return nil, unsupported("--clock needs a sharded run (--shard I/N, load.shard)")
		}
		return nil, nil
	}
	sr := &shardRun{shard: sh, sync: sync}
	if sync.Clock != "" && sh.Index == 0 && sh.Count > 1 {
		_, port, err := net.SplitHostPort(sync.Clock)
		if err != nil {
			return nil, unsupported("--clock %q: want host:port (shard 0's address as the others reach it): %v", sync.Clock, err)
		}
		srv, err := clocksync.Serve(net.JoinHostPort("", port), nil)
		if err != nil {
			return nil, fmt.Errorf("serving the shards' clock on port %s: %w", port, err)
		}
		sr.server = srv
	}
	return sr, nil
}

// measures reports whether this shard measures its clock against shard
// 0's.
func (sr *shardRun) measures() bool {
	return sr != nil && sr.sync.Clock != "" && sr.shard.Index != 0
}

// measure measures this shard's clock offset to shard 0's, waiting up to
// wait for shard 0 to answer; nil (with a warning) when it cannot.
func (sr *shardRun) measure(ctx context.Context, wait time.Duration, warn func(string)) *record.ClockOffset {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	est, err := clocksync.Measure(ctx, sr.sync.Clock, clockSamples, nil)
	if err != nil {
		warn(fmt.Sprintf("warning: shard %v: no clock offset to shard 0 (%v): this shard's times are aligned on its host's clock", sr.shard, err))
		return nil
	}
	return &record.ClockOffset{Reference: sr.sync.Clock, OffsetNs: int64(est.Offset), UncertaintyNs: int64(est.Uncertainty), Samples: est.Samples}
}

// beforeRun measures the clock (the shards but 0, with a clock) and
// returns the run's start instant, with a monotonic reading: StartAt on
// this host's clock, or the zero time for a run that starts when ready.
// A StartAt already past is an error: the shard would send late.
func (sr *shardRun) beforeRun(ctx context.Context, obs func(string)) (time.Time, error) {
	if sr == nil {
		return time.Time{}, nil
	}
	if sr.measures() {
		// Shard 0 may not answer yet: wait for it, but not past the
		// start (less a second to place it).
		wait := 2 * time.Minute
		if !sr.sync.StartAt.IsZero() {
			wait = max(time.Until(sr.sync.StartAt)-time.Second, time.Second)
		}
		sr.before = sr.measure(ctx, wait, obs)
	}
	if sr.sync.StartAt.IsZero() {
		return time.Time{}, nil
	}
	local := localStart(sr.sync.StartAt, sr.before)
	now := time.Now()
	wait := local.Sub(now) // wall clock against wall clock
	if wait < 0 {
		return time.Time{}, fmt.Errorf("shard %v was ready %.3f s after the agreed start (--start-at %s): it would send its requests late; start the shards later", sr.shard, -wait.Seconds(), sr.sync.StartAt.UTC().Format(time.RFC3339Nano))
	}
	obs(fmt.Sprintf("Shard %v starts at %s (in %.3f s)%s", sr.shard, sr.sync.StartAt.UTC().Format(time.RFC3339Nano), wait.Seconds(), sr.clockNote()))
	return now.Add(wait), nil
}

// localStart is the reference clock's instant startAt on this host's
// wall clock, whose offset to the reference before measured (nil: none,
// the clocks are taken to agree).
func localStart(startAt time.Time, before *record.ClockOffset) time.Time {
	if before == nil {
		return startAt
	}
	return startAt.Add(time.Duration(before.OffsetNs))
}

// startLead is how long before its start waitStart returns: the
// dispatcher waits for the rest (run.Plan.StartAt), with the progress
// display and the early stop started.
const startLead = 20 * time.Millisecond

// waitStart waits until shortly before start (the zero time: at once),
// or fails if ctx ends first.
func waitStart(ctx context.Context, start time.Time) error {
	if start.IsZero() {
		return nil
	}
	d := time.Until(start) - startLead
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("interrupted while waiting for the agreed start: %w", context.Cause(ctx))
	}
}

// clockNote says what the start's placement rests on.
func (sr *shardRun) clockNote() string {
	switch {
	case sr.before != nil:
		return fmt.Sprintf(", clock offset to shard 0 %+.3f ms ± %.3f ms", float64(sr.before.OffsetNs)/1e6, float64(sr.before.UncertaintyNs)/1e6)
	case sr.measures():
		return ", on this host's clock (no offset to shard 0 was measured)"
	}
	return ""
}

// annotate writes the shard's coordination into the records header.
func (sr *shardRun) annotate(h *record.Header) {
	if sr == nil {
		return
	}
	h.Shard = sr.shard.String()
	if !sr.sync.StartAt.IsZero() {
		h.StartAt = sr.sync.StartAt.UTC().Format(time.RFC3339Nano)
	}
	h.Clock = sr.before
}

// afterRun measures the clock again (the shards but 0) and tells shard 0
// this shard is done with it.
func (sr *shardRun) afterRun(ctx context.Context, obs func(string)) {
	if !sr.measures() {
		return
	}
	sr.after = sr.measure(ctx, 30*time.Second, obs)
	sr.done(ctx, obs)
}

// done tells shard 0 this shard will not measure again, once: after its
// run, or when it stops before (so that shard 0 need not wait for it).
// It is said even when ctx has ended (an interrupted shard).
func (sr *shardRun) done(ctx context.Context, obs func(string)) {
	if sr.saidDone {
		return
	}
	sr.saidDone = true
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := clocksync.Done(dctx, sr.sync.Clock, sr.shard.Index); err != nil {
		obs(fmt.Sprintf("warning: shard %v: could not tell shard 0 it is done: %v", sr.shard, err))
	}
}

// clockAfter is the offset measured after the run, nil when none was.
func (sr *shardRun) clockAfter() *record.ClockOffset {
	if sr == nil {
		return nil
	}
	return sr.after
}

// finish ends the shard's coordination when its run is over (failed says
// it failed or never ran). Another shard tells shard 0 it is done, if it
// has not. Shard 0 keeps its clock until the other shards have measured
// again after their runs (or Linger has passed), unless its own run
// failed: there is then no result for their offsets to align with.
func (sr *shardRun) finish(ctx context.Context, failed bool, obs func(string)) {
	if sr == nil {
		return
	}
	if sr.measures() {
		sr.done(ctx, obs)
	}
	if sr.server == nil {
		return
	}
	defer sr.server.Close()
	if failed {
		return
	}
	linger := sr.sync.Linger
	if linger <= 0 {
		linger = DefaultLinger
	}
	ctx, cancel := context.WithTimeout(ctx, linger)
	defer cancel()
	peers := sr.shard.Count - 1
	obs(fmt.Sprintf("Waiting for the other %d shards to measure their clocks after their runs (up to %v)", peers, linger))
	if err := sr.server.WaitDone(ctx, peers); err != nil && !errors.Is(err, context.Canceled) {
		obs(fmt.Sprintf("warning: %v", err))
	}
}

// shardPlan is the part of a run a shard sends.
type shardPlan struct {
	// total is the whole plan's request count.
	total int
	// owns reports a request of the whole plan that this shard sends, and
	// index maps the shard's i-th request to its index in the plan; both
	// nil for a run that is not split.
	owns  func(int) bool
	index func(int) int
	// stripeIndex is the inverse of index: a plan index's place in the
	// stripe.
	stripeIndex func(int) int
}

// local adapts add, which files a record by its index, to a shard's
// records: it is given a copy indexed by the record's place in the stripe,
// so that what add keeps per index is the stripe's size, not the whole
// plan's. For a run that is not split it is add itself.
func (p shardPlan) local(add func(*record.Record)) run.SinkFunc {
	if p.owns == nil {
		return add
	}
	return func(rec *record.Record) {
		c := *rec
		c.Index = p.stripeIndex(rec.Index)
		add(&c)
	}
}

// shardOf is sc's shard: schedule.Whole for a run that is not split.
func shardOf(sc *scenario.Scenario) schedule.Shard {
	if s := sc.Load.Shard; s != nil {
		return schedule.Shard{Index: s.Index, Count: s.Count}
	}
	return schedule.Whole
}

// stripe applies sc's shard to a run of total requests whose intended
// times sched gives: the shard's schedule, its request count and the
// plan mapping.
func stripe(sc *scenario.Scenario, sched schedule.Sequence, total int) (schedule.Sequence, int, shardPlan, error) {
	plan := shardPlan{total: total}
	sh := shardOf(sc)
	if sh.Count == 1 {
		return sched, total, plan, nil
	}
	n := sh.Len(total)
	if n == 0 {
		return nil, 0, plan, unsupported("load.shard %v: the run's %d requests leave this shard none", sh, total)
	}
	plan.owns, plan.index = sh.Owns, sh.Global
	plan.stripeIndex = sh.Local
	return schedule.Stripe(sched, sh), n, plan, nil
}
