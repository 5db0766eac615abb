package dataset

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// The column names the generic hf sampler looks for, in priority order,
// as vLLM's Rust client (rust/src/bench/src/datasets/hf_dataset.rs) does.
var (
	hfChatColumns   = []string{"conversation", "conversations", "messages"}
	hfTextColumns   = []string{"prompt", "question", "problem", "input", "text", "content", "instruction"}
	hfOutputColumns = []string{"completion", "response", "answer", "output", "solution", "answers"}
)

// hfDefaultOutputLen is the output length of a generic hf request when
// neither --hf-output-len nor an output column gives one (the Rust
// client's default).
const hfDefaultOutputLen = 128

// hfFormat is how the generic sampler reads a row.
type hfFormat struct {
	chat    string   // the chat column, or ""
	prompt  []string // the prompt column(s), joined by a blank line
	turns   bool     // prompt[0] is a list of strings: take the first
	output  string   // the output column, or ""
	columns []string // the first row's columns, sorted (for messages)
}

// String describes the format in a log line.
func (f hfFormat) String() string {
	var s string
	switch {
	case f.chat != "":
		s = fmt.Sprintf("chat column %q", f.chat)
	case f.turns:
		s = `column "turns" (first turn)`
	default:
		s = "prompt column " + strings.Join(quoteAll(f.prompt), " + ")
	}
	if f.output != "" {
		s += fmt.Sprintf(", output column %q", f.output)
	}
	return s
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// isChatMessage reports whether v is {role, content} or {from, value}.
func isChatMessage(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, role := m["role"]
	_, content := m["content"]
	_, from := m["from"]
	_, value := m["value"]
	return role && content || from && value
}

func isChatList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) > 0 && !slices.ContainsFunc(l, func(e any) bool { return !isChatMessage(e) })
}

// detectHFFormat picks the prompt and output columns from the first row
// as the Rust client does: a chat column holding chat messages, then
// "turns" (a list of strings), then "context" with "input", then the
// first text column present.
//
// A text column given (vllm-bench's --hf-text-column) replaces the search
// for the prompt: it must be in the row; a list of chat messages there
// gives its first user message, anything else is the text. The output
// column is still found.
func detectHFFormat(row hfRow, textColumn string) (hfFormat, error) {
	f := hfFormat{}
	for k := range row {
		f.columns = append(f.columns, k)
	}
	slices.Sort(f.columns)
	for _, c := range hfOutputColumns {
		if _, ok := row[c]; ok {
			f.output = c
			break
		}
	}
	if c := textColumn; c != "" {
		v, ok := row[c]
		switch {
		case !ok:
			return f, fmt.Errorf("text_column %q is not a column: the columns are %s", c, strings.Join(f.columns, ", "))
		case isChatList(v):
			f.chat = c
		default:
			f.prompt = []string{c}
		}
		return f, nil
	}
	for _, c := range hfChatColumns {
		if isChatList(row[c]) {
			f.chat, f.output = c, ""
			return f, nil
		}
	}
	if l, ok := row["turns"].([]any); ok && len(l) > 0 {
		if _, ok := l[0].(string); ok {
			f.prompt, f.turns = []string{"turns"}, true
			return f, nil
		}
	}
	_, ctx := row["context"]
	_, input := row["input"]
	if ctx && input {
		f.prompt = []string{"context", "input"}
		return f, nil
	}
	for _, c := range hfTextColumns {
		if _, ok := row[c]; ok {
			f.prompt = []string{c}
			return f, nil
		}
	}
	return f, fmt.Errorf("no prompt column: the columns are %s; expected a chat column (%s: a list of {role, content} or {from, value}), \"turns\", \"context\" with \"input\", or one of %s",
		strings.Join(f.columns, ", "), strings.Join(hfChatColumns, ", "), strings.Join(hfTextColumns, ", "))
}

// extract returns a row's prompt and completion ("" for none); skip
// reports a row without a prompt (a null or absent column, a chat without
// a user message), which the sampler skips as the Rust client does.
func (f hfFormat) extract(row hfRow) (prompt, completion string, skip bool, err error) {
	if f.chat != "" {
		v := row[f.chat]
		if v == nil {
			return "", "", true, nil
		}
		msgs, ok := v.([]any)
		if !ok {
			return "", "", false, fmt.Errorf("column %q: expected a list of chat messages ({role, content} or {from, value}), found %s", f.chat, hfKind(v))
		}
		p, okP := chatTurn(msgs, "user", "human")
		c, _ := chatTurn(msgs, "assistant", "gpt")
		return p, c, !okP || p == "", nil
	}
	var parts []string
	for _, c := range f.prompt {
		v := row[c]
		if v == nil {
			continue
		}
		if f.turns {
			l, ok := v.([]any)
			if !ok {
				return "", "", false, fmt.Errorf("column %q: expected a list of strings, found %s", c, hfKind(v))
			}
			if len(l) == 0 {
				continue
			}
			v = l[0]
		}
		s, ok := v.(string)
		if !ok {
			return "", "", false, fmt.Errorf("column %q: expected a string, found %s", c, hfKind(v))
		}
		parts = append(parts, s)
	}
	prompt = strings.Join(parts, "\n\n")
	if f.output != "" {
		v := row[f.output]
		if l, ok := v.([]any); ok {
			v = nil
			if len(l) > 0 {
				v = l[0]
			}
		}
		switch v := v.(type) {
		case nil:
		case string:
			completion = v
		case float64, bool:
			completion = fmt.Sprint(v)
		default:
			return "", "", false, fmt.Errorf("column %q: expected a string, found %s", f.output, hfKind(v))
		}
	}
	return prompt, completion, prompt == "", nil
}

// chatTurn returns the content of the first message by one of roles.
func chatTurn(msgs []any, roles ...string) (string, bool) {
	for _, m := range msgs {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		role, _ := mm["role"].(string)
		if role == "" {
			role, _ = mm["from"].(string)
		}
		content, ok := mm["content"].(string)
		if !ok {
			content, ok = mm["value"].(string)
		}
		if ok && slices.Contains(roles, role) {
			return content, true
		}
	}
	return "", false
}

// hfGeneric samples a dataset that none of vLLM's classes serves, as
// vLLM's Rust client samples any Hugging Face dataset: the format comes
// from the first row (detectHFFormat); each row gives its prompt (the
// first user message of a chat) and completion; the prompt length is its
// token count without special tokens, and a prompt under 4 tokens is
// skipped; the output length is --hf-output-len, else the completion's
// token count, else 128. Request ids count the kept rows. Unless
// no_oversample, fewer than num_prompts requests are padded as vLLM's
// maybe_oversample_requests does.
func hfGeneric(ctx context.Context, id string, rows *hfRows, spec *HFSpec, env Env) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		var reqs []Request
		var f hfFormat
		detected, warned := false, false
		examined := 0
		for r, err := range rows.all(ctx) {
			if err != nil {
				yield(Request{}, err)
				return
			}
			if !detected {
				if f, err = detectHFFormat(r.row, spec.TextColumn); err != nil {
					yield(Request{}, fmt.Errorf("%s row %d: %w", r.file, r.index, err))
					return
				}
				detected = true
				fmt.Fprintf(env.Stderr, "hf: %s is not one of vLLM's hf datasets: reading %s (subset %q, split %q: %s)\n",
					id, f, rows.split.Subset, rows.split.Split, rows.split.describe())
			}
			examined++
			prompt, completion, skip, err := f.extract(r.row)
			if err != nil {
				yield(Request{}, fmt.Errorf("%s row %d: %w", r.file, r.index, err))
				return
			}
			if skip {
				continue
			}
			promptLen := len(env.Tokenizer.Encode(prompt, false))
			if promptLen < shareGPTMinLen {
				continue
			}
			out := hfDefaultOutputLen
			switch {
			case spec.OutputLen != nil:
				out = *spec.OutputLen
			case completion != "":
				if n := len(env.Tokenizer.Encode(completion, false)); n > 0 {
					out = n
				}
			default:
				if !warned {
					fmt.Fprintf(env.Stderr, "hf: %s: no output column and no --hf-output-len: each request asks for %d tokens\n", id, hfDefaultOutputLen)
					warned = true
				}
			}
			reqs = append(reqs, Request{Prompt: prompt, PromptLen: promptLen, OutputLen: out, ID: env.IDPrefix + strconv.Itoa(len(reqs))})
			// Stop before pulling another row: it could be in a file
			// not needed (a download, on the Hub).
			if env.NumPrompts > 0 && len(reqs) >= env.NumPrompts {
				break
			}
		}
		if !detected {
			yield(Request{}, fmt.Errorf("%s: the split %q has no rows", id, rows.split.Split))
			return
		}
		kept := len(reqs)
		if kept == 0 && !spec.NoOversample && env.NumPrompts > 0 {
			yield(Request{}, fmt.Errorf("%s: no row has a prompt of at least %d tokens, so there is nothing to oversample", id, shareGPTMinLen))
			return
		}
		reqs, err := maybeOversampleFrom(env.PyGlobal, reqs, env.NumPrompts, env.Seed, env.IDPrefix, spec.NoOversample, env.Stderr)
		if err != nil {
			yield(Request{}, fmt.Errorf("%s: %w", id, err))
			return
		}
		if env.Counts != nil {
			*env.Counts = Counts{Filtered: true, Examined: examined, Dropped: examined - kept, Oversampled: len(reqs) - kept}
		}
		for _, r := range reqs {
			if !yield(r, nil) {
				return
			}
		}
	}
}
