package dataset

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// loadDataset loads a scenario from CUE source and returns its dataset.
func loadDataset(t *testing.T, src string) scenario.Dataset {
	t.Helper()
	s, err := scenario.LoadBytes("d.cue", []byte(src), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Dataset
}

// TestScenarioSections checks that each kind's section of a scenario
// decodes into the kind's spec type with the schema's defaults, and that a
// kind the schema knows but no file here implements is kept as its JSON.
func TestScenarioSections(t *testing.T) {
	t.Parallel()
	files := FileOptions{Path: "data"}
	tests := []struct {
		kind string
		src  string
		want any
	}{
		{"random", `dataset: random: {}`, &RandomSpec{InputLen: 1024, OutputLen: 128, BatchSize: 1}},
		{"sharegpt", `dataset: sharegpt: path: "data"`, &ShareGPTSpec{FileOptions: files}},
		{"sonnet", `dataset: sonnet: path: "data"`, &SonnetSpec{Path: "data", InputLen: 550, OutputLen: 150, PrefixLen: 200}},
		{"burstgpt", `dataset: burstgpt: path: "data"`, &BurstGPTSpec{Path: "data"}},
		{"custom", `dataset: custom: path: "data"`, &CustomSpec{FileOptions: files, OutputLen: 256}},
		{"prefix_repetition", `dataset: prefix_repetition: {}`, &PrefixRepetitionSpec{PrefixLen: 256, SuffixLen: 256, NumPrefixes: 10, OutputLen: 128}},
		{"hf", `dataset: hf: path: "data"`, &HFSpec{FileOptions: files, BlazeditMaxDistance: 1, ASRMaxAudioLenSec: scenario.Inf}},
		{"spec_bench", `dataset: spec_bench: path: "data"`, &SpecBenchSpec{FileOptions: files, OutputLen: 256}},
		{"speed_bench", `dataset: speed_bench: path: "data"`, &SpeedBenchSpec{FileOptions: files, Subset: "qualitative", OutputLen: 4096}},
		{"timed_trace", `dataset: timed_trace: path: "data"`, &TimedTraceSpec{Path: "data", ChunkHashSize: 16, SecMultiplier: 1,
			LabelTimestamp: "timestamp", LabelInputLength: "input_length", LabelOutputLength: "output_length", LabelHashIDs: "hash_ids"}},
		{"random_mm", "target: {backend: \"openai-chat\", endpoint: \"/v1/chat/completions\"}\ndataset: random_mm: {}",
			&RandomMMSpec{RandomSpec: RandomSpec{InputLen: 1024, OutputLen: 128, BatchSize: 1}, BaseItemsPerRequest: 1,
				LimitMMPerPrompt: MMLimits{{"image", 255}, {"video", 1}},
				BucketConfig:     MMBuckets{{256, 256, 1, 0.5}, {720, 1280, 1, 0.5}, {720, 1280, 16, 0}}}},
		{"custom_image", "target: {backend: \"openai-chat\", endpoint: \"/v1/chat/completions\"}\ndataset: custom_image: path: \"data\"",
			&CustomSpec{FileOptions: files, OutputLen: 256}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			t.Parallel()
			got := loadDataset(t, tt.src)
			if got.Name != tt.kind {
				t.Errorf("Name = %q, want %q", got.Name, tt.kind)
			}
			if raw, ok := tt.want.(json.RawMessage); ok {
				var g, w any
				gotRaw, _ := got.Spec.(json.RawMessage)
				if json.Unmarshal(gotRaw, &g) != nil || json.Unmarshal(raw, &w) != nil || !reflect.DeepEqual(g, w) {
					t.Errorf("Spec = %T %s, want the raw section %s", got.Spec, gotRaw, raw)
				}
				return
			}
			if !reflect.DeepEqual(got.Spec, tt.want) {
				t.Errorf("Spec = %+v, want %+v", got.Spec, tt.want)
			}
			if _, ok := Lookup(tt.kind); !ok {
				t.Errorf("kind %s decodes but is not registered", tt.kind)
			}
		})
	}
}

func TestRangeRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want RangeRatio
	}{
		{"one ratio", `dataset: random: range_ratio: 0.25`, RangeRatio{0.25, 0.25}},
		{"separate", `dataset: random: range_ratio: {input: 0.1, output: 0.5}`, RangeRatio{0.1, 0.5}},
		{"integer zero", `dataset: random: range_ratio: 0`, RangeRatio{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := loadDataset(t, tt.src).Spec.(*RandomSpec).RangeRatio; got != tt.want {
				t.Errorf("range ratio = %+v, want %+v", got, tt.want)
			}
		})
	}
}
