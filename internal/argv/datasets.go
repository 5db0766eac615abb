package argv

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// argvDataset maps one dataset kind that vbench serve implements between
// its vllm bench serve flags and the scenario. Parse and Format dispatch on
// the dataset kind only through argvDatasets; supporting a kind on the
// command line means adding its entry (and its flags to flags).
type argvDataset struct {
	// name is the kind's name, its key under the scenario's dataset (and
	// its --dataset-name, unless vllmDatasetName spells it otherwise).
	name string
	// dataset returns the scenario's dataset for the parsed flags,
	// including what --input-len and --output-len override.
	dataset func(n *namespace) scenario.Dataset
	// inputLenPath and outputLenPath are the scenario fields that
	// --input-len and --output-len set for this kind ("" for none), as
	// vLLM maps those general flags to the kind's own.
	inputLenPath, outputLenPath string
	// generated says the kind reads no file: vbench serve refuses
	// --dataset-path with it, as vLLM's serve does.
	generated bool
	// pathHint, for a kind that needs a file, says what --dataset-path
	// names: vbench serve refuses the kind without it. ("" for the others;
	// a kind whose path is optional or checked by the dataset itself.)
	pathHint string
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
		name:      "random",
		generated: true,
		dataset: func(n *namespace) scenario.Dataset {
			r := &dataset.RandomSpec{InputLen: int(n.randomInputLen), OutputLen: int(n.randomOutputLen),
				RangeRatio: n.rangeRatio, PrefixLen: int(n.randomPrefixLen), BatchSize: int(n.randomBatchSize),
				PromptTokenIDs: n.rust.promptTokenIDs}
			if n.rust.cacheHitFraction > 0 && n.rust.cacheRatio > 0 {
				r.CacheHitFraction, r.CacheRatio = n.rust.cacheHitFraction, n.rust.cacheRatio
			}
			if n.inputLen != nil {
				r.InputLen = int(*n.inputLen)
			}
			if n.outputLen != nil {
				r.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Name: "random", Spec: r}
		},
		inputLenPath:  "dataset.random.input_len",
		outputLenPath: "dataset.random.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--random-input-len":  func(d scenario.Dataset) []string { return []string{strconv.Itoa(as[dataset.RandomSpec](d).InputLen)} },
			"--random-output-len": func(d scenario.Dataset) []string { return []string{strconv.Itoa(as[dataset.RandomSpec](d).OutputLen)} },
			"--random-range-ratio": func(d scenario.Dataset) []string {
				return rangeRatioValues(as[dataset.RandomSpec](d).RangeRatio)
			},
			"--random-prefix-len": func(d scenario.Dataset) []string { return []string{strconv.Itoa(as[dataset.RandomSpec](d).PrefixLen)} },
			"--random-batch-size": func(d scenario.Dataset) []string { return nonDefault(as[dataset.RandomSpec](d).BatchSize, 1) },
			"--prompt-token-ids":  func(d scenario.Dataset) []string { return storeTrue(as[dataset.RandomSpec](d).PromptTokenIDs) },
			"--random-cache-hit-fraction": func(d scenario.Dataset) []string {
				return floatValues(as[dataset.RandomSpec](d).CacheHitFraction)
			},
			"--random-cache-ratio": func(d scenario.Dataset) []string { return floatValues(as[dataset.RandomSpec](d).CacheRatio) },
		},
	},
	{
		name:      "random_mm",
		generated: true,
		dataset: func(n *namespace) scenario.Dataset {
			r := &dataset.RandomMMSpec{RandomSpec: dataset.RandomSpec{InputLen: int(n.randomInputLen), OutputLen: int(n.randomOutputLen),
				RangeRatio: n.rangeRatio, PrefixLen: int(n.randomPrefixLen), BatchSize: int(n.randomBatchSize)},
				BaseItemsPerRequest: int(n.mmBaseItems), NumMMItemsRangeRatio: n.mmItemsRatio,
				LimitMMPerPrompt: n.mmLimits, BucketConfig: n.mmBuckets, EnableMultimodalChat: n.multimodalChat}
			if n.inputLen != nil {
				r.InputLen = int(*n.inputLen)
			}
			if n.outputLen != nil {
				r.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Name: "random_mm", Spec: r}
		},
		inputLenPath:  "dataset.random_mm.input_len",
		outputLenPath: "dataset.random_mm.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--random-input-len": func(d scenario.Dataset) []string { return []string{strconv.Itoa(as[dataset.RandomMMSpec](d).InputLen)} },
			"--random-output-len": func(d scenario.Dataset) []string {
				return []string{strconv.Itoa(as[dataset.RandomMMSpec](d).OutputLen)}
			},
			"--random-range-ratio": func(d scenario.Dataset) []string {
				return rangeRatioValues(as[dataset.RandomMMSpec](d).RangeRatio)
			},
			"--random-prefix-len": func(d scenario.Dataset) []string {
				return []string{strconv.Itoa(as[dataset.RandomMMSpec](d).PrefixLen)}
			},
			"--random-batch-size": func(d scenario.Dataset) []string { return nonDefault(as[dataset.RandomMMSpec](d).BatchSize, 1) },
			"--random-mm-base-items-per-request": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.RandomMMSpec](d).BaseItemsPerRequest, 1)
			},
			"--random-mm-num-mm-items-range-ratio": func(d scenario.Dataset) []string {
				if r := as[dataset.RandomMMSpec](d).NumMMItemsRangeRatio; r != 0 {
					return []string{formatFloat(r)}
				}
				return nil
			},
			"--random-mm-limit-mm-per-prompt": func(d scenario.Dataset) []string {
				return []string{formatLimits(as[dataset.RandomMMSpec](d).LimitMMPerPrompt)}
			},
			"--random-mm-bucket-config": func(d scenario.Dataset) []string {
				return []string{formatBuckets(as[dataset.RandomMMSpec](d).BucketConfig)}
			},
			"--enable-multimodal-chat": func(d scenario.Dataset) []string { return storeTrue(as[dataset.RandomMMSpec](d).EnableMultimodalChat) },
		},
	},
	{
		name:      "random_rerank",
		generated: true,
		dataset: func(n *namespace) scenario.Dataset {
			r := &dataset.RandomRerankSpec{RandomSpec: dataset.RandomSpec{InputLen: int(n.randomInputLen), OutputLen: int(n.randomOutputLen),
				RangeRatio: n.rangeRatio, BatchSize: int(n.randomBatchSize)}, NoReranker: n.noReranker}
			if n.inputLen != nil {
				r.InputLen = int(*n.inputLen)
			}
			return scenario.Dataset{Name: "random_rerank", Spec: r}
		},
		inputLenPath: "dataset.random_rerank.input_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--random-input-len": func(d scenario.Dataset) []string {
				return []string{strconv.Itoa(as[dataset.RandomRerankSpec](d).InputLen)}
			},
			"--random-range-ratio": func(d scenario.Dataset) []string {
				return rangeRatioValues(as[dataset.RandomRerankSpec](d).RangeRatio)
			},
			"--random-batch-size": func(d scenario.Dataset) []string { return nonDefault(as[dataset.RandomRerankSpec](d).BatchSize, 1) },
			"--no-reranker":       func(d scenario.Dataset) []string { return storeTrue(as[dataset.RandomRerankSpec](d).NoReranker) },
		},
	},
	{
		name:     "custom",
		pathHint: "a JSONL file with a prompt per line",
		dataset: func(n *namespace) scenario.Dataset {
			c := &dataset.CustomSpec{
				FileOptions: dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				OutputLen:   int(n.customOutputLen), SkipChatTemplate: n.skipChatTemplate,
			}
			if n.outputLen != nil {
				c.OutputLen = int(*n.outputLen)
			}
			c.ChatTemplateKwargs = n.kwargsJSON()
			return scenario.Dataset{Name: "custom", Spec: c}
		},
		outputLenPath: "dataset.custom.output_len",
		formattable: func(d scenario.Dataset) error {
			switch {
			case as[dataset.CustomSpec](d).EnableMultimodalChat:
				return unsupportedFlagError("dataset.custom.enable_multimodal_chat", "--enable-multimodal-chat")
			case as[dataset.CustomSpec](d).EnsureClientSideData:
				return &Error{Flag: "dataset.custom.ensure_client_side_data", Msg: "is custom_image's: vllm bench serve takes --custom-ensure-client-side-data with --dataset-name custom_image"}
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":         func(d scenario.Dataset) []string { return []string{as[dataset.CustomSpec](d).Path} },
			"--no-oversample":        func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).NoOversample) },
			"--disable-shuffle":      func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).DisableShuffle) },
			"--skip-chat-template":   func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).SkipChatTemplate) },
			"--custom-output-len":    func(d scenario.Dataset) []string { return nonDefault(as[dataset.CustomSpec](d).OutputLen, 256) },
			"--chat-template-kwargs": func(d scenario.Dataset) []string { return kwargsValues(as[dataset.CustomSpec](d).ChatTemplateKwargs) },
		},
	},
	{
		name:     "custom_image",
		pathHint: "a JSONL file with a prompt and image_files (or interleaved content) per line",
		dataset: func(n *namespace) scenario.Dataset {
			c := &dataset.CustomSpec{
				FileOptions: dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				OutputLen:   int(n.customOutputLen), EnableMultimodalChat: n.multimodalChat, EnsureClientSideData: n.ensureClientSide,
			}
			if n.outputLen != nil {
				c.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Name: "custom_image", Spec: c}
		},
		outputLenPath: "dataset.custom_image.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":    func(d scenario.Dataset) []string { return []string{as[dataset.CustomSpec](d).Path} },
			"--no-oversample":   func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).NoOversample) },
			"--disable-shuffle": func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).DisableShuffle) },
			"--custom-output-len": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.CustomSpec](d).OutputLen, 256)
			},
			"--enable-multimodal-chat":         func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).EnableMultimodalChat) },
			"--custom-ensure-client-side-data": func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).EnsureClientSideData) },
		},
	},
	{
		name:     "custom_audio",
		pathHint: "a JSONL file with an audio path (and a prompt) per line",
		dataset: func(n *namespace) scenario.Dataset {
			c := &dataset.CustomSpec{
				FileOptions: dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				OutputLen:   int(n.customOutputLen), SkipChatTemplate: n.skipChatTemplate, EnableMultimodalChat: n.multimodalChat,
			}
			if n.outputLen != nil {
				c.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Name: "custom_audio", Spec: c}
		},
		outputLenPath: "dataset.custom_audio.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":           func(d scenario.Dataset) []string { return []string{as[dataset.CustomSpec](d).Path} },
			"--no-oversample":          func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).NoOversample) },
			"--disable-shuffle":        func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).DisableShuffle) },
			"--skip-chat-template":     func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).SkipChatTemplate) },
			"--custom-output-len":      func(d scenario.Dataset) []string { return nonDefault(as[dataset.CustomSpec](d).OutputLen, 256) },
			"--enable-multimodal-chat": func(d scenario.Dataset) []string { return storeTrue(as[dataset.CustomSpec](d).EnableMultimodalChat) },
		},
	},
	{
		name: "sonnet",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{Name: "sonnet", Spec: &dataset.SonnetSpec{Path: n.datasetPath, InputLen: int(n.sonnetInputLen),
				OutputLen: int(n.sonnetOutputLen), PrefixLen: int(n.sonnetPrefixLen)}}
		},
		ownOutputLen: "--sonnet-output-len",
		formattable: func(d scenario.Dataset) error {
			if as[dataset.SonnetSpec](d).Path == "" {
				return &Error{Flag: "dataset.sonnet.path", Msg: "vllm bench serve needs --dataset-path for sonnet (vbench embeds vLLM's benchmarks/sonnet.txt; give its path)"}
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":      func(d scenario.Dataset) []string { return []string{as[dataset.SonnetSpec](d).Path} },
			"--sonnet-input-len":  func(d scenario.Dataset) []string { return nonDefault(as[dataset.SonnetSpec](d).InputLen, 550) },
			"--sonnet-output-len": func(d scenario.Dataset) []string { return nonDefault(as[dataset.SonnetSpec](d).OutputLen, 150) },
			"--sonnet-prefix-len": func(d scenario.Dataset) []string { return nonDefault(as[dataset.SonnetSpec](d).PrefixLen, 200) },
		},
	},
	{
		name: "sharegpt",
		dataset: func(n *namespace) scenario.Dataset {
			d := &dataset.ShareGPTSpec{
				FileOptions:          dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				EnableMultimodalChat: n.multimodalChat,
			}
			d.OutputLen = optionalLen(n.sharegptOutputLen, n.outputLen)
			return scenario.Dataset{Name: "sharegpt", Spec: d}
		},
		outputLenPath: "dataset.sharegpt.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":           func(d scenario.Dataset) []string { return []string{as[dataset.ShareGPTSpec](d).Path} },
			"--no-oversample":          func(d scenario.Dataset) []string { return storeTrue(as[dataset.ShareGPTSpec](d).NoOversample) },
			"--disable-shuffle":        func(d scenario.Dataset) []string { return storeTrue(as[dataset.ShareGPTSpec](d).DisableShuffle) },
			"--enable-multimodal-chat": func(d scenario.Dataset) []string { return storeTrue(as[dataset.ShareGPTSpec](d).EnableMultimodalChat) },
			"--sharegpt-output-len": func(d scenario.Dataset) []string {
				if as[dataset.ShareGPTSpec](d).OutputLen == nil {
					return nil
				}
				return []string{strconv.Itoa(*as[dataset.ShareGPTSpec](d).OutputLen)}
			},
		},
	},
	{
		name:     "spec_bench",
		pathHint: "SpecBench's question.jsonl",
		dataset: func(n *namespace) scenario.Dataset {
			d := &dataset.SpecBenchSpec{
				FileOptions: dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				OutputLen:   int(n.specBenchOutputLen), Category: n.specBenchCategory,
			}
			if n.outputLen != nil {
				d.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Name: "spec_bench", Spec: d}
		},
		outputLenPath: "dataset.spec_bench.output_len",
		formattable: func(d scenario.Dataset) error {
			if as[dataset.SpecBenchSpec](d).SkipChatTemplate {
				return &Error{Flag: "dataset.spec_bench.skip_chat_template", Msg: "has no vllm bench serve form: vllm bench serve applies the chat template to spec_bench prompts whatever --skip-chat-template says"}
			}
			return nil
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":          func(d scenario.Dataset) []string { return []string{as[dataset.SpecBenchSpec](d).Path} },
			"--no-oversample":         func(d scenario.Dataset) []string { return storeTrue(as[dataset.SpecBenchSpec](d).NoOversample) },
			"--disable-shuffle":       func(d scenario.Dataset) []string { return storeTrue(as[dataset.SpecBenchSpec](d).DisableShuffle) },
			"--spec-bench-output-len": func(d scenario.Dataset) []string { return nonDefault(as[dataset.SpecBenchSpec](d).OutputLen, 256) },
			"--spec-bench-category": func(d scenario.Dataset) []string {
				if as[dataset.SpecBenchSpec](d).Category == "" {
					return nil
				}
				return []string{as[dataset.SpecBenchSpec](d).Category}
			},
		},
	},
	{
		// vLLM's serve gives speed_bench its own output length:
		// --output-len does not override it (no outputLenPath).
		name:     "speed_bench",
		pathHint: "the SPEED-Bench directory holding <subset>.jsonl files",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{Name: "speed_bench", Spec: &dataset.SpeedBenchSpec{
				FileOptions: dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				Subset:      n.speedBenchSubset, OutputLen: int(n.speedBenchOutputLen), Category: n.speedBenchCategory,
				SkipChatTemplate: n.skipChatTemplate, ChatTemplateKwargs: n.kwargsJSON(), MaxInputLen: int(n.rust.speedBenchMaxInputLen),
			}}
		},
		ownOutputLen: "--speed-bench-output-len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":       func(d scenario.Dataset) []string { return []string{as[dataset.SpeedBenchSpec](d).Path} },
			"--no-oversample":      func(d scenario.Dataset) []string { return storeTrue(as[dataset.SpeedBenchSpec](d).NoOversample) },
			"--disable-shuffle":    func(d scenario.Dataset) []string { return storeTrue(as[dataset.SpeedBenchSpec](d).DisableShuffle) },
			"--skip-chat-template": func(d scenario.Dataset) []string { return storeTrue(as[dataset.SpeedBenchSpec](d).SkipChatTemplate) },
			"--speed-bench-dataset-subset": func(d scenario.Dataset) []string {
				if as[dataset.SpeedBenchSpec](d).Subset == "qualitative" {
					return nil
				}
				return []string{as[dataset.SpeedBenchSpec](d).Subset}
			},
			"--speed-bench-output-len": func(d scenario.Dataset) []string { return nonDefault(as[dataset.SpeedBenchSpec](d).OutputLen, 4096) },
			"--speed-bench-max-input-len": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.SpeedBenchSpec](d).MaxInputLen, 0)
			},
			"--speed-bench-category": func(d scenario.Dataset) []string {
				if as[dataset.SpeedBenchSpec](d).Category == "" {
					return nil
				}
				return []string{as[dataset.SpeedBenchSpec](d).Category}
			},
			"--chat-template-kwargs": func(d scenario.Dataset) []string {
				return kwargsValues(as[dataset.SpeedBenchSpec](d).ChatTemplateKwargs)
			},
		},
	},
	{
		name: "hf",
		dataset: func(n *namespace) scenario.Dataset {
			d := &dataset.HFSpec{
				FileOptions: dataset.FileOptions{Path: n.datasetPath, DisableShuffle: n.disableShuffle, NoOversample: n.noOversample},
				Subset:      n.hfSubset, Split: n.hfSplit, Name: n.hfName, NoStream: n.noStream,
				SkipChatTemplate: n.skipChatTemplate, EnableMultimodalChat: n.multimodalChat,
				ASRMaxAudioLenSec: scenario.Float(n.asrMaxAudioLenSec), ASRMinAudioLenSec: n.asrMinAudioLenSec, BFCLCategories: n.bfclCategories,
			}
			setBlazedit(n, d)
			d.OutputLen = optionalLen(n.hfOutputLen, n.outputLen)
			d.TextColumn = n.rust.hfTextColumn
			return scenario.Dataset{Name: "hf", Spec: d}
		},
		outputLenPath: "dataset.hf.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":  func(d scenario.Dataset) []string { return []string{as[dataset.HFSpec](d).Path} },
			"--no-oversample": func(d scenario.Dataset) []string { return storeTrue(as[dataset.HFSpec](d).NoOversample) },
			"--hf-text-column": func(d scenario.Dataset) []string {
				if c := as[dataset.HFSpec](d).TextColumn; c != "" {
					return []string{c}
				}
				return nil
			},
			"--disable-shuffle":        func(d scenario.Dataset) []string { return storeTrue(as[dataset.HFSpec](d).DisableShuffle) },
			"--hf-subset":              func(d scenario.Dataset) []string { return nonEmpty(as[dataset.HFSpec](d).Subset) },
			"--hf-split":               func(d scenario.Dataset) []string { return nonEmpty(as[dataset.HFSpec](d).Split) },
			"--hf-name":                func(d scenario.Dataset) []string { return nonEmpty(as[dataset.HFSpec](d).Name) },
			"--no-stream":              func(d scenario.Dataset) []string { return storeTrue(as[dataset.HFSpec](d).NoStream) },
			"--skip-chat-template":     func(d scenario.Dataset) []string { return storeTrue(as[dataset.HFSpec](d).SkipChatTemplate) },
			"--enable-multimodal-chat": func(d scenario.Dataset) []string { return storeTrue(as[dataset.HFSpec](d).EnableMultimodalChat) },
			"--blazedit-min-distance":  blazeditValues["--blazedit-min-distance"],
			"--blazedit-max-distance":  blazeditValues["--blazedit-max-distance"],
			"--asr-max-audio-len-sec": func(d scenario.Dataset) []string {
				return nonDefaultFloat(float64(as[dataset.HFSpec](d).ASRMaxAudioLenSec), math.Inf(1))
			},
			"--asr-min-audio-len-sec": func(d scenario.Dataset) []string {
				return nonDefaultFloat(as[dataset.HFSpec](d).ASRMinAudioLenSec, 0)
			},
			"--bfcl-categories": func(d scenario.Dataset) []string {
				if c := as[dataset.HFSpec](d).BFCLCategories; c != nil {
					return []string{strings.Join(c, ",")}
				}
				return nil
			},
			"--hf-output-len": func(d scenario.Dataset) []string {
				if as[dataset.HFSpec](d).OutputLen == nil {
					return nil
				}
				return []string{strconv.Itoa(*as[dataset.HFSpec](d).OutputLen)}
			},
		},
	},
	{
		name:     "burstgpt",
		pathHint: "the BurstGPT CSV trace",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{Name: "burstgpt", Spec: &dataset.BurstGPTSpec{Path: n.datasetPath}}
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path": func(d scenario.Dataset) []string { return []string{as[dataset.BurstGPTSpec](d).Path} },
		},
	},
	{
		name:      "prefix_repetition",
		generated: true,
		dataset: func(n *namespace) scenario.Dataset {
			d := &dataset.PrefixRepetitionSpec{PrefixLen: int(n.prefixRepPrefixLen), SuffixLen: int(n.prefixRepSuffixLen),
				NumPrefixes: int(n.prefixRepNumPrefixes), OutputLen: int(n.prefixRepOutputLen), DisableShuffle: n.disableShuffle}
			if n.outputLen != nil {
				d.OutputLen = int(*n.outputLen)
			}
			return scenario.Dataset{Name: "prefix_repetition", Spec: d}
		},
		outputLenPath: "dataset.prefix_repetition.output_len",
		values: map[string]func(d scenario.Dataset) []string{
			"--prefix-repetition-prefix-len": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.PrefixRepetitionSpec](d).PrefixLen, 256)
			},
			"--prefix-repetition-suffix-len": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.PrefixRepetitionSpec](d).SuffixLen, 256)
			},
			"--prefix-repetition-num-prefixes": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.PrefixRepetitionSpec](d).NumPrefixes, 10)
			},
			"--prefix-repetition-output-len": func(d scenario.Dataset) []string {
				return nonDefault(as[dataset.PrefixRepetitionSpec](d).OutputLen, 128)
			},
			"--disable-shuffle": func(d scenario.Dataset) []string {
				return storeTrue(as[dataset.PrefixRepetitionSpec](d).DisableShuffle)
			},
		},
	},
	{
		name:     "timed_trace",
		pathHint: "a JSONL trace: timestamp, input_length, output_length and hash_ids on each line",
		dataset: func(n *namespace) scenario.Dataset {
			return scenario.Dataset{Name: "timed_trace", Spec: &dataset.TimedTraceSpec{Path: n.datasetPath,
				ChunkHashSize: int(n.traceChunkHashSize), SecMultiplier: n.traceSecMultiplier,
				LabelTimestamp: n.traceLabelTimestamp, LabelInputLength: n.traceLabelInput,
				LabelOutputLength: n.traceLabelOutput, LabelHashIDs: n.traceLabelIDs, SelfTimed: n.selfTimed}}
		},
		values: map[string]func(d scenario.Dataset) []string{
			"--dataset-path":                func(d scenario.Dataset) []string { return []string{as[dataset.TimedTraceSpec](d).Path} },
			"--timed-trace-chunk-hash-size": func(d scenario.Dataset) []string { return nonDefault(as[dataset.TimedTraceSpec](d).ChunkHashSize, 16) },
			"--timed-trace-sec-multiplier": func(d scenario.Dataset) []string {
				if as[dataset.TimedTraceSpec](d).SecMultiplier == 1 {
					return nil
				}
				return []string{formatFloat(as[dataset.TimedTraceSpec](d).SecMultiplier)}
			},
			"--timed-trace-label-timestamp": func(d scenario.Dataset) []string {
				return nonDefaultString(as[dataset.TimedTraceSpec](d).LabelTimestamp, "timestamp")
			},
			"--timed-trace-label-input-length": func(d scenario.Dataset) []string {
				return nonDefaultString(as[dataset.TimedTraceSpec](d).LabelInputLength, "input_length")
			},
			"--timed-trace-label-output-length": func(d scenario.Dataset) []string {
				return nonDefaultString(as[dataset.TimedTraceSpec](d).LabelOutputLength, "output_length")
			},
			"--timed-trace-label-hash-ids": func(d scenario.Dataset) []string {
				return nonDefaultString(as[dataset.TimedTraceSpec](d).LabelHashIDs, "hash_ids")
			},
			"--self-timed": func(d scenario.Dataset) []string {
				return storeTrue(as[dataset.TimedTraceSpec](d).SelfTimed != nil && *as[dataset.TimedTraceSpec](d).SelfTimed)
			},
			"--no-self-timed": func(d scenario.Dataset) []string {
				return storeTrue(as[dataset.TimedTraceSpec](d).SelfTimed != nil && !*as[dataset.TimedTraceSpec](d).SelfTimed)
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

// vllmDatasetNames are vLLM's --dataset-name spellings of the kinds whose
// scenario name differs (a kind has one name, its key under dataset).
var vllmDatasetNames = map[string]string{"random_mm": "random-mm", "random_rerank": "random-rerank"}

// vllmDatasetName returns vLLM's --dataset-name for the kind called name.
func vllmDatasetName(name string) string {
	if v, ok := vllmDatasetNames[name]; ok {
		return v
	}
	return name
}

// argvDatasetNamed returns the entry of the dataset kind called name (its
// kind name or vLLM's --dataset-name for it), nil when vbench serve does
// not implement it.
func argvDatasetNamed(name string) *argvDataset {
	for _, d := range argvDatasets {
		if d.name == name || vllmDatasetName(d.name) == name {
			return d
		}
	}
	return nil
}

// argvDatasetNames returns vLLM's --dataset-name for each implemented
// kind, sorted: the values --dataset-name supports.
func argvDatasetNames() []string {
	names := make([]string, len(argvDatasets))
	for i, d := range argvDatasets {
		names[i] = vllmDatasetName(d.name)
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
		if s.Dataset.Name == d.name {
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

// as returns d's spec as the kind's spec type T: a values or formattable
// function of an entry only sees datasets of the entry's kind.
func as[T any](d scenario.Dataset) *T { return d.Spec.(*T) }

// rangeRatioValues is --random-range-ratio's value for r: one ratio when
// both are equal, else vLLM's JSON form.
func rangeRatioValues(r dataset.RangeRatio) []string {
	if r.Input == r.Output {
		return []string{formatFloat(r.Input)}
	}
	return []string{fmt.Sprintf(`{"input": %s, "output": %s}`, formatFloat(r.Input), formatFloat(r.Output))}
}

// floatValues is a float flag's value, or none at 0.
func floatValues(x float64) []string {
	if x == 0 {
		return nil
	}
	return []string{formatFloat(x)}
}
