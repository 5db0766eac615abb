package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

func init() {
	Register(Kind{Name: "spec_bench", New: newSpecBenchSource, NeedsTokenizer: true, PythonRandom: true})
}

// specBenchSeed is the seed of vLLM's spec_bench: serve builds the dataset
// without --seed, so it shuffles and oversamples with BenchmarkDataset's
// default seed, 0.
const specBenchSeed = 0

// specBenchSource is the spec_bench kind's Source.
type specBenchSource struct{ spec scenario.SpecBenchDataset }

func newSpecBenchSource(spec scenario.Dataset) (Source, error) {
	if spec.SpecBench == nil {
		return nil, errors.New("the scenario sets no dataset.spec_bench")
	}
	s := *spec.SpecBench
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
	return collected(func() ([]Request, error) {
		return SpecBench(ctx, s.spec, env.NumPrompts, env.Tokenizer, env.IDPrefix, env.Stderr)
	})
}

// SpecBench generates vLLM's spec_bench dataset (reference §4.8) for
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
func SpecBench(ctx context.Context, spec scenario.SpecBenchDataset, numPrompts int, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	if logw == nil {
		logw = io.Discard
	}
	lines, err := ReadSpecBenchFile(spec.Path, spec.Category)
	if err != nil {
		return nil, err
	}
	custom := scenario.CustomDataset{FileOptions: spec.FileOptions, OutputLen: spec.OutputLen, SkipChatTemplate: spec.SkipChatTemplate}
	return customRequests(ctx, lines, custom, nil, numPrompts, specBenchSeed, tok, idPrefix, logw)
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSpecBench(path, f, category)
}

func readSpecBench(name string, r io.Reader, category string) ([]CustomLine, error) {
	var lines []CustomLine
	var categories []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
	objects := 0
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		objects++
		var obj map[string]json.RawMessage
		if b[0] != '{' || json.Unmarshal(b, &obj) != nil {
			if !json.Valid(b) {
				return nil, fmt.Errorf("%s:%d: %w", name, n, invalidJSON(b))
			}
			return nil, fmt.Errorf("%s:%d: a JSON %s, expected an object with a \"turns\" list", name, n, jsonKind(b))
		}
		if category != "" {
			var c string
			if raw, ok := obj["category"]; ok && json.Unmarshal(raw, &c) == nil && raw[0] == '"' {
				if !slices.Contains(categories, c) {
					categories = append(categories, c)
				}
			}
			if c != category {
				continue
			}
		}
		prompt, err := firstTurn(obj["turns"])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		lines = append(lines, CustomLine{Prompt: prompt, OutputTokens: -1, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case objects == 0:
		return nil, fmt.Errorf("%s: the file is empty: expected JSON lines, each an object with a \"turns\" list", name)
	case len(lines) == 0:
		if len(categories) == 0 {
			return nil, fmt.Errorf("%s: no line has \"category\" %q (--spec-bench-category): no line has a \"category\" string", name, category)
		}
		slices.Sort(categories)
		return nil, fmt.Errorf("%s: no line has \"category\" %q (--spec-bench-category): the file's categories are %s", name, category, strings.Join(categories, ", "))
	}
	return lines, nil
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
