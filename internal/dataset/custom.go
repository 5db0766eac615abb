package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// CustomSpec is the custom kind's section of a scenario: vLLM's custom
// JSONL dataset (and its image/audio variants).
type CustomSpec struct {
	// FileOptions says which file to read and how.
	FileOptions
	// OutputLen is the output length; -1 uses each line's output_tokens.
	OutputLen int `json:"output_len"`
	// SkipChatTemplate sends prompts without applying the tokenizer's chat
	// template (--skip-chat-template).
	SkipChatTemplate bool `json:"skip_chat_template"`
	// ChatTemplateKwargs are passed to the chat template
	// (--chat-template-kwargs).
	ChatTemplateKwargs json.RawMessage `json:"chat_template_kwargs,omitempty"`
	// EnsureClientSideData fetches images and inlines them as data URLs, for
	// custom_image (--custom-ensure-client-side-data).
	EnsureClientSideData bool `json:"ensure_client_side_data"`
	// EnableMultimodalChat sends chat messages with inline multimodal parts
	// (--enable-multimodal-chat).
	EnableMultimodalChat bool `json:"enable_multimodal_chat"`
}

func init() {
	Register(Kind{Name: "custom", Spec: newSpec[CustomSpec](), New: newCustomSource, AllPrompts: true, PythonRandom: true})
}

// customSource is the custom kind's Source: Custom with the run's
// tokenizer, seed, request count and id prefix.
type customSource struct{ spec CustomSpec }

func newCustomSource(spec scenario.Dataset) (Source, error) {
	cp, err := specOf[CustomSpec](spec)
	if err != nil {
		return nil, err
	}
	c := *cp
	if c.OutputLen < -1 || c.OutputLen == 0 {
		return nil, fmt.Errorf("dataset.custom.output_len (--custom-output-len) is %d: it must be positive, or -1 for each line's output_tokens", c.OutputLen)
	}
	switch {
	case c.EnableMultimodalChat:
		return nil, errors.New("dataset.custom.enable_multimodal_chat (--enable-multimodal-chat): the text custom dataset has no media: use custom_image or custom_audio")
	case c.EnsureClientSideData:
		return nil, errors.New("dataset.custom.ensure_client_side_data (--custom-ensure-client-side-data) is custom_image's: use dataset custom_image")
	}
	if _, err := chatKwargs(c.ChatTemplateKwargs); err != nil {
		return nil, fmt.Errorf("dataset.custom.chat_template_kwargs (--chat-template-kwargs): %w", err)
	}
	return customSource{spec: c}, nil
}

// Requests reads, shuffles and templates every line before yielding the
// first request: the shuffle needs them all.
func (s customSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		return Custom(ctx, s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix, env.Stderr)
	})
}

// CustomLine is one line of a custom dataset file.
type CustomLine struct {
	// Prompt is the line's "prompt".
	Prompt string
	// OutputTokens is the line's "output_tokens", -1 when it has none.
	OutputTokens int
	// Line is the 1-based line number in the file.
	Line int
}

// WriteCustom writes reqs as a custom dataset file, a line per request
// with its prompt and output_tokens, so that the custom kind replays them.
// A request a line cannot hold (a batch of prompts, token ids, content
// other than text) is an error naming it.
func WriteCustom(w io.Writer, reqs []Request) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, r := range reqs {
		switch {
		case r.Prompts != nil:
			return fmt.Errorf("request %d is a batch of prompts, which a custom dataset line cannot hold", i)
		case r.PromptTokens != nil:
			return fmt.Errorf("request %d is a list of token ids, which a custom dataset line cannot hold", i)
		}
		for _, m := range r.Messages {
			for _, part := range m.Parts {
				if part.Type != PartText {
					return fmt.Errorf("request %d has %s content, which a custom dataset line cannot hold", i, part.Type)
				}
			}
		}
		line := struct {
			Prompt       string `json:"prompt"`
			OutputTokens int    `json:"output_tokens"`
		}{r.Prompt, r.OutputLen}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
	}
	return nil
}

// ReadCustomFile reads a custom dataset file: JSON lines, each an object
// with a string "prompt" and an optional non-negative integer
// "output_tokens" (a number, or a string of digits, as vLLM's int()
// takes it); blank lines are skipped (as pandas' read_json does). Its
// errors are one line naming the file, the line and what was expected.
//
// Where vLLM reads the file with pandas and fails later or coerces, vbench
// refuses the line: a prompt that is not a string (pandas would also turn a
// column of numeric strings into numbers), a fractional output_tokens
// (vLLM truncates it).
func ReadCustomFile(path string) ([]CustomLine, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return nil, fmt.Errorf("%s: only JSONL files (named *.jsonl) are supported for the custom dataset", path)
	}
	f, err := openDataFile("custom", path, `JSON lines, each an object with a "prompt" string`)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCustom(path, f)
}

func readCustom(name string, r io.Reader) ([]CustomLine, error) {
	var lines []CustomLine
	err := eachLine(name, r, func(n int, b []byte) error {
		l, err := parseCustomLine(b)
		if err != nil {
			return err
		}
		l.Line = n
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: the file is empty: expected JSON lines, each an object with a \"prompt\" string", name)
	}
	return lines, nil
}

func parseCustomLine(b []byte) (CustomLine, error) {
	if b[0] != '{' {
		if !json.Valid(b) {
			return CustomLine{}, invalidJSON(b)
		}
		return CustomLine{}, fmt.Errorf("a JSON %s, expected an object with a \"prompt\" string", jsonKind(b))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return CustomLine{}, invalidJSON(b)
	}
	l := CustomLine{OutputTokens: -1}
	raw, ok := obj["prompt"]
	if !ok {
		return CustomLine{}, errors.New(`no "prompt": expected an object with a "prompt" string`)
	}
	if err := json.Unmarshal(raw, &l.Prompt); err != nil || raw[0] != '"' {
		return CustomLine{}, fmt.Errorf(`"prompt" is a JSON %s, expected a string`, jsonKind(raw))
	}
	if raw, ok := obj["output_tokens"]; ok && string(raw) != "null" {
		n, ok := outputTokens(raw)
		if !ok {
			return CustomLine{}, fmt.Errorf(`"output_tokens" is %s, expected a non-negative integer`, clip(raw))
		}
		l.OutputTokens = n
	}
	return l, nil
}

// outputTokens reads an output_tokens value as vLLM's int() takes it: a
// number with an integral value, or a string of decimal digits (vLLM
// truncates a fractional number; vbench refuses it).
func outputTokens(raw json.RawMessage) (int, bool) {
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		return n, err == nil && n >= 0 && n <= math.MaxInt32
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}

func invalidJSON(b []byte) error {
	var v any
	err := json.Unmarshal(b, &v)
	msg := "invalid JSON"
	if err != nil {
		msg = "invalid JSON (" + err.Error() + ")"
	}
	return fmt.Errorf("%s: expected one JSON object per line", msg)
}

// jsonKind names the JSON type of a valid value.
func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// clip returns raw, shortened to 40 bytes, for an error message.
func clip(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// chatKwargs decodes --chat-template-kwargs: a JSON object, or nothing.
func chatKwargs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("expected a JSON object: %w", err)
	}
	return m, nil
}

// Custom generates vLLM's custom dataset (CustomDataset, upstream vllm/benchmarks/datasets/datasets.py) for numPrompts
// requests (every line when numPrompts <= 0):
//
//  1. read the lines of spec.Path (ReadCustomFile); unless
//     spec.DisableShuffle, shuffle them with CPython's random seeded with
//     seed (random.seed(seed); random.shuffle(data));
//  2. take the first numPrompts lines; request i (the line's position after
//     the shuffle) has the id idPrefix + i;
//  3. its output length is spec.OutputLen, or the line's output_tokens when
//     that is -1 (a line without one is an error);
//  4. unless spec.SkipChatTemplate, the prompt sent is the tokenizer's chat
//     template applied to one user message with the generation prompt and
//     spec.ChatTemplateKwargs; its length is the token count of the sent
//     text with special tokens;
//  5. then vLLM's oversampling (maybeOversample) up to numPrompts unless
//     spec.NoOversample.
//
// Without a tokenizer, as in vLLM, every prompt length and output length
// is 1 and no template is applied. Lines vLLM logs go to logw.
func Custom(ctx context.Context, spec CustomSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	if logw == nil {
		logw = io.Discard
	}
	kwargs, err := chatKwargs(spec.ChatTemplateKwargs)
	if err != nil {
		return nil, fmt.Errorf("chat_template_kwargs: %w", err)
	}
	lines, err := ReadCustomFile(spec.Path)
	if err != nil {
		return nil, err
	}
	return customRequests(ctx, lines, spec, kwargs, numPrompts, seed, tok, idPrefix, logw)
}

// customRequests is steps 1 to 5 of Custom on lines read from spec.Path:
// vLLM's CustomDataset.sample, which its spec_bench kind shares.
func customRequests(ctx context.Context, lines []CustomLine, spec CustomSpec, kwargs map[string]any, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	var err error
	if !spec.DisableShuffle {
		numpy.NewPyRandom(seed).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	if numPrompts <= 0 {
		numPrompts = len(lines)
		fmt.Fprintf(logw, "num_requests is set to 0 or negative, so using all available samples: %d\n", numPrompts)
	}
	reqs := make([]Request, 0, numPrompts)
	for i, l := range lines {
		if len(reqs) >= numPrompts {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := Request{Prompt: l.Prompt, PromptLen: 1, OutputLen: 1, ID: idPrefix + strconv.Itoa(i)}
		if tok != nil {
			r.OutputLen = spec.OutputLen
			if spec.OutputLen == -1 {
				if l.OutputTokens < 0 {
					return nil, fmt.Errorf("%s:%d: no \"output_tokens\": --custom-output-len -1 (dataset.custom.output_len) takes each line's output_tokens", spec.Path, l.Line)
				}
				r.OutputLen = l.OutputTokens
			}
			if !spec.SkipChatTemplate {
				r.Prompt, err = tokenizer.ApplyChatTemplate(tok, []tokenizer.Message{{Role: "user", Content: l.Prompt}}, true, kwargs)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", spec.Path, l.Line, err)
				}
			}
			r.PromptLen = len(tok.Encode(r.Prompt, true))
		}
		reqs = append(reqs, r)
	}
	return maybeOversample(reqs, numPrompts, seed, idPrefix, spec.NoOversample, logw)
}
