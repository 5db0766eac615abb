package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/schedule"
	"github.com/vbench/vbench/internal/version"
)

// Shard is one shard's records file, as Merge read it.
type Shard struct {
	// Path is the file.
	Path string
	// Shard is the stripe it holds.
	Shard schedule.Shard
	// Header is its header line.
	Header *record.Header
	// Shift is how much later than the merged run's time zero this
	// shard's time zero was, on the reference clock: its records' times
	// are moved by it.
	Shift time.Duration
	// Records is its number of records; Truncated reports a last line cut
	// short (the shard was killed).
	Records   int
	Truncated bool
	// End is its run-end line (nil when the shard was killed first).
	End *record.RunEnd
	// file is what was read (until combine has copied it), and scenario
	// the header's scenario.
	file     *record.File
	scenario *scenario.Scenario
}

// Merged is a run folded from the records files of its shards.
type Merged struct {
	// Folded is the merged run: its scenario is the whole plan's (without
	// load.shard), its records all the shards' in request order, with
	// times on one clock.
	*Folded
	// Shards are the files merged, in shard order.
	Shards []Shard
	// Uncertainty is the worst clock uncertainty of any shard (before or
	// after its run); 0 when no shard measured its clock.
	Uncertainty time.Duration
	// Drift is the largest change of a shard's clock offset from before
	// its run to after it.
	Drift time.Duration
	// Start is the merged run's time zero on the reference clock.
	Start time.Time
	// ExactDuration reports that every shard recorded its run's end, so
	// the duration is the runs' own; otherwise it is the last response's
	// time (see FoldRecords).
	ExactDuration bool
	// end is the merged run's end line (nil unless ExactDuration).
	end *record.RunEnd
}

// Merge folds the records files of a run's shards (paths, one per shard)
// into one run, as if one client had sent every request: the files must
// hold the same plan (their headers' scenario hash) and every shard of it
// exactly once. Each shard's times are moved onto one clock: a shard's
// time zero is its header's start less its measured clock offset to
// shard 0. The records are then folded with the run's own fold (see
// FoldRecords), never by averaging the shards' summaries, so the merged
// percentiles are those of one run holding the same records. The duration
// is the latest shard's end (when a shard has no run-end line, the last
// response's time, as FoldRecords takes it). The server's gauges are
// shard 0's samples. countTokens is as for FoldRecords.
func Merge(paths []string, countTokens func(string) int) (*Merged, error) {
	m, f, sc, err := readShards(paths)
	if err != nil {
		return nil, err
	}
	return m.fold(f, sc, countTokens), nil
}

// fold folds the combined file f of the plan sc.
func (m *Merged) fold(f *record.File, sc *scenario.Scenario, countTokens func(string) int) *Merged {
	m.Folded = fold(f, sc, countTokens)
	for i := range m.Folded.ServerSamples { // shard 0's, on its clock
		m.Folded.ServerSamples[i].At += m.Shards[0].Shift
	}
	return m
}

// MergeEnv is Merge with the run's own client tokenizer, resolved as Fold
// resolves it, when a success needs its text counted.
func MergeEnv(ctx context.Context, paths []string, env Env) (*Merged, error) {
	m, f, sc, err := readShards(paths)
	if err != nil {
		return nil, err
	}
	count, err := runCounter(ctx, m.Shards[0].Path, f, sc, env)
	if err != nil {
		return nil, err
	}
	return m.fold(f, sc, count), nil
}

// readShards reads and checks the shards' files, and returns them as one
// file (the records moved onto one clock, the header the whole plan's)
// with the plan's scenario.
func readShards(paths []string) (*Merged, *record.File, *scenario.Scenario, error) {
	if len(paths) == 0 {
		return nil, nil, nil, errors.New("no records files to merge")
	}
	m := &Merged{ExactDuration: true}
	total := 0
	for _, p := range paths {
		f, s, err := readHeaded(p) // a shard may have completed nothing
		if err != nil {
			return nil, nil, nil, err
		}
		sh, err := schedule.ParseShard(cmp.Or(f.Header.Shard, schedule.Whole.String()))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: the header's %v", p, err)
		}
		m.Shards = append(m.Shards, Shard{Path: p, Shard: sh, Header: f.Header, Records: len(f.Records), Truncated: f.Truncated, End: f.End,
			file: f, scenario: s})
		m.ExactDuration = m.ExactDuration && f.End != nil
		total += len(f.Records)
	}
	if err := checkShards(m.Shards); err != nil {
		return nil, nil, nil, err
	}
	if total == 0 {
		return nil, nil, nil, fmt.Errorf("no records in any of the %d shards' files: the run completed no request", len(paths))
	}
	slices.SortFunc(m.Shards, func(a, b Shard) int { return a.Shard.Index - b.Shard.Index })
	m.align()
	plan := *m.Shards[0].scenario
	plan.Load.Shard = nil
	return m, m.combine(), &plan, nil
}

// checkShards checks that the files hold one plan and each of its shards
// exactly once.
func checkShards(shards []Shard) error {
	hashes := map[string][]string{}
	for _, s := range shards {
		hashes[s.Header.ScenarioHash] = append(hashes[s.Header.ScenarioHash], s.Path)
	}
	if len(hashes) > 1 {
		var lines []string
		for h, ps := range hashes {
			lines = append(lines, fmt.Sprintf("  %s: %s", h, strings.Join(ps, ", ")))
		}
		slices.Sort(lines)
		return fmt.Errorf("the records files are of %d different scenarios (scenario hash), not the shards of one run:\n%s", len(hashes), strings.Join(lines, "\n"))
	}
	count := shards[0].Shard.Count
	byIndex := map[int]string{}
	for _, s := range shards {
		if s.Shard.Count != count {
			return fmt.Errorf("%s holds shard %v, %s shard %v: the shards of one run agree on their count", shards[0].Path, shards[0].Shard, s.Path, s.Shard)
		}
		if prev, ok := byIndex[s.Shard.Index]; ok {
			return fmt.Errorf("shard %v is in two files: %s and %s", s.Shard, prev, s.Path)
		}
		byIndex[s.Shard.Index] = s.Path
	}
	var missing []string
	for i := range count {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, schedule.Shard{Index: i, Count: count}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %d of the run's %d shards: %s (each shard's records file is NAME-shardIofN.records.jsonl in its result directory)", len(missing), count, strings.Join(missing, ", "))
	}
	return nil
}

// align places each shard's time zero on the reference clock (its
// header's start less its clock offset), takes the earliest as the
// merged run's, and sets each shard's Shift, and the worst clock
// uncertainty and drift.
func (m *Merged) align() {
	zero := make([]time.Time, len(m.Shards))
	for i, s := range m.Shards {
		f, h := s.file, s.Header
		zero[i] = h.StartTime()
		if c := h.Clock; c != nil {
			zero[i] = zero[i].Add(-time.Duration(c.OffsetNs))
			m.Uncertainty = max(m.Uncertainty, time.Duration(c.UncertaintyNs))
		}
		if e := f.End; e != nil && e.ClockAfter != nil {
			m.Uncertainty = max(m.Uncertainty, time.Duration(e.ClockAfter.UncertaintyNs))
			if c := h.Clock; c != nil {
				d := time.Duration(e.ClockAfter.OffsetNs - c.OffsetNs)
				m.Drift = max(m.Drift, d, -d)
			}
		}
	}
	m.Start = slices.MinFunc(zero, func(a, b time.Time) int { return a.Compare(b) })
	for i := range m.Shards {
		m.Shards[i].Shift = zero[i].Sub(m.Start)
	}
}

// combine returns the shards' files as one: their records and server
// samples with times moved by each shard's Shift, under shard 0's header
// made the whole run's (shard 0/1, starting at the merged time zero, no
// clock offset).
func (m *Merged) combine() *record.File {
	h := *m.Shards[0].Header
	h.Shard = schedule.Whole.String()
	h.SetStart(m.Start)
	h.Clock = nil
	out := &record.File{Header: &h}
	for i, s := range m.Shards {
		f, shift := s.file, s.Shift
		for _, r := range f.Records {
			out.Records = append(out.Records, shifted(r, shift))
		}
		if i == 0 {
			// Every shard samples the one server: shard 0's samples
			// stand for all.
			out.ServerSamples = f.ServerSamples
		}
		out.Truncated = out.Truncated || f.Truncated
	}
	if m.ExactDuration {
		end := &record.RunEnd{}
		for _, s := range m.Shards {
			end.DurationNs = max(end.DurationNs, int64(s.Shift)+s.End.DurationNs)
			end.Planned += s.End.Planned
			end.Sent += s.End.Sent
			end.Interrupted = end.Interrupted || s.End.Interrupted
		}
		out.End, m.end = end, end
	}
	slices.SortStableFunc(out.Records, func(a, b *record.Record) int { return a.Index - b.Index })
	for i := range m.Shards {
		m.Shards[i].file = nil // its records are copied into out
	}
	return out
}

// shifted is a copy of r with its times moved by d.
func shifted(r *record.Record, d time.Duration) *record.Record {
	c := *r
	if d == 0 {
		return &c
	}
	c.Intended += d
	c.Released += d
	c.Start += d
	if c.End != 0 {
		c.End += d
	}
	if c.FirstReasoning != 0 {
		c.FirstReasoning += d
	}
	if c.FirstAnswer != 0 {
		c.FirstAnswer += d
	}
	if len(c.Chunks) > 0 {
		c.Chunks = make([]time.Duration, len(r.Chunks))
		for i, t := range r.Chunks {
			c.Chunks[i] = t + d
		}
	}
	return &c
}

// mergeJSON is the "merge" member of a merged result's "vbench" object.
type mergeJSON struct {
	// Shards is the number of shards merged, and Files their records
	// files (base names), in shard order.
	Shards int      `json:"shards"`
	Files  []string `json:"files"`
	// ShiftsMs are the shards' time zeros after the earliest, in ms.
	ShiftsMs []float64 `json:"shifts_ms"`
	// ClockUncertaintyMs is the worst clock uncertainty of any shard, and
	// ClockDriftMs the largest change of a shard's offset over its run.
	ClockUncertaintyMs float64 `json:"clock_uncertainty_ms"`
	ClockDriftMs       float64 `json:"clock_drift_ms"`
	// ExactDuration reports that every shard recorded its end.
	ExactDuration bool `json:"exact_duration"`
}

// MergedPath is where vbench merge writes by default: next to shard 0's
// records file, named as its result without the shard
// (x-shard0of3.records.jsonl → x.json; a name without the shard, from
// output.result_filename, gets -merged: x.records.jsonl → x-merged.json).
func (m *Merged) MergedPath() string {
	p := strings.TrimSuffix(strings.TrimSuffix(m.Shards[0].Path, ".records.jsonl"), ".jsonl")
	if q := strings.TrimSuffix(p, fmt.Sprintf("-shard0of%d", m.Shards[0].Shard.Count)); q != p {
		return q + ".json"
	}
	return p + "-merged.json" // a name of the scenario's own (output.result_filename): shard 0's result has it
}

// Write writes the merged run's result JSON at path (vllm bench serve's
// keys, with a "vbench" object whose "merge" member names the shards),
// and its records next to it (path's x.records.jsonl: the shards' records
// on one clock, in request order, under a header for the whole plan), so
// that it reports and merges again like a run of its own. Neither file
// may exist.
func (m *Merged) Write(path string) (records string, err error) {
	sc, sum := m.Scenario, m.Summary
	o := sc.Output
	recPath := recordsPath(path)
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("writing the merged result: %s: %w", path, fs.ErrExist)
	}
	if err := m.writeRecords(recPath); err != nil {
		return "", err
	}
	info := &vbenchInfo{Version: version.Version, ScenarioHash: sc.Hash(), Scenario: sc.Redacted(), Records: filepath.Base(recPath),
		PeakOverlappingRequests: sum.PeakOverlappingRequests, Reasoning: reasoningJSON(sum.Reasoning),
		ServerTimeline: serverTimelineJSON(sc.ScrapeInterval(false), m.ServerSamples)}
	info.Interrupted = m.Folded.Truncated || !m.ExactDuration
	mj := &mergeJSON{Shards: len(m.Shards), ClockUncertaintyMs: ms(m.Uncertainty), ClockDriftMs: ms(m.Drift), ExactDuration: m.ExactDuration}
	for _, s := range m.Shards {
		mj.Files = append(mj.Files, filepath.Base(s.Path))
		mj.ShiftsMs = append(mj.ShiftsMs, ms(s.Shift))
		if s.End != nil {
			info.Interrupted = info.Interrupted || s.End.Interrupted
			info.NotSent += s.End.Planned - s.End.Sent
		}
	}
	info.Merge = mj
	var ramp *report.RampUp
	if r := sc.Load.RampUp; r != nil {
		ramp = &report.RampUp{Strategy: r.Strategy, StartRPS: r.StartRPS, EndRPS: r.EndRPS}
	}
	data, err := report.MarshalResult(report.ResultInput{
		Date: m.Start.Format("20060102-150405"), Backend: sc.Target.Backend, Label: o.Label, ModelID: m.Header.ModelID, TokenizerID: m.Header.TokenizerID,
		NumPrompts: sc.Load.NumPrompts, Metadata: metadata(o.Metadata),
		RequestRate: float64(sc.Load.RequestRate), Burstiness: float64(sc.Load.Burstiness),
		MaxConcurrency: sc.Load.MaxConcurrency, RampUp: ramp, Summary: sum, SaveDetailed: o.SaveDetailed,
		RPSChangeEvents: m.rampEvents(),
		VBench:          info,
	})
	if err != nil {
		return recPath, fmt.Errorf("building the merged result JSON: %w", err)
	}
	if err := report.WriteNewFile(path, data); err != nil {
		return recPath, fmt.Errorf("writing the merged result: %w", err)
	}
	return recPath, nil
}

// rampEvents are the merged run's rps_change_events (ramp-up), stamped
// with the merged records' release times as a single client's run stamps
// them; nil without ramp-up.
func (m *Merged) rampEvents() []report.RPSChangeEvent {
	if m.Scenario.Load.RampUp == nil {
		return nil
	}
	released := 0
	for _, r := range m.Records {
		released = max(released, r.Index+1)
	}
	planned := released
	if m.end != nil {
		planned = m.end.Planned
	}
	l := newRampLog(m.Scenario, planned)
	for _, r := range m.Records {
		l.Record(r)
	}
	return l.events(&run.Result{Start: m.Start, Released: released})
}

// writeRecords writes the merged records file at path.
func (m *Merged) writeRecords(path string) error {
	h := *m.Header
	h.Scenario = nil
	text, err := json.Marshal(m.Scenario.Redacted())
	if err != nil {
		return fmt.Errorf("writing the merged records: %w", err)
	}
	h.Scenario = text
	h.ScenarioHash = m.Scenario.PlanHash()
	sink, err := record.CreateNewFile(path, h)
	if err != nil {
		return fmt.Errorf("writing the merged records: %w", err)
	}
	sink.Start(m.Start)
	for _, smp := range m.ServerSamples {
		sink.ServerSample(smp)
	}
	for _, r := range m.Records {
		sink.Record(r)
	}
	if m.end != nil {
		sink.End(*m.end)
	}
	return sink.Close()
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
