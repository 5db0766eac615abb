package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/tokenizer"
)

// bfclDefaultCategories are BFCLDataset.DEFAULT_CATEGORIES.
var bfclDefaultCategories = []string{"simple", "live_simple", "multiple"}

// bfclTypeRemap is BFCLDataset._TYPE_REMAP: BFCL's type names that are no
// JSON Schema types, and the JSON Schema type each becomes.
var bfclTypeRemap = map[string]string{"dict": "object", "float": "number", "tuple": "array", "any": "string"}

// bfclOutputLen is BFCLDataset.DEFAULT_OUTPUT_LEN.
const bfclOutputLen = 512

// bfclCategories is vLLM's _resolve_categories: the categories stripped,
// the empty ones dropped, the defaults when none is left.
func bfclCategories(in []string) []string {
	var out []string
	for _, c := range in {
		if c = pyStrip(c); c != "" {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return slices.Clone(bfclDefaultCategories)
	}
	return out
}

// pyStrip is Python's str.strip() without arguments: it also strips the
// ASCII separators U+001C to U+001F, which Python counts as whitespace.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return r >= 0x1c && r <= 0x1f || r == 0x85 || strings.ContainsRune(" \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000", r)
	})
}

// loadBFCL is vLLM's BFCLDataset (the Berkeley Function Calling
// Leaderboard), which reads no split: each category is the JSON-lines file
// BFCL_v3_<category>.json at the repository's root. The categories' rows
// are interleaved round-robin and shuffled with random.Random(seed) unless
// --disable-shuffle; each row with a question and functions becomes a
// request whose chat messages are its question's first turn, with the
// functions as OpenAI tools (BFCL's type names remapped) and tool_choice
// "auto" in its payload. Its prompt length is the chat template's
// rendering with the tools, or the messages' contents joined by newlines
// when the tokenizer has no template or it fails.
func loadBFCL(ctx context.Context, repo hfRepo, spec *HFSpec, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		if env.Tokenizer == nil {
			return nil, errors.New("the hf datasets need a client tokenizer: unset tokenizer.skip_init")
		}
		var per [][]*py.Object
		for _, c := range bfclCategories(spec.BFCLCategories) {
			rows, err := bfclCategory(ctx, repo, c)
			if err != nil {
				return nil, err
			}
			per = append(per, rows)
		}
		var rows []*py.Object
		for i := 0; ; i++ {
			more := false
			for _, p := range per {
				if i < len(p) {
					rows = append(rows, p[i])
					more = true
				}
			}
			if !more {
				break
			}
		}
		if !spec.DisableShuffle {
			numpy.NewPyRandom(env.Seed).Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		}
		outputLen := bfclOutputLen
		if spec.OutputLen != nil {
			outputLen = *spec.OutputLen
		}
		logw := env.Stderr
		if logw == nil {
			logw = io.Discard
		}
		var reqs []Request
		var templateErr error // the first failure of the chat template
		failed := 0
		for k, row := range rows {
			if len(reqs) >= env.NumPrompts {
				break
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r, ok, tmplErr, err := bfclRequest(row, env.Tokenizer)
			if err != nil {
				return nil, fmt.Errorf("BFCLDataset: row %d of the interleaved categories: %w", k, err)
			}
			if !ok {
				continue
			}
			if tmplErr != nil {
				failed++
				if templateErr == nil {
					templateErr = tmplErr
				}
			}
			r.OutputLen = outputLen
			r.ID = env.IDPrefix + strconv.Itoa(len(reqs))
			reqs = append(reqs, r)
		}
		if failed > 0 {
			fmt.Fprintf(logw, "WARNING: BFCL: apply_chat_template failed for %d of %d samples, whose prompt lengths fall back to their messages' plain text: %v\n", failed, len(reqs), templateErr)
		}
		if len(reqs) == 0 && env.NumPrompts > 0 && !spec.NoOversample {
			return nil, errors.New("BFCLDataset: no row has a question and functions, so there is nothing to sample or oversample")
		}
		return maybeOversampleFrom(env.PyGlobal, reqs, env.NumPrompts, env.Seed, env.IDPrefix, spec.NoOversample, logw)
	})
}

// bfclCategory reads one category's rows, in file order.
func bfclCategory(ctx context.Context, repo hfRepo, category string) ([]*py.Object, error) {
	name := "BFCL_v3_" + category + ".json"
	if !slices.Contains(repo.Files(), name) {
		return nil, fmt.Errorf("BFCL category '%s' not found: file '%s' does not exist in %s. Check --bfcl-categories (defaults: %s)",
			category, name, repo, strings.Join(bfclDefaultCategories, ", "))
	}
	p, err := repo.Local(ctx, name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []*py.Object
	err = eachLine(repo.Display(name), f, func(_ int, b []byte) error {
		v, err := py.Loads(b)
		if err != nil {
			return err
		}
		o, ok := v.(*py.Object)
		if !ok {
			return fmt.Errorf("a row is %s, expected a JSON object", hfKind(v))
		}
		rows = append(rows, o)
		return nil
	})
	return rows, err
}

// bfclRequest maps one BFCL row to its request, or reports that vLLM
// skips it (no question or functions, or a question without a first
// turn). The id and output length are the caller's. tmplErr is the chat
// template's failure (the prompt length then counts the messages' plain
// text), nil when it rendered.
func bfclRequest(row *py.Object, tok tokenizer.Tokenizer) (r Request, keep bool, tmplErr, err error) {
	question, _ := row.Get("question")
	functions, _ := row.Get("function")
	if !pyTruthy(question) || !pyTruthy(functions) {
		return Request{}, false, nil, nil
	}
	turns, ok := question.([]any)
	if !ok {
		return Request{}, false, nil, nil
	}
	first, ok := turns[0].([]any)
	if !ok || len(first) == 0 {
		return Request{}, false, nil, nil
	}
	fns, ok := functions.([]any)
	if !ok {
		fns = []any{functions}
	}
	tools := make([]any, len(fns))
	for i, fn := range fns {
		t := py.NewObject()
		t.Set("type", "function")
		t.Set("function", bfclSchema(fn))
		tools[i] = t
	}
	msgs := make([]Message, len(first))
	tmsgs := make([]tokenizer.Message, len(first))
	contents := make([]string, len(first))
	for i, m := range first {
		o, ok := m.(*py.Object)
		role, ok2 := objString(o, "role")
		content, ok3 := objString(o, "content")
		if !ok || !ok2 || !ok3 {
			return Request{}, false, nil, fmt.Errorf(`message %d of the question's first turn is not an object with "role" and "content" strings`, i)
		}
		msgs[i] = Message{Role: Role(role), Content: content}
		tmsgs[i] = tokenizer.Message{Role: role, Content: content}
		contents[i] = content
	}
	text := strings.Join(contents, "\n")
	rendered, tmplErr := tokenizer.ApplyChatTemplate(tok, tmsgs, true, map[string]any{"tools": tools})
	if tmplErr == nil {
		text = rendered
	}
	r = Request{Prompt: contents[len(contents)-1], PromptLen: len(tok.Encode(text, true)), Messages: msgs,
		ExtraBody: map[string]any{"tools": tools, "tool_choice": "auto"}}
	return r, true, tmplErr, nil
}

// bfclSchema is vLLM's _translate_schema: v with every object's "type"
// that names a BFCL type remapped (keys keep their order).
func bfclSchema(v any) any {
	switch x := v.(type) {
	case *py.Object:
		out := py.NewObject()
		for k, e := range x.All() {
			out.Set(k, bfclSchema(e))
		}
		if t, ok := out.Get("type"); ok {
			if s, ok := t.(string); ok {
				if to, ok := bfclTypeRemap[s]; ok {
					out.Set("type", to)
				}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = bfclSchema(e)
		}
		return out
	}
	return v
}

// objString returns o[key] when it is a string.
func objString(o *py.Object, key string) (string, bool) {
	if o == nil {
		return "", false
	}
	v, _ := o.Get(key)
	s, ok := v.(string)
	return s, ok
}

// pyTruthy is Python's bool(v) for a JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case *py.Object:
		return x.Len() > 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	}
	return true
}
