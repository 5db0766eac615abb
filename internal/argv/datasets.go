package argv

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/vbench/vbench/internal/scenario"
)

// argvDataset maps one dataset kind that vbench serve implements between
// its vllm bench serve flags and the scenario. Parse and Format dispatch on
// the dataset kind only through argvDatasets; supporting a kind on the
// command line means adding its entry (and its flags to flags).
type argvDataset struct {
	// name is the --dataset-name value, as scenario.Dataset.Kind spells it.
	name string
	// dataset returns the scenario's dataset for the parsed flags,
	// including what --input-len and --output-len override.
	dataset func(n *namespace) scenario.Dataset
	// inputLenPath and outputLenPath are the scenario fields that
	// --input-len and --output-len set for this kind ("" for none), as
	// vLLM maps those general flags to the kind's own.
	inputLenPath, outputLenPath string
	// formattable reports why a dataset of this kind has no vllm bench
	// serve form (nil: it has one); nil means always formattable.
	formattable func(d scenario.Dataset) error
	// values are the kind's own flags, each with its values for a dataset
	// of this kind, as flagValues returns them. For a dataset of another
	// kind these flags have no value.
	values map[string]func(d scenario.Dataset) []string
}

// argvDatasets are the dataset kinds vbench serve implements.
var argvDatasets = []*argvDataset{
	{
		name: "random",
		dataset: func(n *namespace) scenario.Dataset {
			r := &scenario.RandomDataset{InputLen: int(n.randomInputLen), OutputLen: int(n.randomOutputLen),
				RangeRatio: n.rangeRatio, PrefixLen: int(n.randomPrefixLen), BatchSize: 1}
			if n.inputLen != nil {
				r.InputLen = int(*n.inputLen)
			}
			if n.outputLen != nil {
				r.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Random: r}
		},
		inputLenPath:  "dataset.random.input_len",
		outputLenPath: "dataset.random.output_len",
		formattable: func(d scenario.Dataset) error {
			if d.Random.BatchSize != 1 {
				return unsupportedFlagError("dataset.random.batch_size", "--random-batch-size")
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--random-input-len":  func(d scenario.Dataset) []string { return []string{strconv.Itoa(d.Random.InputLen)} },
			"--random-output-len": func(d scenario.Dataset) []string { return []string{strconv.Itoa(d.Random.OutputLen)} },
			"--random-range-ratio": func(d scenario.Dataset) []string {
				r := d.Random.RangeRatio
				if r.Input == r.Output {
					return []string{formatFloat(r.Input)}
				}
				return []string{fmt.Sprintf(`{"input": %s, "output": %s}`, formatFloat(r.Input), formatFloat(r.Output))}
			},
			"--random-prefix-len": func(d scenario.Dataset) []string { return []string{strconv.Itoa(d.Random.PrefixLen)} },
		},
	},
	{
		name: "custom",
		dataset: func(n *namespace) scenario.Dataset {
			c := &scenario.CustomDataset{
				FileOptions: scenario.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				OutputLen:   int(n.customOutputLen), SkipChatTemplate: n.skipChatTemplate,
			}
			if n.outputLen != nil {
				c.OutputLen = int(*n.outputLen)
			}
			if n.chatTemplateKwargs != nil {
				c.ChatTemplateKwargs, _ = json.Marshal(n.chatTemplateKwargs)
			}
			return scenario.Dataset{Custom: c}
		},
		outputLenPath: "dataset.custom.output_len",
		formattable: func(d scenario.Dataset) error {
			switch {
			case d.Custom.EnableMultimodalChat:
				return unsupportedFlagError("dataset.custom.enable_multimodal_chat", "--enable-multimodal-chat")
			case d.Custom.EnsureClientSideData:
				return unsupportedFlagError("dataset.custom.ensure_client_side_data", "--custom-ensure-client-side-data")
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":       func(d scenario.Dataset) []string { return []string{d.Custom.Path} },
			"--no-oversample":      func(d scenario.Dataset) []string { return storeTrue(d.Custom.NoOversample) },
			"--disable-shuffle":    func(d scenario.Dataset) []string { return storeTrue(d.Custom.DisableShuffle) },
			"--skip-chat-template": func(d scenario.Dataset) []string { return storeTrue(d.Custom.SkipChatTemplate) },
			"--custom-output-len":  func(d scenario.Dataset) []string { return nonDefault(d.Custom.OutputLen, 256) },
			"--chat-template-kwargs": func(d scenario.Dataset) []string {
				if len(d.Custom.ChatTemplateKwargs) == 0 || string(d.Custom.ChatTemplateKwargs) == "null" {
					return nil
				}
				var v any
				if err := json.Unmarshal(d.Custom.ChatTemplateKwargs, &v); err != nil {
					return []string{string(d.Custom.ChatTemplateKwargs)}
				}
				j, err := compactJSON(v)
				if err != nil {
					return []string{string(d.Custom.ChatTemplateKwargs)}
				}
				return []string{j}
			},
		},
	},
	{
		name: "sonnet",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{Sonnet: &scenario.SonnetDataset{Path: n.datasetPath, InputLen: int(n.sonnetInputLen),
				OutputLen: int(n.sonnetOutputLen), PrefixLen: int(n.sonnetPrefixLen)}}
		},
		formattable: func(d scenario.Dataset) error {
			if d.Sonnet.Path == "" {
				return &Error{Flag: "dataset.sonnet.path", Msg: "vllm bench serve needs --dataset-path for sonnet (vbench embeds vLLM's benchmarks/sonnet.txt; give its path)"}
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":      func(d scenario.Dataset) []string { return []string{d.Sonnet.Path} },
			"--sonnet-input-len":  func(d scenario.Dataset) []string { return nonDefault(d.Sonnet.InputLen, 550) },
			"--sonnet-output-len": func(d scenario.Dataset) []string { return nonDefault(d.Sonnet.OutputLen, 150) },
			"--sonnet-prefix-len": func(d scenario.Dataset) []string { return nonDefault(d.Sonnet.PrefixLen, 200) },
		},
	},
	{
		name: "sharegpt",
		dataset: func(n *namespace) scenario.Dataset {
			d := &scenario.ShareGPTDataset{
				FileOptions:          scenario.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				EnableMultimodalChat: n.multimodalChat,
			}
			d.OutputLen = optionalLen(n.sharegptOutputLen, n.outputLen)
			return scenario.Dataset{ShareGPT: d}
		},
		outputLenPath: "dataset.sharegpt.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":           func(d scenario.Dataset) []string { return []string{d.ShareGPT.Path} },
			"--no-oversample":          func(d scenario.Dataset) []string { return storeTrue(d.ShareGPT.NoOversample) },
			"--disable-shuffle":        func(d scenario.Dataset) []string { return storeTrue(d.ShareGPT.DisableShuffle) },
			"--enable-multimodal-chat": func(d scenario.Dataset) []string { return storeTrue(d.ShareGPT.EnableMultimodalChat) },
			"--sharegpt-output-len": func(d scenario.Dataset) []string {
				if d.ShareGPT.OutputLen == nil {
					return nil
				}
				return []string{strconv.Itoa(*d.ShareGPT.OutputLen)}
			},
		},
	},
	{
		name: "spec_bench",
		dataset: func(n *namespace) scenario.Dataset {
			d := &scenario.SpecBenchDataset{
				FileOptions: scenario.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				OutputLen:   int(n.specBenchOutputLen), Category: n.specBenchCategory,
			}
			if n.outputLen != nil {
				d.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{SpecBench: d}
		},
		outputLenPath: "dataset.spec_bench.output_len",
		formattable: func(d scenario.Dataset) error {
			if d.SpecBench.SkipChatTemplate {
				return &Error{Flag: "dataset.spec_bench.skip_chat_template", Msg: "has no vllm bench serve form: vllm bench serve applies the chat template to spec_bench prompts whatever --skip-chat-template says"}
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":          func(d scenario.Dataset) []string { return []string{d.SpecBench.Path} },
			"--no-oversample":         func(d scenario.Dataset) []string { return storeTrue(d.SpecBench.NoOversample) },
			"--disable-shuffle":       func(d scenario.Dataset) []string { return storeTrue(d.SpecBench.DisableShuffle) },
			"--spec-bench-output-len": func(d scenario.Dataset) []string { return nonDefault(d.SpecBench.OutputLen, 256) },
			"--spec-bench-category": func(d scenario.Dataset) []string {
				if d.SpecBench.Category == "" {
					return nil
				}
				return []string{d.SpecBench.Category}
			},
		},
	},
	{
		name: "hf",
		dataset: func(n *namespace) scenario.Dataset {
			d := &scenario.HFDataset{
				FileOptions: scenario.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				Subset:      n.hfSubset, Split: n.hfSplit, Name: n.hfName, NoStream: n.noStream,
				BlazeditMaxDistance: 1, ASRMaxAudioLenSec: scenario.Inf,
			}
			d.OutputLen = optionalLen(n.hfOutputLen, n.outputLen)
			return scenario.Dataset{HF: d}
		},
		outputLenPath: "dataset.hf.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":    func(d scenario.Dataset) []string { return []string{d.HF.Path} },
			"--no-oversample":   func(d scenario.Dataset) []string { return storeTrue(d.HF.NoOversample) },
			"--disable-shuffle": func(d scenario.Dataset) []string { return storeTrue(d.HF.DisableShuffle) },
			"--hf-subset":       func(d scenario.Dataset) []string { return nonEmpty(d.HF.Subset) },
			"--hf-split":        func(d scenario.Dataset) []string { return nonEmpty(d.HF.Split) },
			"--hf-name":         func(d scenario.Dataset) []string { return nonEmpty(d.HF.Name) },
			"--no-stream":       func(d scenario.Dataset) []string { return storeTrue(d.HF.NoStream) },
			"--hf-output-len": func(d scenario.Dataset) []string {
				if d.HF.OutputLen == nil {
					return nil
				}
				return []string{strconv.Itoa(*d.HF.OutputLen)}
			},
		},
	},
	{
		name: "burstgpt",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{BurstGPT: &scenario.BurstGPTDataset{Path: n.datasetPath}}
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path": func(d scenario.Dataset) []string { return []string{d.BurstGPT.Path} },
		},
	},
	{
		name: "prefix_repetition",
		dataset: func(n *namespace) scenario.Dataset {
			d := &scenario.PrefixRepetitionDataset{PrefixLen: int(n.prefixRepPrefixLen), SuffixLen: int(n.prefixRepSuffixLen),
				NumPrefixes: int(n.prefixRepNumPrefixes), OutputLen: int(n.prefixRepOutputLen), DisableShuffle: n.disableShuffle}
			if n.outputLen != nil {
				d.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{PrefixRepetition: d}
		},
		outputLenPath: "dataset.prefix_repetition.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--prefix-repetition-prefix-len":   func(d scenario.Dataset) []string { return nonDefault(d.PrefixRepetition.PrefixLen, 256) },
			"--prefix-repetition-suffix-len":   func(d scenario.Dataset) []string { return nonDefault(d.PrefixRepetition.SuffixLen, 256) },
			"--prefix-repetition-num-prefixes": func(d scenario.Dataset) []string { return nonDefault(d.PrefixRepetition.NumPrefixes, 10) },
			"--prefix-repetition-output-len":   func(d scenario.Dataset) []string { return nonDefault(d.PrefixRepetition.OutputLen, 128) },
			"--disable-shuffle":                func(d scenario.Dataset) []string { return storeTrue(d.PrefixRepetition.DisableShuffle) },
		},
	},
}

// nonDefault is the value of an integer flag, nil at vLLM's default def
// (Format leaves it out).
func nonDefault(v, def int) []string {
	if v == def {
		return nil
	}
	return []string{strconv.Itoa(v)}
}

// optionalLen is a kind's optional output length (own, nil when unset)
// as --output-len (general) overrides it, as vLLM's serve does.
func optionalLen(own, general *int64) *int {
	if general != nil {
		own = general
	}
	if own == nil {
		return nil
	}
	v := int(*own)
	return &v
}

// nonEmpty is the value of a string flag, nil when unset ("").
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// storeTrue is the values of a store_true flag: set (empty, non-nil) or
// not (nil).
func storeTrue(b bool) []string {
	if b {
		return []string{}
	}
	return nil
}

// argvDatasetNamed returns the entry of the dataset kind called name, nil
// when vbench serve does not implement it.
func argvDatasetNamed(name string) *argvDataset {
	for _, d := range argvDatasets {
		if d.name == name {
			return d
		}
	}
	return nil
}

// argvDatasetNames returns the names of the implemented kinds, sorted: the
// values --dataset-name supports.
func argvDatasetNames() []string {
	names := make([]string, len(argvDatasets))
	for i, d := range argvDatasets {
		names[i] = d.name
	}
	slices.Sort(names)
	return names
}

// datasetFlagOwners maps each flag that belongs to dataset kinds to those
// kinds' entries: a kind's own flag has one owner, a flag that vLLM shares
// between file-backed kinds (--dataset-path, --no-oversample...) one per
// kind that reads it.
var datasetFlagOwners = func() map[string][]*argvDataset {
	m := map[string][]*argvDataset{}
	for _, d := range argvDatasets {
		for flag := range d.values {
			m[flag] = append(m[flag], d)
		}
	}
	return m
}()

// datasetFlagValues returns the values of flag name for s when the flag
// belongs to dataset kinds (owned): nil unless s's dataset is of one of
// them.
func datasetFlagValues(s *scenario.Scenario, name string) (vals []string, owned bool) {
	owners, ok := datasetFlagOwners[name]
	if !ok {
		return nil, false
	}
	for _, d := range owners {
		if s.Dataset.Kind() == d.name {
			return d.values[name](s.Dataset), true
		}
	}
	return nil, true
}

// unsupportedFlagError is the error of Format for a field whose vllm bench
// serve flag vbench does not implement yet.
func unsupportedFlagError(field, flag string) error {
	return &Error{Flag: field, Msg: fmt.Sprintf("vbench serve does not support %s yet (%s)", flag, unsupported[flag]), Unsupported: true}
}
