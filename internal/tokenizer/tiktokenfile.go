package tokenizer

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Custom tiktoken rank files (*.tiktoken, and the tiktoken.model that
// Llama-3's original checkpoints and Kimi ship) are loaded as vLLM's Rust
// client loads them: the base tokens from the file, then 256 reserved
// special-token slots right after them, named from tokenizer_config.json's
// added_tokens_decoder or <|reserved_token_i|>. Special-token text in the
// input is encoded as the special token, as tiktoken's encode with
// allowed_special="all" does.

// DefaultTiktokenPattern is the split pattern of a rank file whose model
// ships none: Llama-3's (cl100k_base's before tiktoken made it possessive),
// as in vLLM's Rust client.
const DefaultTiktokenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// numReservedSpecial is the number of special-token slots after the base
// tokens (TikTokenTokenizer.num_reserved_special_tokens).
const numReservedSpecial = 256

// o200kPattern is o200k_base's split pattern.
var o200kPattern = strings.Join([]string{
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`\p{N}{1,3}`,
	` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
	`\s*[\r\n]+`,
	`\s+(?!\S)`,
	`\s+`,
}, "|")

// kimiPattern is the split pattern of Kimi K2's tiktoken.model (the
// pat_str of its tokenization_kimi.py).
var kimiPattern = strings.Join([]string{
	`[\p{Han}]+`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`\p{N}{1,3}`,
	` ?[^\s\p{L}\p{N}]+[\r\n]*`,
	`\s*[\r\n]+`,
	`\s+(?!\S)`,
	`\s+`,
}, "|")

// tiktokenPatterns are the split patterns a rank file can use: those with
// a matcher in this package.
var tiktokenPatterns = map[string]splitFunc{
	DefaultTiktokenPattern: splitLlama3,
	`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`: splitCl100k,
	o200kPattern: splitO200k,
	kimiPattern:  splitKimi,
	gpt2Pattern:  splitR50k,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`: splitQwen2,
}

// NewTiktokenFile builds a tokenizer from a tiktoken rank file ("base64
// rank" lines), the model's tokenizer_config.json (nil when absent) and
// its split pattern ("" for DefaultTiktokenPattern). Only patterns this
// package has a matcher for are accepted (the built-in encodings',
// Llama-3's, Qwen2's, GPT-2's and Kimi K2's); any other fails with an
// error quoting it.
//
// VocabSize is the number of base tokens plus 256; SpecialIDs are the 256
// reserved slots and the config's tokens marked special.
func NewTiktokenFile(name string, ranks, config []byte, pattern string) (*Tiktoken, error) {
	if pattern == "" {
		pattern = DefaultTiktokenPattern
	}
	split, ok := tiktokenPatterns[pattern]
	if !ok {
		return nil, fmt.Errorf("tokenizer %s: the split pattern %q is not supported (vbench has matchers for the patterns of o200k_base, cl100k_base, r50k_base, Llama-3, Qwen2 and Kimi K2)", name, pattern)
	}
	base := 0
	for line := range bytes.Lines(ranks) {
		if len(bytes.Fields(line)) >= 2 {
			base++
		}
	}
	if base == 0 {
		return nil, fmt.Errorf("tokenizer %s: the rank file has no tokens", name)
	}
	var cfg *tokenizerConfig
	if config != nil {
		var err error
		if cfg, err = parseConfig(config); err != nil {
			return nil, fmt.Errorf("tokenizer %s: tokenizer_config.json: %w", name, err)
		}
	}
	specials := make(map[string]int, numReservedSpecial)
	var specialIDs []int
	for i := range numReservedSpecial {
		id := base + i
		content := fmt.Sprintf("<|reserved_token_%d|>", i)
		if cfg != nil {
			if a, ok := cfg.added[id]; ok {
				content = a.content
			}
		}
		specials[content] = id
		specialIDs = append(specialIDs, id)
	}
	if cfg != nil {
		for id, a := range cfg.added {
			if a.special {
				specialIDs = append(specialIDs, id)
			}
		}
	}
	t, err := newTiktoken(name, bytes.TrimRight(ranks, "\r\n\t "), specials, split)
	if err != nil {
		return nil, err
	}
	slices.Sort(specialIDs)
	t.specialIDs = slices.Compact(specialIDs)
	t.vocabSize = base + numReservedSpecial
	toks := make([]*addedToken, 0, len(specials))
	pats := make([]string, 0, len(specials))
	for content, id := range specials {
		toks = append(toks, &addedToken{id: id, content: content, special: true})
		pats = append(pats, content)
	}
	t.specialText = newAddedMatcher(toks, pats)
	t.chat = newChatTemplate(name, cfg)
	return t, nil
}

// ExtractTiktokenPattern finds the split pattern in the Python source of a
// model's tokenizer (tokenization_kimi.py, tokenizer.py): the string
// assigned to pat_str, written as one literal or as "|".join([...]) of
// literals. ok is false when there is none.
func ExtractTiktokenPattern(src string) (string, bool) {
	i := strings.Index(src, "pat_str")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(src[i+len("pat_str"):], " \t")
	if !strings.HasPrefix(rest, "=") {
		return "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n(")
	if sep, after, ok := pyString(rest); ok {
		after = strings.TrimLeft(after, " \t\r\n")
		if !strings.HasPrefix(after, ".join(") {
			return sep, true // a single literal
		}
		after = strings.TrimLeft(after[len(".join("):], " \t\r\n")
		if !strings.HasPrefix(after, "[") {
			return "", false
		}
		after = after[1:]
		var parts []string
		for {
			after = skipPySpace(after)
			if strings.HasPrefix(after, "]") {
				return strings.Join(parts, sep), len(parts) > 0
			}
			p, next, ok := pyString(after)
			if !ok {
				return "", false
			}
			parts = append(parts, p)
			after = skipPySpace(next)
			after = strings.TrimPrefix(after, ",")
		}
	}
	return "", false
}

// skipPySpace skips white space and comments.
func skipPySpace(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if !strings.HasPrefix(s, "#") {
			return s
		}
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i:]
		} else {
			return ""
		}
	}
}

// pyString parses a Python string literal (prefixes r, u, b in any case;
// single or triple quotes) at the start of s, and returns its value and
// the rest of s.
func pyString(s string) (val, rest string, ok bool) {
	raw := false
	i := 0
	for i < len(s) && i < 2 && strings.ContainsRune("rRuUbB", rune(s[i])) {
		if s[i] == 'r' || s[i] == 'R' {
			raw = true
		}
		i++
	}
	if i >= len(s) || (s[i] != '"' && s[i] != '\'') {
		return "", s, false
	}
	q := s[i : i+1]
	if strings.HasPrefix(s[i:], q+q+q) {
		q = q + q + q
	}
	body := s[i+len(q):]
	var sb strings.Builder
	for k := 0; k < len(body); k++ {
		if strings.HasPrefix(body[k:], q) {
			return sb.String(), body[k+len(q):], true
		}
		c := body[k]
		if c == '\\' && k+1 < len(body) {
			if raw {
				sb.WriteByte(c)
				sb.WriteByte(body[k+1])
				k++
				continue
			}
			k++
			switch body[k] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case '\\', '\'', '"':
				sb.WriteByte(body[k])
			case '\n':
			default:
				sb.WriteByte('\\')
				sb.WriteByte(body[k])
			}
			continue
		}
		if len(q) == 1 && c == '\n' {
			return "", s, false
		}
		sb.WriteByte(c)
	}
	return "", s, false
}
