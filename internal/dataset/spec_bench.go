package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// SpecBenchSpec is the spec_bench kind's section of a scenario: vLLM's
// spec_bench dataset.
type SpecBenchSpec struct {
	// FileOptions says which file to read and how.
	FileOptions
	// OutputLen is the output length in tokens (--spec-bench-output-len).
	OutputLen int `json:"output_len"`
	// Category keeps only this category (--spec-bench-category).
	Category string `json:"category,omitempty"`
	// SkipChatTemplate sends prompts without applying the tokenizer's chat
	// template (--skip-chat-template).
	SkipChatTemplate bool `json:"skip_chat_template"`
}

func init() {
	Register(Kind{Name: "spec_bench", Spec: newSpec[SpecBenchSpec](), New: newSpecBenchSource, AllPrompts: true, NeedsTokenizer: true, PythonRandom: true})
}

// specBenchSeed is the seed of vLLM's spec_bench: serve builds the dataset
// without --seed, so it shuffles and oversamples with BenchmarkDataset's
// default seed, 0.
const specBenchSeed = 0

// specBenchSource is the spec_bench kind's Source.
type specBenchSource struct{ spec SpecBenchSpec }

func newSpecBenchSource(spec scenario.Dataset) (Source, error) {
	sp, err := specOf[SpecBenchSpec](spec)
	if err != nil {
		return nil, err
	}
	s := *sp
	switch {
	case s.Path == "":
		return nil, errors.New("dataset.spec_bench.path (--dataset-path) is empty: it must name the SpecBench JSONL file (question.jsonl)")
	case s.OutputLen <= 0:
		return nil, fmt.Errorf("dataset.spec_bench.output_len (--spec-bench-output-len) is %d: it must be positive", s.OutputLen)
	}
	return specBenchSource{spec: s}, nil
}

// Requests reads, shuffles and templates every line before yielding the
// first request: the shuffle needs them all.
func (s specBenchSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		reqs, counts, err := specBench(ctx, s.spec, env.NumPrompts, env.Tokenizer, env.IDPrefix, env.Stderr)
		if env.Counts != nil && counts.Filtered {
			*env.Counts = counts
		}
		return reqs, err
	})
}

// SpecBench generates vLLM's spec_bench dataset (SpecBench, upstream vllm/benchmarks/datasets/datasets.py) for
// numPrompts requests (every kept line when numPrompts <= 0): the first
// turn of each line of spec.Path in spec.Category (every line when it is
// ""), read by ReadSpecBenchFile, then vLLM's CustomDataset.sample with
// the output length spec.OutputLen, exactly as Custom describes it, with
// the seed fixed to 0 (vLLM does not pass --seed to spec_bench): the
// shuffle unless spec.DisableShuffle, the tokenizer's chat template on one
// user message, the prompt length of the templated text with special
// tokens, and the oversampling unless spec.NoOversample. vLLM's serve
// always applies the template to spec_bench prompts (it does not pass
// --skip-chat-template on); spec.SkipChatTemplate, a scenario field, sends
// the raw first turns instead. Lines vLLM logs go to logw.
func SpecBench(ctx context.Context, spec SpecBenchSpec, numPrompts int, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	reqs, _, err := specBench(ctx, spec, numPrompts, tok, idPrefix, logw)
	return reqs, err
}

// specBench is SpecBench, with what its category filter counted.
func specBench(ctx context.Context, spec SpecBenchSpec, numPrompts int, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, Counts, error) {
	if logw == nil {
		logw = io.Discard
	}
	lines, objects, err := readSpecBenchFile(spec.Path, spec.Category)
	if err != nil {
		return nil, Counts{}, err
	}
	custom := CustomSpec{FileOptions: spec.FileOptions, OutputLen: spec.OutputLen, SkipChatTemplate: spec.SkipChatTemplate}
	reqs, err := customRequests(ctx, lines, custom, nil, numPrompts, specBenchSeed, tok, idPrefix, logw)
	return reqs, benchCounts(spec.Category, objects, len(lines), reqs), err
}

// ReadSpecBenchFile reads a SpecBench file (Spec-Bench's question.jsonl):
// JSON lines, each an object whose "turns" is a list that starts with the
// prompt string; blank lines are skipped. With category not "", only the
// lines whose "category" is that string are kept (vLLM's
// --spec-bench-category), and only those need a prompt, as in vLLM. The
// kept lines come in file order, as CustomLines without output_tokens.
// Its errors are one line naming the file, the line and what was
// expected; a category no line has is an error that lists the file's
// categories.
func ReadSpecBenchFile(path, category string) ([]CustomLine, error) {
	lines, _, err := readSpecBenchFile(path, category)
	return lines, err
}

// readSpecBenchFile is ReadSpecBenchFile, with the number of lines read.
func readSpecBenchFile(path, category string) ([]CustomLine, int, error) {
	f, err := openDataFile("spec_bench", path, `SpecBench's question.jsonl, JSON lines with a "turns" list`)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return readSpecBench(path, f, category)
}

func readSpecBench(name string, r io.Reader, category string) ([]CustomLine, int, error) {
	return readBenchLines(name, r, category, specBenchFormat)
}

// specBenchFormat is a SpecBench line: the prompt is the first of its
// "turns".
var specBenchFormat = benchFormat{
	object:       `an object with a "turns" list`,
	categoryFlag: "--spec-bench-category",
	prompt:       func(obj map[string]json.RawMessage) (string, error) { return firstTurn(obj["turns"]) },
}

// firstTurn returns the prompt of a SpecBench line: the first element of
// its "turns" list, a string.
func firstTurn(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New(`no "turns": expected an object with a "turns" list that starts with the prompt`)
	}
	var turns []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &turns) != nil {
		return "", fmt.Errorf(`"turns" is a JSON %s, expected a list that starts with the prompt`, jsonKind(raw))
	}
	if len(turns) == 0 {
		return "", errors.New(`"turns" is empty: expected a list that starts with the prompt`)
	}
	var s string
	if turns[0][0] != '"' || json.Unmarshal(turns[0], &s) != nil {
		return "", fmt.Errorf(`the first turn is a JSON %s, expected the prompt string`, jsonKind(turns[0]))
	}
	return s, nil
}
