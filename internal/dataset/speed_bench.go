package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// SpeedBenchSpec is the speed_bench kind's section of a scenario: vLLM's
// speed_bench dataset.
type SpeedBenchSpec struct {
	// FileOptions says which file to read and how.
	FileOptions
	// Subset is the split file to read (--speed-bench-dataset-subset).
	Subset string `json:"subset"`
	// OutputLen is the output length in tokens (--speed-bench-output-len).
	OutputLen int `json:"output_len"`
	// Category keeps only this category (--speed-bench-category).
	Category string `json:"category,omitempty"`
	// SkipChatTemplate sends prompts without applying the tokenizer's chat
	// template (--skip-chat-template).
	SkipChatTemplate bool `json:"skip_chat_template"`
	// ChatTemplateKwargs are passed to the chat template
	// (--chat-template-kwargs).
	ChatTemplateKwargs json.RawMessage `json:"chat_template_kwargs,omitempty"`
	// MaxInputLen, when positive, cuts a longer prompt to that many
	// tokens (vllm-bench's --speed-bench-max-input-len).
	MaxInputLen int `json:"max_input_len,omitempty"`
}

func init() {
	Register(Kind{Name: "speed_bench", Spec: newSpec[SpeedBenchSpec](), New: newSpeedBenchSource, AllPrompts: true, NeedsTokenizer: true, PythonRandom: true})
}

// speedBenchSeed is the seed of vLLM's speed_bench: serve builds the
// dataset without --seed, so it shuffles and oversamples with
// BenchmarkDataset's default seed, 0.
const speedBenchSeed = 0

// SpeedBenchSubsets are the SPEED-Bench subsets (split files) vLLM's
// --speed-bench-dataset-subset accepts, in its help order.
var SpeedBenchSubsets = []string{"qualitative", "throughput_1k", "throughput_2k", "throughput_8k", "throughput_16k", "throughput_32k"}

// speedBenchSource is the speed_bench kind's Source.
type speedBenchSource struct{ spec SpeedBenchSpec }

func newSpeedBenchSource(spec scenario.Dataset) (Source, error) {
	sp, err := specOf[SpeedBenchSpec](spec)
	if err != nil {
		return nil, err
	}
	s := *sp
	switch {
	case s.Path == "":
		return nil, errors.New("dataset.speed_bench.path (--dataset-path) is empty: it must name the SPEED-Bench directory (holding <subset>.jsonl files)")
	case !slices.Contains(SpeedBenchSubsets, s.Subset):
		return nil, fmt.Errorf("dataset.speed_bench.subset (--speed-bench-dataset-subset) is %q: it must be one of %s", s.Subset, strings.Join(SpeedBenchSubsets, ", "))
	case s.OutputLen <= 0:
		return nil, fmt.Errorf("dataset.speed_bench.output_len (--speed-bench-output-len) is %d: it must be positive", s.OutputLen)
	}
	if _, err := chatKwargs(s.ChatTemplateKwargs); err != nil {
		return nil, fmt.Errorf("dataset.speed_bench.chat_template_kwargs (--chat-template-kwargs): %w", err)
	}
	return speedBenchSource{spec: s}, nil
}

// Requests reads, shuffles and templates every line before yielding the
// first request: the shuffle needs them all.
func (s speedBenchSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		reqs, counts, err := speedBench(ctx, s.spec, env.NumPrompts, env.Tokenizer, env.IDPrefix, env.Stderr)
		if env.Counts != nil && counts.Filtered {
			*env.Counts = counts
		}
		return reqs, err
	})
}

// SpeedBench generates vLLM's speed_bench dataset (upstream vllm/benchmarks/datasets/datasets.py) for
// numPrompts requests (every kept line when numPrompts <= 0): the content
// of the first message of each line of spec.Subset's file in the
// directory spec.Path, in spec.Category (every line when it is ""), read
// by ReadSpeedBenchDir, then vLLM's CustomDataset.sample with the output
// length spec.OutputLen, exactly as Custom describes it, with the seed
// fixed to 0 (vLLM does not pass --seed to speed_bench): the shuffle unless
// spec.DisableShuffle, unless spec.SkipChatTemplate the tokenizer's chat
// template on one user message with spec.ChatTemplateKwargs, the prompt
// length of the sent text with special tokens, and the oversampling unless
// spec.NoOversample. Lines vLLM logs go to logw.
func SpeedBench(ctx context.Context, spec SpeedBenchSpec, numPrompts int, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	reqs, _, err := speedBench(ctx, spec, numPrompts, tok, idPrefix, logw)
	return reqs, err
}

// speedBench is SpeedBench, with what its category filter counted.
func speedBench(ctx context.Context, spec SpeedBenchSpec, numPrompts int, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, Counts, error) {
	if logw == nil {
		logw = io.Discard
	}
	kwargs, err := chatKwargs(spec.ChatTemplateKwargs)
	if err != nil {
		return nil, Counts{}, fmt.Errorf("chat_template_kwargs: %w", err)
	}
	lines, file, objects, err := readSpeedBenchDir(spec.Path, spec.Subset, spec.Category)
	if err != nil {
		return nil, Counts{}, err
	}
	custom := CustomSpec{FileOptions: spec.FileOptions, OutputLen: spec.OutputLen, SkipChatTemplate: spec.SkipChatTemplate}
	custom.Path = file // templating errors name the subset file and line
	reqs, err := customRequests(ctx, lines, custom, kwargs, numPrompts, speedBenchSeed, tok, idPrefix, logw)
	if err == nil && spec.MaxInputLen > 0 {
		cutPrompts(reqs, spec.MaxInputLen, tok)
	}
	return reqs, benchCounts(spec.Category, objects, len(lines), reqs), err
}

// cutPrompts cuts each prompt longer than n tokens to its first n, as
// vllm-bench's --speed-bench-max-input-len does: the prompt becomes the
// text of its first tokens (without the special tokens the tokenizer adds,
// so that with them the prompt is n tokens long), and its length is n.
func cutPrompts(reqs []Request, n int, tok tokenizer.Tokenizer) {
	if tok == nil {
		return
	}
	keep := max(n-tok.NumSpecialTokensToAdd(), 1)
	for i := range reqs {
		if reqs[i].PromptLen <= n {
			continue
		}
		ids := tok.Encode(reqs[i].Prompt, false)
		if len(ids) > keep {
			reqs[i].Prompt = tok.Decode(ids[:keep])
		}
		reqs[i].PromptLen = n
	}
}

// ReadSpeedBenchDir reads the SPEED-Bench file of subset in the directory
// dir (dir/subset.jsonl, as NVIDIA's prepare script writes it) and returns
// its kept lines and the file's path: JSON lines, each an object whose
// "messages" is a list that starts with a message whose "content" is the
// prompt (whatever that message's role, as in vLLM); blank lines are
// skipped. With category not "", only the lines whose "category" is that
// string are kept (--speed-bench-category), and only those need a prompt.
// A dir that is not a directory, or lacks the subset's file, is an error
// that says what the directory holds.
func ReadSpeedBenchDir(dir, subset, category string) ([]CustomLine, string, error) {
	lines, file, _, err := readSpeedBenchDir(dir, subset, category)
	return lines, file, err
}

// readSpeedBenchDir is ReadSpeedBenchDir, with the number of lines read.
func readSpeedBenchDir(dir, subset, category string) (lines []CustomLine, file string, objects int, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, "", 0, fmt.Errorf("--dataset-path %s: %w (expected the SPEED-Bench directory holding <subset>.jsonl files)", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return nil, "", 0, fmt.Errorf("--dataset-path %s is not a directory: SPEED-Bench is a directory holding <subset>.jsonl files (NVIDIA NeMo Skills' speed-bench prepare.py writes it)", dir)
	}
	file = filepath.Join(dir, subset+".jsonl")
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", 0, fmt.Errorf("%s: no such file: --speed-bench-dataset-subset %s reads %s.jsonl in --dataset-path %s, %s", file, subset, subset, dir, subsetsIn(dir))
	}
	if err != nil {
		return nil, "", 0, err
	}
	defer f.Close()
	lines, objects, err = readSpeedBench(file, f, category)
	return lines, file, objects, err
}

// subsetsIn says which subset files dir holds, for an error.
func subsetsIn(dir string) string {
	var have []string
	for _, s := range SpeedBenchSubsets {
		if st, err := os.Stat(filepath.Join(dir, s+".jsonl")); err == nil && st.Mode().IsRegular() {
			have = append(have, s)
		}
	}
	if len(have) == 0 {
		return "which holds no subset file (" + strings.Join(SpeedBenchSubsets, ".jsonl, ") + ".jsonl)"
	}
	return "which holds the subsets " + strings.Join(have, ", ")
}

func readSpeedBench(name string, r io.Reader, category string) ([]CustomLine, int, error) {
	return readBenchLines(name, r, category, speedBenchFormat)
}

// speedBenchFormat is a SPEED-Bench line: the prompt is the content of the
// first of its "messages".
var speedBenchFormat = benchFormat{
	object:       `an object with a "messages" list`,
	categoryFlag: "--speed-bench-category",
	prompt:       func(obj map[string]json.RawMessage) (string, error) { return firstMessage(obj["messages"]) },
}

// firstMessage returns the prompt of a SPEED-Bench line: the "content"
// string of the first element of its "messages" list.
func firstMessage(raw json.RawMessage) (string, error) {
	const want = `expected a list that starts with a message whose "content" is the prompt`
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New(`no "messages": ` + want)
	}
	var msgs []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &msgs) != nil {
		return "", fmt.Errorf(`"messages" is a JSON %s, %s`, jsonKind(raw), want)
	}
	if len(msgs) == 0 {
		return "", errors.New(`"messages" is empty: ` + want)
	}
	var msg map[string]json.RawMessage
	if msgs[0][0] != '{' || json.Unmarshal(msgs[0], &msg) != nil {
		return "", fmt.Errorf(`the first message is a JSON %s, expected an object with a "content" string`, jsonKind(msgs[0]))
	}
	content, ok := msg["content"]
	if !ok || string(content) == "null" {
		return "", errors.New(`the first message has no "content": expected the prompt string`)
	}
	var s string
	if content[0] != '"' || json.Unmarshal(content, &s) != nil {
		return "", fmt.Errorf(`the first message's "content" is a JSON %s, expected the prompt string`, jsonKind(content))
	}
	return s, nil
}
