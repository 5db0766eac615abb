package scenario

import (
	"encoding/json"
	"errors"
	"testing"
)

const base = `target: {backend: "vllm", headers: {"X-Key": "k"}}
dataset: random: {input_len: 64, output_len: 8}
load: {num_prompts: 100, max_concurrency: 4}
`

func TestWith(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("base.cue", base))
	tests := []struct {
		name      string
		overrides []Override
		check     func(*Scenario) bool
		wantErr   string
	}{
		{"one field", []Override{{"load.max_concurrency", json.RawMessage("64")}},
			func(r *Scenario) bool { return *r.Load.MaxConcurrency == 64 && r.Load.NumPrompts == 100 }, ""},
		{"zip point", []Override{{"load.num_prompts", json.RawMessage("5")}, {"dataset.random.input_len", json.RawMessage("128")}},
			func(r *Scenario) bool {
				return r.Load.NumPrompts == 5 && dsNum(r, "random.input_len") == 128 && dsNum(r, "random.output_len") == 8
			}, ""},
		{"struct value", []Override{{"dataset", json.RawMessage(`{"sonnet": {"path": "s.txt"}}`)}},
			func(r *Scenario) bool { return r.Dataset.Name == "sonnet" && dsNum(r, "sonnet.input_len") == 550 }, ""},
		{"request rate inf", []Override{{"load.request_rate", json.RawMessage(`"inf"`)}},
			func(r *Scenario) bool { return r.Load.RequestRate.IsInf() }, ""},
		{"wrong type", []Override{{"load.max_concurrency", json.RawMessage(`"many"`)}}, nil,
			`load.max_concurrency="many": load.max_concurrency: conflicting values "many" and int (mismatched types string and int)`},
		{"misspelt path", []Override{{"load.max_concurency", json.RawMessage("1")}}, nil,
			"load.max_concurency=1: load.max_concurency: field not allowed (did you mean max_concurrency?)"},
		{"invalid json", []Override{{"load.max_concurrency", json.RawMessage("{")}}, nil,
			"load.max_concurrency={: invalid JSON value: {"},
		{"breaks a cross-field rule", []Override{{"sampling.temperature", json.RawMessage("0")}, {"target.backend", json.RawMessage(`"vllm-pooling"`)}}, nil,
			`sampling.temperature=0: sampling.temperature: sampling.temperature needs backend vllm, openai or openai-chat, got "vllm-pooling"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := s.With(tt.overrides...)
			if tt.wantErr != "" {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is not an *Error", err)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("error:\n%s\nwant:\n%s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(r) {
				t.Errorf("unexpected scenario %s", r.Canonical())
			}
			if s.Load.NumPrompts != 100 || *s.Load.MaxConcurrency != 4 || s.Dataset.Name != "random" {
				t.Errorf("With changed the receiver: %s", s.Canonical())
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	s := mustLoad(t, Options{}, src("base.cue", base))
	tests := []struct {
		name    string
		partial string
		check   func(*Scenario) bool
		wantErr string
	}{
		{"empty", `{}`, func(r *Scenario) bool { return r.Hash() == s.Hash() }, ""},
		{"leaf", `{"target": {"base_url": "http://new:8000"}}`,
			func(r *Scenario) bool { return r.Target.BaseURL == "http://new:8000" && r.Target.Backend == "vllm" }, ""},
		{"map keys merge", `{"target": {"headers": {"Authorization": "Bearer t"}}}`,
			func(r *Scenario) bool { return len(r.Target.Headers) == 2 }, ""},
		{"same dataset kind merges", `{"dataset": {"random": {"input_len": 1}}}`,
			func(r *Scenario) bool { return dsNum(r, "random.input_len") == 1 && dsNum(r, "random.output_len") == 8 }, ""},
		{"other dataset kind replaces", `{"dataset": {"sharegpt": {"path": "sg.json"}}}`,
			func(r *Scenario) bool { return r.Dataset.Name == "sharegpt" }, ""},
		{"list replaces", `{"metrics": {"percentile_metrics": ["e2el"]}}`,
			func(r *Scenario) bool { return len(r.Metrics.PercentileMetrics) == 1 }, ""},
		{"empty object adds a struct", `{"target": {"simulator": {}}}`,
			func(r *Scenario) bool { return r.Target.Simulator != nil && r.Target.Simulator.TTFTMs == 50 }, ""},
		{"misspelt field", `{"load": {"num_promts": 1}}`, nil, "variant load.num_promts: load.num_promts: field not allowed (did you mean num_prompts?)"},
		{"not an object", `[1]`, nil, "variant: invalid partial scenario at \"\": json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := s.Merge(json.RawMessage(tt.partial))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error:\n%v\nwant:\n%s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(r) {
				t.Errorf("unexpected scenario %s", r.Canonical())
			}
		})
	}
}

func TestExperimentErrorsAtLoad(t *testing.T) {
	t.Parallel()
	const file = `sweep: axes: {
	"load.max_concurrency": [1, 0]
	"dataset.random.input_len": [128, "x"]
}
compare: variants: {
	old: target: base_url: "http://old:8000"
	new: dataset: sharegpt: {}
	typo: load: num_promts: 4
}
`
	want := "x.cue:2:30: sweep.axes.\"load.max_concurrency\"[1]: load.max_concurrency: invalid value 0 (out of bound >0)\n" +
		"x.cue:3:36: sweep.axes.\"dataset.random.input_len\"[1]: dataset.random.input_len: conflicting values \"x\" and int (mismatched types string and int)\n" +
		"x.cue:7:2: compare.variants.new: dataset.sharegpt.path: field is required but not present\n" +
		"x.cue:8:2: compare.variants.typo: load.num_promts: field not allowed (did you mean num_prompts?)"
	_, err := LoadBytes("x.cue", []byte(file), Options{})
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
