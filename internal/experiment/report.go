package experiment

import (
	"fmt"
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
	// Experiment places the run in its experiment (sweep, repeat, compare).
	Experiment *RunInfo `json:"experiment,omitempty"`
	// ClientHealth is the client's send lag and CPU use during the run.
	ClientHealth *clientHealth `json:"client_health,omitempty"`
	// Interrupted marks a run cancelled before it finished, so --resume
	// must not take it as done.
	Interrupted bool `json:"interrupted,omitempty"`
	// NotSent is the number of requests an interrupted run never sent:
	// vLLM's "completed" and "failed" count only the requests that ran.
	NotSent int `json:"not_sent,omitempty"`
}

// writeReports prints the failure lines and the result block, then writes
// the result JSON and the per-request JSONL when the scenario asks.
// planned is the number of requests the run was to send.
func writeReports(sc *scenario.Scenario, tgt *target, tokName string, sum *metrics.Summary, res *run.Result, planned int, end time.Time, env Env, out *Outcome) error {
	if err := report.WriteMetricsNotes(env.Stdout, sum); err != nil {
		return err
	}
	if err := report.WriteConsole(env.Stdout, report.ConsoleInput{
		Summary:        sum,
		MaxConcurrency: sc.Load.MaxConcurrency,
		RequestRate:    float64(sc.Load.RequestRate),
	}); err != nil {
		return err
	}
	o := sc.Output
	if !o.SaveResult && !o.AppendResult {
		return nil
	}
	date := end.Format("20060102-150405")
	var ramp *report.RampUp
	if r := sc.Load.RampUp; r != nil {
		ramp = &report.RampUp{Strategy: r.Strategy, StartRPS: r.StartRPS, EndRPS: r.EndRPS}
	}
	path := report.ResultFileName(report.FileNameInput{
		Label: o.Label, Backend: sc.Target.Backend, RequestRate: float64(sc.Load.RequestRate),
		MaxConcurrency: sc.Load.MaxConcurrency, ModelID: tgt.modelID, Date: date, RampUp: ramp,
		ResultFilename: o.ResultFilename, ResultDir: o.ResultDir,
	})
	info := &vbenchInfo{Version: version.Version, ScenarioHash: sc.Hash(), Scenario: sc.Redacted(), Experiment: out.experiment,
		ClientHealth: newClientHealth(out.Health), Interrupted: out.Interrupted, NotSent: out.NotSent}
	// A computed name, or an explicit one that was free before the run
	// (checkOutput) and may not be replaced, is never overwritten; an
	// experiment's planned names were checked by checkPlanOutput.
	fresh := !o.AppendResult && (o.ResultFilename == "" || (!o.Overwrite && out.experiment == nil))
	spec := resultWrite{Path: path, Fresh: fresh, Append: o.AppendResult, Stderr: env.Stderr}
	if o.Records && env.Argv.extras() {
		spec.Records = res.Records
		if spec.Records == nil {
			spec.Records = []*record.Record{}
		}
	}
	path, recs, err := writeResultFiles(spec, func(recordsName string) ([]byte, error) {
		info.Records = recordsName
		data, err := report.MarshalResult(report.ResultInput{
			Date: date, Backend: sc.Target.Backend, Label: o.Label, ModelID: tgt.modelID, TokenizerID: tokName,
			NumPrompts: sc.Load.NumPrompts, Metadata: metadata(o.Metadata),
			RequestRate: float64(sc.Load.RequestRate), Burstiness: float64(sc.Load.Burstiness),
			MaxConcurrency: sc.Load.MaxConcurrency, RampUp: ramp, Summary: sum, SaveDetailed: o.SaveDetailed,
			RPSChangeEvents: rpsChangeEvents(sc.Load.RampUp, scheduleSpec(sc), res, planned),
			VBench:          env.Argv.vbenchObject(info),
		})
		if err != nil {
			return nil, fmt.Errorf("building the result JSON: %w", err)
		}
		return data, nil
	})
	out.RecordsPath = recs
	if err != nil {
		return err
	}
	out.ResultPath = path
	fmt.Fprintf(env.Stderr, "Result written to %s\n", path)
	return nil
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
