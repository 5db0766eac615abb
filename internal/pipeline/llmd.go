package pipeline

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/llmd"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/version"
)

// llmdPath is the Benchmark Report next to a result: x.json →
// x.benchmark_report.json.
func llmdPath(result string) string {
	return strings.TrimSuffix(result, filepath.Ext(result)) + ".benchmark_report.json"
}

// writeLLMD writes the run's llm-d Benchmark Report next to its result
// when output.formats asks for "llm-d", and returns its path ("" when not
// asked for).
func writeLLMD(sc *scenario.Scenario, resultPath string, result []byte, experiment json.RawMessage, start time.Time) (string, error) {
	if !slices.Contains(sc.Output.Formats, "llm-d") {
		return "", nil
	}
	redacted, err := json.Marshal(sc.Redacted())
	if err != nil {
		return "", err
	}
	in := llmd.Input{Result: result, Scenario: redacted, ScenarioHash: sc.Hash(), Name: sc.Name, Label: sc.Output.Label,
		ToolVersion: version.Version, Source: "sampled", Start: start}
	var exp struct{ Hash string }
	if len(experiment) > 0 && json.Unmarshal(experiment, &exp) == nil {
		in.ExperimentHash = exp.Hash
	}
	if strings.HasPrefix(sc.Dataset.Name, "random") {
		in.Source = "random"
	}
	if sc.Dataset.Name == "random" {
		var spec struct {
			InputLen   int `json:"input_len"`
			OutputLen  int `json:"output_len"`
			PrefixLen  int `json:"prefix_len"`
			RangeRatio struct {
				Input, Output float64
			} `json:"range_ratio"`
		}
		if b, err := json.Marshal(sc.Dataset.Spec); err == nil && json.Unmarshal(b, &spec) == nil {
			if spec.RangeRatio.Input == 0 {
				in.FixedInputLen = spec.PrefixLen + spec.InputLen
			}
			if spec.RangeRatio.Output == 0 && sc.Sampling.IgnoreEOS {
				in.FixedOutputLen = spec.OutputLen
			}
		}
	}
	r, err := llmd.Build(in)
	if err != nil {
		return "", fmt.Errorf("the llm-d Benchmark Report: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	if err := llmd.Validate(data); err != nil {
		return "", fmt.Errorf("internal error: the llm-d Benchmark Report does not match its schema: %w", err)
	}
	path := llmdPath(resultPath)
	if err := report.WriteResultFile(path, append(data, '\n'), false); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}
