package pipeline

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/run"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/version"
)

// vbenchInfo is the "vbench" object appended to the result JSON: enough to
// trace a result to the exact scenario and re-run it.
type vbenchInfo struct {
	Version      string             `json:"version"`
	ScenarioHash string             `json:"scenario_hash"`
	Scenario     *scenario.Scenario `json:"scenario"`
	Records      string             `json:"records,omitempty"`
	// PeakOverlappingRequests is the true peak of overlapping successful
	// requests; vLLM's max_concurrent_requests counts the requests active
	// in each one-second bin, so sequential requests count together.
	PeakOverlappingRequests int `json:"peak_overlapping_requests,omitempty"`
	// Experiment places the run in its experiment (sweep, repeat,
	// compare): the experiment package's run information, as JSON.
	Experiment json.RawMessage `json:"experiment,omitempty"`
	// ClientHealth is the client's send lag and CPU use during the run.
	ClientHealth *clientHealth `json:"client_health,omitempty"`
	// SteadyState is the steady-state window of a closed-loop run and its
	// metrics, JSON null without one, and no key when
	// metrics.steady_state is off (see steadyJSON).
	SteadyState any `json:"steady_state,omitempty"`
	// PrefixCache is the server's prefix-cache hit rate over the run (see
	// prefixCacheJSON); no key when the server reports none.
	PrefixCache any `json:"prefix_cache,omitempty"`
	// TokenAccounting compares the client's and the server's output
	// token counts (see tokenAccountingJSON); no key without a tokenizer.
	TokenAccounting any `json:"token_accounting,omitempty"`
	// Reasoning splits a reasoning model's streams: time to first
	// reasoning and to first answer token, and the tokens of each (see
	// reasoningJSON); no key when no stream carried reasoning.
	Reasoning any `json:"reasoning,omitempty"`
	// ServerTimeline is the server's load gauges sampled during the run
	// (see serverTimelineJSON); no key when the run did not sample.
	ServerTimeline any `json:"server_timeline,omitempty"`
	// Conversations are a conversations run's figures: by turn (TTFT,
	// E2EL, prompt length) and by conversation; no key for other runs.
	Conversations *conversationsJSON `json:"conversations,omitempty"`
	// Interrupted marks a run cancelled before it finished, so --resume
	// must not take it as done.
	Interrupted bool `json:"interrupted,omitempty"`
	// NotSent is the number of requests an interrupted run never sent:
	// vLLM's "completed" and "failed" count only the requests that ran.
	NotSent int `json:"not_sent,omitempty"`
	// StoppedEarly says why a run ended early (load.early_stop).
	StoppedEarly *stoppedEarlyJSON `json:"stopped_early,omitempty"`
	// Merge names the shards a merged result was folded from (vbench
	// merge); no key for a run's own result.
	Merge *mergeJSON `json:"merge,omitempty"`
}

// stoppedEarlyJSON is the "stopped_early" member of the "vbench" object.
type stoppedEarlyJSON struct {
	Reason string  `json:"reason"`
	AfterS float64 `json:"after_s"`
}

// MarshalJSON writes the object as encoding/json writes its fields, for
// report.ResultInput.VBench.
func (v *vbenchInfo) MarshalJSON() ([]byte, error) {
	type plain vbenchInfo // without this method
	return json.Marshal((*plain)(v))
}

// runFiles are a run's output files, named before the run starts.
type runFiles struct {
	// date is the result's "date" and the stamp in its default file name.
	date string
	// result is the result JSON ("" when the result is not saved).
	result string
	// name is the result's computed name, also when the result is not
	// saved but the timeline (named after it) is.
	name string
	// records is the per-request JSONL ("" when none is written).
	records string
	// ramp is the result's ramp-up settings (nil without ramp-up).
	ramp *report.RampUp
}

// planFiles names a run's output files, stamped with now: the result JSON
// when the scenario saves (or appends) it, and next to it the per-request
// records when output.records is set outside argv mode without extras.
// The name is computed with output.plot_timeline too, for the timeline.
func planFiles(sc *scenario.Scenario, modelID string, now time.Time, argv *ArgvMode) runFiles {
	o := sc.Output
	f := runFiles{date: now.Format("20060102-150405")}
	if r := sc.Load.RampUp; r != nil {
		f.ramp = &report.RampUp{Strategy: r.Strategy, StartRPS: r.StartRPS, EndRPS: r.EndRPS}
	}
	if !o.SaveResult && !o.AppendResult && !o.PlotTimeline {
		return f
	}
	f.name = report.ResultFileName(report.FileNameInput{
		Label: o.Label, Backend: sc.Target.Backend, RequestRate: float64(sc.Load.RequestRate),
		MaxConcurrency: sc.Load.MaxConcurrency, ModelID: modelID, Date: f.date, RampUp: f.ramp,
		ResultFilename: o.ResultFilename, ResultDir: o.ResultDir,
	})
	if sh := shardOf(sc); sh.Count > 1 && o.ResultFilename == "" {
		// The shards of a run may share a directory.
		f.name = strings.TrimSuffix(f.name, ".json") + fmt.Sprintf("-shard%dof%d.json", sh.Index, sh.Count)
	}
	if !o.SaveResult && !o.AppendResult {
		return f
	}
	f.result = f.name
	if o.Records && argv.extras() {
		f.records = recordsPath(f.result)
	}
	return f
}

// createRecords creates the run's records file at path with create
// (record.CreateFile or record.CreateNewFile), with its header: this host,
// its shard (0/1 for a run on one client), the hash of the whole plan
// (Scenario.PlanHash: the scenario's own, for a run that is not split) and
// the scenario's (redacted) text, and this vbench's
// version; the run fills in its start. An error from create is wrapped, so
// fs.ErrExist still matches.
func createRecords(sc *scenario.Scenario, path string, create func(string, record.Header) (*record.FileSink, error)) (*record.FileSink, error) {
	host, _ := os.Hostname()
	text, err := json.Marshal(sc.Redacted())
	if err != nil {
		return nil, fmt.Errorf("writing the records: %w", err)
	}
	f, err := create(path, record.Header{Host: host, Shard: shardOf(sc).String(), ScenarioHash: sc.PlanHash(), Version: version.Version, Scenario: text})
	if err != nil {
		return nil, fmt.Errorf("writing the records: %w", err)
	}
	return f, nil
}

// writeReports prints the failure lines and the result block, then writes
// the result JSON when the scenario asks (see writeResult; fresh says no
// file may be replaced): without the records file's name when recErr says
// not every record reached it. Errors (the console's, the records', the
// result's) are returned together after whatever could be written. planned is the number of requests the run was to send;
// profileStop is the outcome of stopping the server's profiler, whose
// lines follow the block.
func writeReports(sc *scenario.Scenario, tgt *target, tokName string, sum *metrics.Summary, res *run.Result, rampEvents []report.RPSChangeEvent, files runFiles, fresh bool, recErr error, profileStop report.Profiler, env Env, out *Outcome) error {
	obs := env.observer()
	// A console that cannot be written (a closed pipe, a full disk) still
	// leaves the result file: its error is returned after it.
	consoleErr := obs.Result(report.ConsoleInput{
		Summary:        sum,
		MaxConcurrency: sc.Load.MaxConcurrency,
		RequestRate:    float64(sc.Load.RequestRate),
		Probe:          out.Probe,
		SpecDecode:     out.SpecDecode,
		Diffusion:      out.Diffusion,
		ProfileStop:    profileStop,
	})
	o := sc.Output
	path, date, ramp := files.result, files.date, files.ramp
	writePlots(sc, path, files.name, sum, out, env)
	if path == "" {
		return consoleErr
	}
	info := &vbenchInfo{Version: version.Version, ScenarioHash: sc.Hash(), Scenario: sc.Redacted(), Experiment: out.experiment,
		ClientHealth: newClientHealth(out.Health), SteadyState: steadyJSON(sc, sum.SteadyState), PrefixCache: prefixCacheJSON(out.PrefixCache),
		Interrupted: out.Interrupted, NotSent: out.NotSent, TokenAccounting: tokenAccountingJSON(out.TokenAccounting),
		PeakOverlappingRequests: sum.PeakOverlappingRequests, Reasoning: reasoningJSON(sum.Reasoning), Conversations: out.Conversations}
	info.ServerTimeline = serverTimelineJSON(sc.ScrapeInterval(env.Argv != nil), out.ServerSamples)
	if e := out.StoppedEarly; e != nil {
		info.StoppedEarly = &stoppedEarlyJSON{Reason: e.Reason, AfterS: e.AfterS}
	}
	// The result names its records file only when every record reached
	// it; otherwise the result is written without the name, and the
	// records' error returned after it.
	if files.records != "" && recErr == nil {
		out.RecordsPath = files.records
		info.Records = filepath.Base(out.RecordsPath)
	}
	data, err := report.MarshalResult(report.ResultInput{
		Date: date, Backend: sc.Target.Backend, Label: o.Label, ModelID: tgt.modelID, TokenizerID: tokName,
		NumPrompts: numPrompts(sc, res), Metadata: metadata(o.Metadata),
		RequestRate: float64(sc.Load.RequestRate), Burstiness: float64(sc.Load.Burstiness),
		MaxConcurrency: sc.Load.MaxConcurrency, RampUp: ramp, Summary: sum, SaveDetailed: o.SaveDetailed,
		Probe:           out.Probe,
		RPSChangeEvents: rampEvents,
		SpecDecode:      out.SpecDecode,
		Diffusion:       out.Diffusion,
		VBench:          env.Argv.vbenchObject(info),
	})
	if err != nil {
		return errors.Join(consoleErr, fmt.Errorf("building the result JSON: %w", err), recErr)
	}
	path, err = writeResult(files, data, fresh, o.AppendResult, obs.Diagnostic)
	if err != nil {
		return errors.Join(consoleErr, err, recErr)
	}
	out.ResultPath, out.ResultJSON = path, data
	obs.Saved(path)
	if !o.AppendResult {
		br, err := writeLLMD(sc, path, data, out.experiment, res.Start)
		if err != nil {
			return errors.Join(consoleErr, err, recErr)
		}
		if br != "" {
			obs.Saved(br)
		}
	}
	return errors.Join(consoleErr, recErr)
}

// recordsPath is the JSONL file next to a result: x.json → x.records.jsonl.
func recordsPath(result string) string {
	return strings.TrimSuffix(result, filepath.Ext(result)) + ".records.jsonl"
}

// metadata is the scenario's metadata in its own order (file or
// command-line order), which vLLM keeps in the result JSON.
func metadata(m scenario.Metadata) []report.Metadata {
	out := make([]report.Metadata, len(m))
	for i, kv := range m {
		out[i] = report.Metadata{Key: kv.Key, Value: kv.Value}
	}
	return out
}

// RecordsPath is the per-request records file that goes with the result
// file result (x.json → x.records.jsonl).
func RecordsPath(result string) string { return recordsPath(result) }

// writePlots writes the run's plots next to its result, saved as result
// ("" when it is not) or computed as name, before the result, in vLLM's
// order: the timeline, then the dataset statistics figure, which follows
// the timeline's name when that one was numbered so as not to replace an
// earlier page.
func writePlots(sc *scenario.Scenario, result, name string, sum *metrics.Summary, out *Outcome, env Env) {
	plotted := writeTimeline(sc, cmp.Or(result, name), result != "", out, env)
	if sc.Output.PlotDatasetStats {
		writeDatasetStats(cmp.Or(plotted, result, name), sum, env.observer())
	}
}

// numPrompts is the result's num_prompts: load.num_prompts, or for a
// conversations run (which does not use it) the turns it planned.
func numPrompts(sc *scenario.Scenario, res *run.Result) int {
	if sc.Dataset.Name == "conversations" {
		return res.Planned
	}
	return sc.Load.NumPrompts
}
