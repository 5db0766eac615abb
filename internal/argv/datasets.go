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
	// ownOutputLen is the kind's own output-length flag when --output-len
	// does not set it (vLLM's sonnet and speed_bench), for the warning
	// that --output-len has no effect.
	ownOutputLen string
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
			c.ChatTemplateKwargs = n.kwargsJSON()
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
			"--dataset-path":         func(d scenario.Dataset) []string { return []string{d.Custom.Path} },
			"--no-oversample":        func(d scenario.Dataset) []string { return storeTrue(d.Custom.NoOversample) },
			"--disable-shuffle":      func(d scenario.Dataset) []string { return storeTrue(d.Custom.DisableShuffle) },
			"--skip-chat-template":   func(d scenario.Dataset) []string { return storeTrue(d.Custom.SkipChatTemplate) },
			"--custom-output-len":    func(d scenario.Dataset) []string { return nonDefault(d.Custom.OutputLen, 256) },
			"--chat-template-kwargs": func(d scenario.Dataset) []string { return kwargsValues(d.Custom.ChatTemplateKwargs) },
		},
	},
	{
		name: "sonnet",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{Sonnet: &scenario.SonnetDataset{Path: n.datasetPath, InputLen: int(n.sonnetInputLen),
				OutputLen: int(n.sonnetOutputLen), PrefixLen: int(n.sonnetPrefixLen)}}
		},
		ownOutputLen: "--sonnet-output-len",
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
		// vLLM's serve gives speed_bench its own output length:
		// --output-len does not override it (no outputLenPath).
		name: "speed_bench",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{SpeedBench: &scenario.SpeedBenchDataset{
				FileOptions: scenario.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				Subset:      n.speedBenchSubset, OutputLen: int(n.speedBenchOutputLen), Category: n.speedBenchCategory,
				SkipChatTemplate: n.skipChatTemplate, ChatTemplateKwargs: n.kwargsJSON(),
			}}
		},
		ownOutputLen: "--speed-bench-output-len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":       func(d scenario.Dataset) []string { return []string{d.SpeedBench.Path} },
			"--no-oversample":      func(d scenario.Dataset) []string { return storeTrue(d.SpeedBench.NoOversample) },
			"--disable-shuffle":    func(d scenario.Dataset) []string { return storeTrue(d.SpeedBench.DisableShuffle) },
			"--skip-chat-template": func(d scenario.Dataset) []string { return storeTrue(d.SpeedBench.SkipChatTemplate) },
			"--speed-bench-dataset-subset": func(d scenario.Dataset) []string {
				if d.SpeedBench.Subset == "qualitative" {
					return nil
				}
				return []string{d.SpeedBench.Subset}
			},
			"--speed-bench-output-len": func(d scenario.Dataset) []string { return nonDefault(d.SpeedBench.OutputLen, 4096) },
			"--speed-bench-category": func(d scenario.Dataset) []string {
				if d.SpeedBench.Category == "" {
					return nil
				}
				return []string{d.SpeedBench.Category}
			},
			"--chat-template-kwargs": func(d scenario.Dataset) []string { return kwargsValues(d.SpeedBench.ChatTemplateKwargs) },
		},
	},
	{
		name: "hf",
		dataset: func(n *namespace) scenario.Dataset {
			d := &scenario.HFDataset{
				FileOptions: scenario.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				Subset:      n.hfSubset, Split: n.hfSplit, Name: n.hfName, NoStream: n.noStream,
				SkipChatTemplate: n.skipChatTemplate, EnableMultimodalChat: n.multimodalChat,
				ASRMaxAudioLenSec: scenario.Inf,
			}
			setBlazedit(n, d)
			d.OutputLen = optionalLen(n.hfOutputLen, n.outputLen)
			return scenario.Dataset{HF: d}
		},
		outputLenPath: "dataset.hf.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":           func(d scenario.Dataset) []string { return []string{d.HF.Path} },
			"--no-oversample":          func(d scenario.Dataset) []string { return storeTrue(d.HF.NoOversample) },
			"--disable-shuffle":        func(d scenario.Dataset) []string { return storeTrue(d.HF.DisableShuffle) },
			"--hf-subset":              func(d scenario.Dataset) []string { return nonEmpty(d.HF.Subset) },
			"--hf-split":               func(d scenario.Dataset) []string { return nonEmpty(d.HF.Split) },
			"--hf-name":                func(d scenario.Dataset) []string { return nonEmpty(d.HF.Name) },
			"--no-stream":              func(d scenario.Dataset) []string { return storeTrue(d.HF.NoStream) },
			"--skip-chat-template":     func(d scenario.Dataset) []string { return storeTrue(d.HF.SkipChatTemplate) },
			"--enable-multimodal-chat": func(d scenario.Dataset) []string { return storeTrue(d.HF.EnableMultimodalChat) },
			"--blazedit-min-distance":  blazeditValues["--blazedit-min-distance"],
			"--blazedit-max-distance":  blazeditValues["--blazedit-max-distance"],
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
	{
		name: "timed_trace",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{TimedTrace: &scenario.TimedTraceDataset{Path: n.datasetPath,
				ChunkHashSize: int(n.traceChunkHashSize), SecMultiplier: n.traceSecMultiplier,
				LabelTimestamp: n.traceLabelTimestamp, LabelInputLength: n.traceLabelInput,
				LabelOutputLength: n.traceLabelOutput, LabelHashIDs: n.traceLabelIDs, SelfTimed: n.selfTimed}}
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":                func(d scenario.Dataset) []string { return []string{d.TimedTrace.Path} },
			"--timed-trace-chunk-hash-size": func(d scenario.Dataset) []string { return nonDefault(d.TimedTrace.ChunkHashSize, 16) },
			"--timed-trace-sec-multiplier": func(d scenario.Dataset) []string {
				if d.TimedTrace.SecMultiplier == 1 {
					return nil
				}
				return []string{formatFloat(d.TimedTrace.SecMultiplier)}
			},
			"--timed-trace-label-timestamp": func(d scenario.Dataset) []string { return nonDefaultString(d.TimedTrace.LabelTimestamp, "timestamp") },
			"--timed-trace-label-input-length": func(d scenario.Dataset) []string {
				return nonDefaultString(d.TimedTrace.LabelInputLength, "input_length")
			},
			"--timed-trace-label-output-length": func(d scenario.Dataset) []string {
				return nonDefaultString(d.TimedTrace.LabelOutputLength, "output_length")
			},
			"--timed-trace-label-hash-ids": func(d scenario.Dataset) []string { return nonDefaultString(d.TimedTrace.LabelHashIDs, "hash_ids") },
			"--self-timed": func(d scenario.Dataset) []string {
				return storeTrue(d.TimedTrace.SelfTimed != nil && *d.TimedTrace.SelfTimed)
			},
			"--no-self-timed": func(d scenario.Dataset) []string {
				return storeTrue(d.TimedTrace.SelfTimed != nil && !*d.TimedTrace.SelfTimed)
			},
		},
	},
}

// nonDefaultString is the value of a string flag, nil at vLLM's default
// def.
func nonDefaultString(v, def string) []string {
	if v == def {
		return nil
	}
	return []string{v}
}

// nonDefault is the value of an integer flag, nil at vLLM's default def
// (Format leaves it out).
func nonDefault(v, def int) []string {
	if v == def {
		return nil
	}
	return []string{strconv.Itoa(v)}
}

// kwargsValues is the value of --chat-template-kwargs for a dataset's
// chat_template_kwargs: its compact JSON, nil when it has none.
func kwargsValues(raw json.RawMessage) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{string(raw)}
	}
	j, err := compactJSON(v)
	if err != nil {
		return []string{string(raw)}
	}
	return []string{j}
}

// kwargsJSON is --chat-template-kwargs as a dataset's
// chat_template_kwargs: its JSON, nil when not given.
func (n *namespace) kwargsJSON() json.RawMessage {
	if n.chatTemplateKwargs == nil {
		return nil
	}
	b, _ := json.Marshal(n.chatTemplateKwargs)
	return b
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
