package tokenizer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// preTokenizer is a tokenizer.json pre-tokenizer: it cuts a normalized
// segment into the pieces the model tokenizes one by one. first says the
// segment starts the input (Metaspace's "first" prepend scheme needs it);
// each piece is passed on with its own first flag.
type preTokenizer interface {
	split(s string, first bool, emit func(piece string, first bool))
}

// preConfig is a parsed pre-tokenizer: the steps before an optional final
// ByteLevel step, and that step's settings.
type preConfig struct {
	steps     []preTokenizer
	byteLevel bool // the last step is ByteLevel: pieces are raw bytes
	// byteLevelPrefix is ByteLevel's add_prefix_space.
	byteLevelPrefix bool
}

// gpt2Pattern is the split pattern of ByteLevel's use_regex.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// parsePreTokenizer reads a tokenizer.json "pre_tokenizer" value.
func parsePreTokenizer(v *jvalue) (preConfig, error) {
	var pc preConfig
	var flat []*jvalue
	var wheres []string
	if err := flattenPre(v, "pre_tokenizer", &flat, &wheres); err != nil {
		return pc, err
	}
	for i, e := range flat {
		where := wheres[i]
		typ, _ := e.get("type").asString(where + ".type")
		switch typ {
		case "ByteLevel":
			if i != len(flat)-1 {
				return pc, fmt.Errorf("%s: a ByteLevel pre-tokenizer followed by another is not supported", where)
			}
			var err error
			if pc.byteLevelPrefix, err = e.get("add_prefix_space").asBool(where+".add_prefix_space", true); err != nil {
				return pc, err
			}
			useRegex, err := e.get("use_regex").asBool(where+".use_regex", true)
			if err != nil {
				return pc, err
			}
			pc.byteLevel = true
			if pc.byteLevelPrefix {
				pc.steps = append(pc.steps, prefixSpace{})
			}
			if useRegex {
				s, err := newSplit(gpt2Pattern, true, "Isolated", false)
				if err != nil {
					return pc, fmt.Errorf("%s: %w", where, err)
				}
				pc.steps = append(pc.steps, s)
			}
		case "Split":
			pat := e.get("pattern")
			var expr string
			isRegex := false
			if r := pat.get("Regex"); r != nil {
				s, err := r.asString(where + ".pattern.Regex")
				if err != nil {
					return pc, err
				}
				expr, isRegex = s, true
			} else {
				s, err := pat.get("String").asString(where + ".pattern.String")
				if err != nil {
					return pc, err
				}
				expr = s
			}
			behavior, err := e.get("behavior").asString(where + ".behavior")
			if err != nil {
				return pc, err
			}
			invert, err := e.get("invert").asBool(where+".invert", false)
			if err != nil {
				return pc, err
			}
			s, err := newSplit(expr, isRegex, behavior, invert)
			if err != nil {
				return pc, fmt.Errorf("%s: %w", where, err)
			}
			pc.steps = append(pc.steps, s)
		case "Metaspace":
			m, err := parseMetaspace(e, where)
			if err != nil {
				return pc, err
			}
			pc.steps = append(pc.steps, m)
		case "Digits":
			ind, err := e.get("individual_digits").asBool(where+".individual_digits", false)
			if err != nil {
				return pc, err
			}
			pc.steps = append(pc.steps, digitsSplit{individual: ind})
		case "WhitespaceSplit":
			pc.steps = append(pc.steps, whitespaceSplit{})
		default:
			return pc, fmt.Errorf("%s: pre-tokenizer %q is not supported (vbench supports ByteLevel, Split, Metaspace, Digits, WhitespaceSplit and Sequence)", where, typ)
		}
	}
	return pc, nil
}

// flattenPre lists the steps of a pre-tokenizer, expanding Sequences.
func flattenPre(v *jvalue, where string, out *[]*jvalue, wheres *[]string) error {
	if v.isNull() {
		return nil
	}
	typ, err := v.get("type").asString(where + ".type")
	if err != nil {
		return err
	}
	if typ != "Sequence" {
		*out = append(*out, v)
		*wheres = append(*wheres, where)
		return nil
	}
	list := v.get("pretokenizers")
	if list == nil || list.kind != jArray {
		return fmt.Errorf("%s.pretokenizers: want an array, got %s", where, list.kindName())
	}
	for i := range list.items() {
		e := &list.items()[i]
		if err := flattenPre(e, fmt.Sprintf("%s.pretokenizers[%d]", where, i), out, wheres); err != nil {
			return err
		}
	}
	return nil
}

// run passes s through steps[k:], calling emit for each final piece.
func runPre(steps []preTokenizer, s string, first bool, emit func(string, bool)) {
	if len(steps) == 0 {
		emit(s, first)
		return
	}
	if len(steps) == 1 {
		steps[0].split(s, first, emit)
		return
	}
	steps[0].split(s, first, func(p string, f bool) { runPre(steps[1:], p, f, emit) })
}

// prefixSpace is ByteLevel's add_prefix_space: a space before a piece that
// does not start with one.
type prefixSpace struct{}

func (prefixSpace) split(s string, first bool, emit func(string, bool)) {
	if s != "" && s[0] != ' ' {
		s = " " + s
	}
	emit(s, first)
}

// behaviour is a Split pre-tokenizer's SplitDelimiterBehavior.
type behaviour uint8

const (
	bRemoved behaviour = iota
	bIsolated
	bMergedWithPrevious
	bMergedWithNext
	bContiguous
)

var behaviours = map[string]behaviour{
	"Removed": bRemoved, "Isolated": bIsolated, "MergedWithPrevious": bMergedWithPrevious,
	"MergedWithNext": bMergedWithNext, "Contiguous": bContiguous,
}

// span is a piece of a string and whether it matched the pattern.
type span struct {
	start, end int
	match      bool
}

// splitPre is the Split pre-tokenizer. Patterns this package knows (the
// GPT-2, Llama-3 and Qwen2 patterns) with behaviour Isolated run on a
// hand-written matcher; any other regex runs on regexp2, a backtracking
// engine like the Oniguruma engine Hugging Face uses.
type splitPre struct {
	fast     splitFunc       // non-nil for a known pattern (Isolated, not inverted)
	re       *regexp2.Regexp // a regex pattern
	literal  string          // a String pattern
	behavior behaviour
	invert   bool
}

// knownSplits maps patterns to matchers written for them (GPT-2,
// Llama-3, Qwen2/3, gpt-oss, which uses o200k_base's, and Kimi K2). Each
// is checked against regexp2 by the tests.
var knownSplits = map[string]splitFunc{
	gpt2Pattern: splitR50k,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`: splitLlama3,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:      splitQwen2,
	o200kPattern: splitO200k, // gpt-oss
	kimiPattern:  splitKimi,
}

// dotnetClasses rewrites class intersections with a negated class,
// [A&&[^B]] (Rust's and Oniguruma's syntax, as in Kimi K2's pattern), as
// .NET's class subtraction [A-[B]], which regexp2 understands and which
// means the same. Other uses of && are left alone (regexp2 then reads
// them literally, or refuses them).
func dotnetClasses(expr string) string {
	const op = "&&[^"
	var sb strings.Builder
	for {
		i := strings.Index(expr, op)
		if i < 0 {
			sb.WriteString(expr)
			return sb.String()
		}
		// The negated class B ends at its first unescaped ']' (a nested
		// class is not rewritten), and the outer class must end right
		// after it.
		body := expr[i+len(op):]
		j := 0
		for j < len(body) && body[j] != ']' && body[j] != '[' {
			if body[j] == '\\' {
				j++
			}
			j++
		}
		if j+1 < len(body) && body[j] == ']' && body[j+1] == ']' {
			sb.WriteString(expr[:i])
			sb.WriteString("-[")
			sb.WriteString(body[:j+2])
		} else {
			sb.WriteString(expr[:i+len(op)])
			j = -2
		}
		expr = body[j+2:]
	}
}

func newSplit(expr string, isRegex bool, behavior string, invert bool) (*splitPre, error) {
	b, ok := behaviours[behavior]
	if !ok {
		return nil, fmt.Errorf("unknown Split behavior %q", behavior)
	}
	s := &splitPre{behavior: b, invert: invert}
	if !isRegex {
		s.literal = expr
		return s, nil
	}
	if f, ok := knownSplits[expr]; ok && b == bIsolated && !invert {
		s.fast = f
		return s, nil
	}
	re, err := regexp2.Compile(dotnetClasses(expr), regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("split pattern %q: %w", expr, err)
	}
	s.re = re
	return s, nil
}

func (sp *splitPre) split(s string, first bool, emit func(string, bool)) {
	if s == "" {
		return
	}
	if sp.fast != nil {
		rt, ok := decodeRunes(s)
		if !ok {
			// Normalized text is valid UTF-8; this cannot happen.
			emit(s, first)
			return
		}
		for p := 0; p < rt.n; {
			e := sp.fast(rt, p)
			emit(s[rt.off[p]:rt.off[e]], first && p == 0)
			p = e
		}
		rt.release()
		return
	}
	spans := sp.matches(s)
	if sp.invert {
		for i := range spans {
			spans[i].match = !spans[i].match
		}
	}
	for _, m := range applyBehaviour(spans, sp.behavior) {
		if m.end > m.start {
			emit(s[m.start:m.end], first && m.start == 0)
		}
	}
}

// matches cuts s into matches of the pattern and the text between them.
func (sp *splitPre) matches(s string) []span {
	var spans []span
	prev := 0
	add := func(start, end int) {
		if prev != start {
			spans = append(spans, span{prev, start, false})
		}
		spans = append(spans, span{start, end, true})
		prev = end
	}
	if sp.re == nil {
		if sp.literal != "" {
			for i := 0; ; {
				j := strings.Index(s[i:], sp.literal)
				if j < 0 {
					break
				}
				add(i+j, i+j+len(sp.literal))
				i += j + len(sp.literal)
			}
		}
	} else {
		// regexp2 reports rune offsets.
		var off []int
		for i := range s {
			off = append(off, i)
		}
		off = append(off, len(s))
		m, err := sp.re.FindStringMatch(s)
		for err == nil && m != nil {
			add(off[m.Index], off[m.Index+m.Length])
			m, err = sp.re.FindNextMatch(m)
		}
	}
	if prev != len(s) {
		spans = append(spans, span{prev, len(s), false})
	}
	return spans
}

// applyBehaviour turns matches and gaps into pieces as Hugging Face's
// NormalizedString::split does for each SplitDelimiterBehavior.
func applyBehaviour(spans []span, b behaviour) []span {
	var out []span
	switch b {
	case bIsolated:
		return spans
	case bRemoved:
		for _, m := range spans {
			if !m.match {
				out = append(out, m)
			}
		}
	case bMergedWithPrevious:
		prevMatch := false
		for _, m := range spans {
			if m.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = m.end
			} else {
				out = append(out, m)
			}
			prevMatch = m.match
		}
	case bMergedWithNext:
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			m := spans[i]
			if m.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].start = m.start
			} else {
				out = append(out, m)
			}
			prevMatch = m.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case bContiguous:
		prevMatch := false
		for _, m := range spans {
			if m.match == prevMatch && len(out) > 0 {
				out[len(out)-1].end = m.end
			} else {
				out = append(out, m)
			}
			prevMatch = m.match
		}
	}
	return out
}

// metaspace is the Metaspace pre-tokenizer: spaces become the replacement
// character, which is prepended per the prepend scheme, and with split the
// text is cut before each replacement character.
type metaspace struct {
	replacement string
	scheme      string // "always", "first" or "never"
	splitOn     bool
}

// parseMetaspace reads a Metaspace pre-tokenizer or decoder, current
// (prepend_scheme) or legacy (add_prefix_space).
func parseMetaspace(v *jvalue, where string) (*metaspace, error) {
	rep, err := v.get("replacement").optString(where+".replacement", "▁")
	if err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(rep) != 1 {
		return nil, fmt.Errorf("%s.replacement %q: want one character", where, rep)
	}
	m := &metaspace{replacement: rep, scheme: "always", splitOn: true}
	if ps := v.get("prepend_scheme"); !ps.isNull() {
		s, err := ps.asString(where + ".prepend_scheme")
		if err != nil {
			return nil, err
		}
		if s != "always" && s != "first" && s != "never" {
			return nil, fmt.Errorf("%s.prepend_scheme %q: want always, first or never", where, s)
		}
		m.scheme = s
	} else if ap := v.get("add_prefix_space"); !ap.isNull() {
		add, err := ap.asBool(where+".add_prefix_space", true)
		if err != nil {
			return nil, err
		}
		if !add {
			m.scheme = "never"
		}
	}
	if m.splitOn, err = v.get("split").asBool(where+".split", true); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *metaspace) split(s string, first bool, emit func(string, bool)) {
	s = strings.ReplaceAll(s, " ", m.replacement)
	if s != "" && !strings.HasPrefix(s, m.replacement) {
		if m.scheme == "always" || m.scheme == "first" && first {
			s = m.replacement + s
		}
	}
	if !m.splitOn {
		if s != "" {
			emit(s, first)
		}
		return
	}
	start := 0
	_, first1 := utf8.DecodeRuneInString(s)
	for i := first1; i <= len(s); {
		j := strings.Index(s[i:], m.replacement)
		if j < 0 {
			break
		}
		if i+j > start {
			emit(s[start:i+j], first && start == 0)
		}
		start = i + j
		i = start + len(m.replacement)
	}
	if start < len(s) {
		emit(s[start:], first && start == 0)
	}
}

// digitsSplit is the Digits pre-tokenizer: runs of numeric characters (or
// each one, with individual_digits) become pieces of their own.
type digitsSplit struct{ individual bool }

func (d digitsSplit) split(s string, first bool, emit func(string, bool)) {
	var spans []span
	for i, r := range s {
		spans = append(spans, span{i, i + utf8.RuneLen(r), unicode.IsNumber(r)})
	}
	b := bContiguous
	if d.individual {
		b = bIsolated
	}
	// Contiguous merges runs of matches and runs of non-matches alike.
	for _, m := range applyBehaviour(mergeRuns(spans, d.individual), b) {
		emit(s[m.start:m.end], first && m.start == 0)
	}
}

// mergeRuns joins adjacent non-matching characters (and, unless isolated,
// matching ones) into runs.
func mergeRuns(spans []span, isolated bool) []span {
	var out []span
	for _, m := range spans {
		if n := len(out); n > 0 && out[n-1].match == m.match && (!m.match || !isolated) {
			out[n-1].end = m.end
			continue
		}
		out = append(out, m)
	}
	return out
}

// whitespaceSplit is the WhitespaceSplit pre-tokenizer: pieces are the
// runs of non-white-space characters.
type whitespaceSplit struct{}

func (whitespaceSplit) split(s string, first bool, emit func(string, bool)) {
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				emit(s[start:i], first && start == 0)
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		emit(s[start:], first && start == 0)
	}
}
