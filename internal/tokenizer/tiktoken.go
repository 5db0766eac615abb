package tokenizer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// builtinSpec describes one of OpenAI's tiktoken encodings.
type builtinSpec struct {
	file     string         // rank file embedded by tiktoken-go-loader
	specials map[string]int // special token text -> id
	split    splitFunc
}

var builtinSpecs = map[string]builtinSpec{
	"o200k_base": {
		file:     "o200k_base.tiktoken",
		specials: map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
		split:    splitO200k,
	},
	"cl100k_base": {
		file: "cl100k_base.tiktoken",
		specials: map[string]int{
			"<|endoftext|>":   100257,
			"<|fim_prefix|>":  100258,
			"<|fim_middle|>":  100259,
			"<|fim_suffix|>":  100260,
			"<|endofprompt|>": 100276,
		},
		split: splitCl100k,
	},
	"p50k_base": {
		file:     "p50k_base.tiktoken",
		specials: map[string]int{"<|endoftext|>": 50256},
		split:    splitR50k,
	},
	"r50k_base": {
		file:     "r50k_base.tiktoken",
		specials: map[string]int{"<|endoftext|>": 50256},
		split:    splitR50k,
	},
}

// builtinNames lists the built-in encodings in the order messages use.
var builtinNames = []string{"o200k_base", "cl100k_base", "p50k_base", "r50k_base"}

// BuiltinNames returns the names of the built-in tiktoken encodings:
// o200k_base, cl100k_base, p50k_base, r50k_base.
func BuiltinNames() []string { return slices.Clone(builtinNames) }

// IsBuiltin reports whether name is a built-in tiktoken encoding.
func IsBuiltin(name string) bool {
	_, ok := builtinSpecs[name]
	return ok
}

type builtinEntry struct {
	once sync.Once
	tok  *Tiktoken
	err  error
}

var builtinCache sync.Map // name -> *builtinEntry

// Builtin returns the built-in tiktoken encoding name (o200k_base,
// cl100k_base, p50k_base or r50k_base), loaded from the rank files embedded
// in the binary, so it works offline. Each encoding is built at most once
// per process and shared; a Tiktoken is safe for concurrent use.
func Builtin(name string) (Tokenizer, error) {
	t, err := builtin(name)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// builtin is Builtin with the concrete type.
func builtin(name string) (*Tiktoken, error) {
	spec, ok := builtinSpecs[name]
	if !ok {
		return nil, fmt.Errorf("unknown built-in tokenizer %q: want one of %s", name, strings.Join(builtinNames, ", "))
	}
	v, _ := builtinCache.LoadOrStore(name, new(builtinEntry))
	e := v.(*builtinEntry)
	e.once.Do(func() {
		data, err := assets.Assets.ReadFile(spec.file)
		if err != nil {
			e.err = fmt.Errorf("load tokenizer %s: %w", name, err)
			return
		}
		e.tok, e.err = newTiktoken(name, data, spec.specials, spec.split)
	})
	return e.tok, e.err
}

// Tiktoken is a tiktoken byte-level BPE encoding (OpenAI's rank files).
//
// Encode works like tiktoken's encode_ordinary: the text is split into
// pieces by the encoding's pattern (as tiktoken writes it today, matched
// with the semantics of Rust's regex crate), and each piece is BPE-merged
// by rank.
// With the built-in encodings, text that spells a special token (such as
// "<|endoftext|>") is encoded as ordinary text, never as the special id;
// with a custom rank file (NewTiktokenFile) it is encoded as the special
// token, as vLLM's Rust client does. Decode concatenates the tokens' bytes
// (special ids decode to their text) and converts them to a string as
// LossyUTF8 does; ids that are neither a token nor a special token are
// skipped.
//
// A Tiktoken is safe for concurrent use. Get one from Builtin or
// NewTiktokenFile; the zero value is not usable.
type Tiktoken struct {
	name       string
	bpe        bpe
	decoder    decoder
	specials   map[int]string
	specialIDs []int
	split      splitFunc
	memo       *encodeMemo
	vocabSize  int
	// specialText finds special tokens in the text to encode (custom
	// rank files, encoded as tiktoken's encode with allowed_special
	// "all"); nil for the built-in encodings.
	specialText *addedMatcher
	// chat is the chat template of a rank file's config; nil for the
	// built-in encodings.
	chat *chatTemplate
}

var _ Tokenizer = (*Tiktoken)(nil)

// newTiktoken parses a .tiktoken rank file: one "base64(token) rank" pair
// per line.
func newTiktoken(name string, data []byte, specials map[string]int, split splitFunc) (*Tiktoken, error) {
	type entry struct{ rank, off, n int }
	entries := make([]entry, 0, bytes.Count(data, []byte{'\n'})+1)
	arena := make([]byte, 0, len(data)*3/4)
	maxRank := -1
	for lineNo := 1; len(data) > 0; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimRight(line, "\r \t")
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("tokenizer %s: rank file line %d: want \"token rank\"", name, lineNo)
		}
		rank, err := strconv.Atoi(string(line[sp+1:]))
		if err != nil || rank < 0 || rank > maxRank24 {
			return nil, fmt.Errorf("tokenizer %s: rank file line %d: bad rank %q", name, lineNo, line[sp+1:])
		}
		off := len(arena)
		arena = slices.Grow(arena, base64.StdEncoding.DecodedLen(sp))
		n, err := base64.StdEncoding.Decode(arena[off:off+base64.StdEncoding.DecodedLen(sp)], line[:sp])
		if err != nil || n == 0 {
			return nil, fmt.Errorf("tokenizer %s: rank file line %d: bad token %q", name, lineNo, line[:sp])
		}
		arena = arena[:off+n]
		entries = append(entries, entry{rank, off, n})
		maxRank = max(maxRank, rank)
	}
	// Lay the tokens out in rank order, so runs of consecutive ids decode
	// from consecutive memory.
	slices.SortFunc(entries, func(a, b entry) int { return a.rank - b.rank })
	text := make([]byte, 0, len(arena))
	off := make([]uint32, maxRank+2)
	next := 0
	for i, e := range entries {
		if i > 0 && entries[i-1].rank == e.rank {
			return nil, fmt.Errorf("tokenizer %s: rank %d appears twice", name, e.rank)
		}
		for ; next <= e.rank; next++ {
			off[next] = uint32(len(text))
		}
		text = append(text, arena[e.off:e.off+e.n]...)
	}
	for ; next < len(off); next++ {
		off[next] = uint32(len(text))
	}
	dec := decoder{arena: string(text), off: off}
	bpe, err := newBPE(dec)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	t := &Tiktoken{
		name:      name,
		bpe:       bpe,
		decoder:   dec,
		specials:  make(map[int]string, len(specials)),
		split:     split,
		memo:      newEncodeMemo(),
		vocabSize: len(entries),
	}
	for text, id := range specials {
		t.specials[id] = text
		t.specialIDs = append(t.specialIDs, id)
	}
	slices.Sort(t.specialIDs)
	return t, nil
}

// decoder holds every token's bytes in one string, in rank order: the
// token of rank r is arena[off[r]:off[r+1]], empty where r is not a rank.
type decoder struct {
	arena string
	off   []uint32
}

// isRank reports whether r is the rank of a token.
func (d *decoder) isRank(r int) bool {
	return r >= 0 && r+1 < len(d.off) && d.off[r+1] > d.off[r]
}

// token returns the bytes of rank r, "" when there is none.
func (d *decoder) token(r int) string {
	if r < 0 || r+1 >= len(d.off) {
		return ""
	}
	return d.arena[d.off[r]:d.off[r+1]]
}

// Name returns the encoding name, e.g. "o200k_base".
func (t *Tiktoken) Name() string { return t.name }

// VocabSize is the number of mergeable ranks (199998 for o200k_base,
// 100256 for cl100k_base, 50280 for p50k_base, 50256 for r50k_base); the
// special tokens are not counted, as Hugging Face's vocab_size leaves out
// added tokens.
func (t *Tiktoken) VocabSize() int { return t.vocabSize }

// SpecialIDs returns the ids of the encoding's special tokens, ascending.
func (t *Tiktoken) SpecialIDs() []int { return slices.Clone(t.specialIDs) }

// NumSpecialTokensToAdd is 0: tiktoken encodings add no BOS or EOS.
func (t *Tiktoken) NumSpecialTokensToAdd() int { return 0 }

// Encode returns the token ids of text. addSpecial has no effect (nothing
// is added). Special-token text is encoded as ordinary text by the
// built-in encodings and as the special token by custom rank files.
// Invalid UTF-8 is first replaced as LossyUTF8 does, since Python strings
// cannot hold it.
//
// Encode remembers recent long texts: a text sharing a prefix with one of
// them reuses the pieces the prefix determines (see memo.go), with the same
// result as encoding from scratch.
func (t *Tiktoken) Encode(text string, addSpecial bool) []int {
	if t.specialText == nil {
		return t.encodeOrdinary(text)
	}
	if !utf8.ValidString(text) {
		text = LossyUTF8([]byte(text))
	}
	var out []int
	var buf [16]segment
	for _, seg := range t.specialText.split(text, 0, buf[:0]) {
		if seg.id >= 0 {
			out = append(out, seg.id)
		} else {
			out = append(out, t.encodeOrdinary(seg.text)...)
		}
	}
	if out == nil {
		out = []int{}
	}
	return out
}

// encodeOrdinary is tiktoken's encode_ordinary.
func (t *Tiktoken) encodeOrdinary(text string) []int {
	if text == "" {
		return []int{}
	}
	var m *memoEntry
	common := 0
	if len(text) >= memoKeyLen && len(text) < memoMaxLen {
		m, common = t.memo.best(text)
	}
	var pieces []memoPiece
	var out []int
	start := 0 // byte offset where encoding from scratch begins
	if m != nil {
		if common == len(text) && common == len(m.text) {
			return widen(nil, m.tokens)
		}
		k := 0
		for k < len(m.pieces) && int(m.pieces[k].need) <= common {
			k++
		}
		pieces = make([]memoPiece, k, k+(len(text)-common)/8+8)
		copy(pieces, m.pieces[:k])
		reused := len(m.tokens)
		start = len(m.text)
		if k < len(m.pieces) {
			reused, start = int(m.pieces[k].tok), int(m.pieces[k].start)
		}
		out = widen(make([]int, 0, reused+(len(text)-start)/2+8), m.tokens[:reused])
	} else {
		pieces = make([]memoPiece, 0, len(text)/8+8)
	}
	first := len(pieces)

	// Pass 1: split the rest of the text into pieces. (text[:start] is
	// shared with a remembered text, so it is valid UTF-8.)
	rt, ok := decodeRunes(text[start:])
	if !ok {
		return t.encodeOrdinary(LossyUTF8([]byte(text)))
	}
	for p := 0; p < rt.n; {
		rt.hi = p
		e := t.split(rt, p)
		need := len(text) + 1 // the scan checked for the end of the text
		if rt.hi < rt.n {
			need = start + rt.off[rt.hi+1]
		}
		pieces = append(pieces, memoPiece{start: int32(start + rt.off[p]), need: int32(need)})
		p = e
	}
	rt.release()

	// Pass 2: look every piece up as a whole token.
	ranks := make([]uint32, len(pieces)-first)
	merged := t.bpe.vocab.getAll(text, pieces[first:], ranks)

	// Pass 3: emit the tokens, merging the pieces that are not tokens.
	out = slices.Grow(out, len(ranks)+3*merged)
	for k := first; k < len(pieces); k++ {
		pieces[k].tok = int32(len(out))
		if r := ranks[k-first]; r != noRank {
			out = append(out, int(r))
			continue
		}
		out = t.bpe.merge(text[pieces[k].start:pieceEnd(pieces, k, text)], out)
	}
	if len(text) >= memoKeyLen && len(text) < memoMaxLen {
		t.memo.put(text, out, pieces)
	}
	return out
}

// pieceEnd returns the end of piece k: the next piece's start, or the end
// of the text.
func pieceEnd(pieces []memoPiece, k int, text string) int {
	if k+1 < len(pieces) {
		return int(pieces[k+1].start)
	}
	return len(text)
}

// Decode returns the text of ids: the concatenated token bytes converted
// with LossyUTF8, so a token sequence that cuts a multi-byte character
// yields U+FFFD exactly where Python's errors="replace" puts it. Special
// ids decode to their text; ids that are neither are skipped.
func (t *Tiktoken) Decode(ids []int) string {
	bp := decodeBufPool.Get().(*[]byte)
	b := (*bp)[:0]
	d := &t.decoder
	for i := 0; i < len(ids); {
		id := ids[i]
		if !d.isRank(id) {
			b = append(b, t.specials[id]...)
			i++
			continue
		}
		// Ranks are laid out in order, so a run of consecutive ranks is one
		// stretch of the arena.
		j := i + 1
		for j < len(ids) && ids[j] == ids[j-1]+1 && d.isRank(ids[j]) {
			j++
		}
		b = append(b, d.arena[d.off[id]:d.off[ids[j-1]+1]]...)
		i = j
	}
	var s string
	if utf8.Valid(b) {
		s = string(b)
	} else {
		s = lossy(b)
	}
	if cap(b) <= 1<<20 {
		*bp = b
		decodeBufPool.Put(bp)
	}
	return s
}

var decodeBufPool = sync.Pool{New: func() any { return new([]byte) }}
