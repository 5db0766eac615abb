package dataset

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// sonnetText is vLLM's benchmarks/sonnet.txt: the opening Shakespeare
// sonnets (public domain), one verse per line, as Python's text-mode
// readlines sees them (LF line ends).
//
//go:embed sonnet.txt
var sonnetText string

// SonnetSpec is the sonnet kind's section of a scenario: vLLM's
// (deprecated) sonnet dataset.
type SonnetSpec struct {
	// Path is the text file of lines (--dataset-path); "" reads vLLM's
	// benchmarks/sonnet.txt, which vbench embeds.
	Path string `json:"path,omitempty"`
	// InputLen is the target prompt length in tokens (--sonnet-input-len).
	InputLen int `json:"input_len"`
	// OutputLen is the output length in tokens (--sonnet-output-len).
	OutputLen int `json:"output_len"`
	// PrefixLen is the length of the shared prefix in tokens
	// (--sonnet-prefix-len).
	PrefixLen int `json:"prefix_len"`
}

func init() {
	Register(Kind{Name: "sonnet", Spec: newSpec[SonnetSpec](), New: newSonnetSource, NeedsTokenizer: true, PythonRandom: true})
}

// sonnetSource is the sonnet kind's Source.
type sonnetSource struct{ spec SonnetSpec }

func newSonnetSource(spec scenario.Dataset) (Source, error) {
	sp, err := specOf[SonnetSpec](spec)
	if err != nil {
		return nil, err
	}
	s := *sp
	switch {
	case s.InputLen <= 0:
		return nil, fmt.Errorf("dataset.sonnet.input_len (--sonnet-input-len) is %d: it must be positive", s.InputLen)
	case s.OutputLen <= 0:
		return nil, fmt.Errorf("dataset.sonnet.output_len (--sonnet-output-len) is %d: it must be positive", s.OutputLen)
	case s.PrefixLen < 0:
		return nil, fmt.Errorf("dataset.sonnet.prefix_len (--sonnet-prefix-len) is %d: it must be 0 or more", s.PrefixLen)
	}
	return sonnetSource{spec: s}, nil
}

// Requests generates every request before yielding the first.
func (s sonnetSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		return Sonnet(ctx, s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix, env.Backend != "openai-chat")
	})
}

// sonnetBase is vLLM's base prompt of the sonnet dataset.
const sonnetBase = "Pick as many lines as you can from these poem lines:\n"

// maxSonnetRejections bounds the draws in a row that give a prompt longer
// than input_len: where vLLM would loop forever, vbench fails. (A
// variable, for the tests.)
var maxSonnetRejections = 100000

// SonnetLines returns the poem lines of a sonnet dataset: the file at path,
// or vLLM's sonnet.txt (embedded) when path is "", split as Python's
// text-mode readlines splits (each line keeps its "\n"; "\r\n" and "\r"
// read as "\n").
func SonnetLines(path string) ([]string, error) {
	text := sonnetText
	if path != "" {
		b, err := readDataFile("sonnet", path, "a text file, lines of a poem")
		if err != nil {
			return nil, err
		}
		text = string(b)
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		name := path
		if name == "" {
			name = "the embedded sonnet.txt"
		}
		return nil, fmt.Errorf("%s: the file is empty: expected lines of a poem", name)
	}
	return lines, nil
}

// Sonnet generates vLLM's sonnet dataset (SonnetDataset, upstream vllm/benchmarks/datasets/datasets.py) for numPrompts
// requests, drawing from CPython's random seeded with seed (vLLM's global
// random, seeded once by --seed at start):
//
//  1. avg = the mean token count (with special tokens) of the lines;
//     base_offset = the token count of the chat-templated base prompt,
//     which input_len must exceed;
//  2. lines = max(round((input_len − base_offset)/avg), 1), prefix lines =
//     max(round((prefix_len − base_offset)/avg), 0), rounding half to
//     even, the prefix being the first lines of the file;
//  3. until numPrompts are accepted: random.choices(lines, k = lines −
//     prefix lines); prompt = base + prefix + those lines; it is accepted,
//     with the id idPrefix + (accepted count), when its chat-templated
//     token count is at most input_len, which is its prompt length.
//
// formatted sends the chat-templated text (every backend but openai-chat)
// instead of the raw prompt.
func Sonnet(ctx context.Context, spec SonnetSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string, formatted bool) ([]Request, error) {
	if tok == nil {
		return nil, errors.New("the sonnet dataset needs a client tokenizer")
	}
	lines, err := SonnetLines(spec.Path)
	if err != nil {
		return nil, err
	}
	template := func(content string) (string, error) {
		return tokenizer.ApplyChatTemplate(tok, []tokenizer.Message{{Role: "user", Content: content}}, true, nil)
	}
	total := 0
	for _, l := range lines {
		total += len(tok.Encode(l, true))
	}
	avg := float64(total) / float64(len(lines))
	baseFmt, err := template(sonnetBase)
	var noTemplate *tokenizer.NoChatTemplateError
	if errors.As(err, &noTemplate) {
		// vLLM asserts it; --skip-chat-template does not apply to sonnet.
		return nil, fmt.Errorf("the sonnet dataset needs a tokenizer with a chat template, and tokenizer %s has none: set tokenizer.name (--tokenizer) to one that has (the model's own, for example)", noTemplate.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("the sonnet dataset applies the tokenizer's chat template: %w", err)
	}
	baseOffset := len(tok.Encode(baseFmt, true))
	if spec.InputLen <= baseOffset {
		return nil, fmt.Errorf("dataset.sonnet.input_len (--sonnet-input-len) %d must be higher than the base prompt length (%d)", spec.InputLen, baseOffset)
	}
	numInput := max(int(math.RoundToEven(float64(spec.InputLen-baseOffset)/avg)), 1)
	numPrefix := max(int(math.RoundToEven(float64(spec.PrefixLen-baseOffset)/avg)), 0)
	prefix := strings.Join(lines[:min(numPrefix, len(lines))], "")
	rng := numpy.NewPyRandom(seed)
	k := max(numInput-numPrefix, 0)
	reqs := make([]Request, 0, max(numPrompts, 0))
	var b strings.Builder
	for rejected := 0; len(reqs) < numPrompts; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b.Reset()
		b.WriteString(sonnetBase)
		b.WriteString(prefix)
		for _, i := range rng.Choices(len(lines), k) {
			b.WriteString(lines[i])
		}
		prompt := b.String()
		promptFmt, err := template(prompt)
		if err != nil {
			return nil, err
		}
		n := len(tok.Encode(promptFmt, true))
		if n > spec.InputLen {
			if rejected++; rejected >= maxSonnetRejections {
				return nil, fmt.Errorf("no sonnet prompt of %d lines fits dataset.sonnet.input_len (--sonnet-input-len) %d after %d draws in a row", numInput, spec.InputLen, rejected)
			}
			continue
		}
		rejected = 0
		if formatted {
			prompt = promptFmt
		}
		reqs = append(reqs, Request{Prompt: prompt, PromptLen: n, OutputLen: spec.OutputLen, ID: idPrefix + strconv.Itoa(len(reqs))})
	}
	return reqs, nil
}
