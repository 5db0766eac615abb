package tokenizer

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// HF is a tokenizer read from a Hugging Face tokenizer.json (and, when
// present, its tokenizer_config.json), encoding and decoding as the
// tokenizers library (0.22) with transformers on top does:
//
//  1. Added tokens are cut out of the text first: those with normalized
//     false are matched in the raw text, the others in the normalized
//     text between them (leftmost, then longest, with the single_word,
//     lstrip and rstrip rules).
//  2. The text between them is normalized (NFC, NFD, NFKC, NFKD, Prepend,
//     Replace, Lowercase, Strip) and pre-tokenized (Split with any regex,
//     ByteLevel, Metaspace, Digits, WhitespaceSplit).
//  3. The BPE model merges each piece by merge rank, with byte fallback,
//     unknown tokens (fused or not) and ignore_merges.
//  4. With addSpecial, the post-processor's special tokens are added
//     (TemplateProcessing, RobertaProcessing, BertProcessing); for the
//     Llama, CodeLlama, Gemma and Cohere tokenizer classes,
//     add_bos_token and add_eos_token in tokenizer_config.json decide
//     instead, as transformers' fast tokenizers do.
//
// Decode maps ids to tokens (added tokens included, unknown ids skipped)
// and runs the decoder chain (ByteLevel, Replace, ByteFallback, Fuse,
// Strip, Metaspace), then clean_up_tokenization_spaces when the config
// sets it. Components vbench does not implement (WordPiece, Unigram,
// WordLevel models, BertNormalizer, Precompiled, regex Replace, ...) make
// loading fail with an error naming them.
//
// An HF is safe for concurrent use.
type HF struct {
	name     string
	raw      *addedMatcher // added tokens matched in the raw text
	normed   *addedMatcher // added tokens matched in normalized text
	norm     normalizer
	pre      preConfig
	model    *hfBPE
	post     postProcessor
	dec      []decodeStep
	fast     fastDecoder
	tokens   []string // id -> token (vocabulary and added tokens)
	hasToken []bool
	special  []int
	// addedSpecial are the added tokens marked special (AddedSpecialIDs).
	addedSpecial []int
	cleanup      bool
	chat         *chatTemplate
	bos, eos     string
}

var _ Tokenizer = (*HF)(nil)

// HFFiles are the contents of a model's tokenizer files. Only Tokenizer
// is required.
type HFFiles struct {
	// Tokenizer is tokenizer.json.
	Tokenizer []byte
	// Config is tokenizer_config.json, nil when absent.
	Config []byte
	// SpecialTokensMap is special_tokens_map.json, nil when absent; its
	// entries override the config's, as in transformers.
	SpecialTokensMap []byte
}

// NewHF builds a tokenizer from a model's tokenizer files. name is what
// Name returns. The tokenizer keeps f.Tokenizer (its tokens are slices of
// it): the caller must not modify it afterwards.
func NewHF(name string, f HFFiles) (*HF, error) {
	// The vocabulary and merges, most of the file, are walked where they
	// are read instead of being built as a tree.
	if htmlPage(f.Tokenizer) {
		return nil, errors.New("tokenizer.json: an HTML page, not JSON (an error or login page saved in its place?): want a Hugging Face tokenizer.json, download it again")
	}
	root, err := parseJSONLazy(f.Tokenizer, []string{"model", "vocab"}, []string{"model", "merges"})
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	var cfg *tokenizerConfig
	if f.Config != nil {
		if cfg, err = parseConfig(f.Config); err != nil {
			return nil, fmt.Errorf("tokenizer_config.json: %w", err)
		}
	}
	if f.SpecialTokensMap != nil {
		m, err := parseConfig(f.SpecialTokensMap)
		if err != nil {
			return nil, fmt.Errorf("special_tokens_map.json: %w", err)
		}
		if cfg == nil {
			cfg = m
		} else {
			cfg.merge(m)
		}
	}
	t, err := newHF(name, root, cfg)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	return t, nil
}

func newHF(name string, root *jvalue, cfg *tokenizerConfig) (*HF, error) {
	if root.kind != jObject {
		return nil, fmt.Errorf("want an object, got %s", root.kindName())
	}
	t := &HF{name: name}
	m := root.get("model")
	if m == nil || m.kind != jObject {
		return nil, fmt.Errorf("model: want an object, got %s", m.kindName())
	}
	typ, err := m.get("type").optString("model.type", "")
	if err != nil {
		return nil, err
	}
	if typ == "" && m.get("merges") != nil {
		typ = "BPE" // older files omit the type
	}
	if typ != "BPE" {
		return nil, fmt.Errorf("model %q is not supported (vbench implements BPE models only)", typ)
	}
	if t.norm, err = parseNormalizer(root.get("normalizer"), "normalizer"); err != nil {
		return nil, err
	}
	if t.pre, err = parsePreTokenizer(root.get("pre_tokenizer")); err != nil {
		return nil, err
	}
	if t.model, err = newHFBPE(m, t.pre.byteLevel); err != nil {
		return nil, err
	}
	if t.model.unk == -2 {
		u, _ := m.get("unk_token").optString("", "")
		return nil, fmt.Errorf("model.unk_token %q is not in the vocabulary", u)
	}
	if t.post, err = parsePostProcessor(root.get("post_processor"), "post_processor"); err != nil {
		return nil, err
	}
	if t.dec, err = parseDecoder(root.get("decoder"), "decoder"); err != nil {
		return nil, err
	}
	added, err := parseAddedTokens(root.get("added_tokens"))
	if err != nil {
		return nil, err
	}

	// The id -> token table: the model's vocabulary, then added tokens
	// (which win, as in Hugging Face's decode).
	n := len(t.model.keys.off) - 1
	for _, a := range added {
		n = max(n, a.id+1)
	}
	t.tokens = make([]string, n)
	t.hasToken = make([]bool, n)
	copy(t.tokens, t.model.names)
	copy(t.hasToken, t.model.hasName)
	for id, tok := range t.model.dupNames {
		t.tokens[id] = tok
	}
	t.model.names, t.model.hasName, t.model.dupNames = nil, nil, nil
	byContent := map[string]*addedToken{}
	for i := range added {
		a := &added[i]
		t.tokens[a.id], t.hasToken[a.id] = a.content, true
		byContent[a.content] = a // the last of equal contents
	}
	var rawToks, normToks []*addedToken
	var rawPats, normPats []string
	for i := range added {
		a := &added[i]
		if byContent[a.content] != a {
			continue
		}
		if a.normalized {
			pat := a.content
			if t.norm != nil {
				pat = t.norm.normalize(pat)
			}
			normToks, normPats = append(normToks, a), append(normPats, pat)
		} else {
			rawToks, rawPats = append(rawToks, a), append(rawPats, a.content)
		}
	}
	t.raw = newAddedMatcher(rawToks, rawPats)
	t.normed = newAddedMatcher(normToks, normPats)

	toID := func(tok string) (int, bool) {
		if a, ok := byContent[tok]; ok {
			return a.id, true
		}
		if id, ok := t.model.keyID(tok); ok {
			return id, true
		}
		return 0, false
	}
	if cfg != nil {
		t.cleanup = cfg.cleanup
		t.bos, t.eos = cfg.named["bos_token"], cfg.named["eos_token"]
		for _, s := range cfg.specialTokens() {
			if id, ok := toID(s); ok {
				t.special = append(t.special, id)
			} else if t.model.unk >= 0 {
				t.special = append(t.special, int(t.model.unk)) // convert_tokens_to_ids
			}
		}
		if postProcessorClasses[cfg.class] {
			// transformers rebuilds the post-processor from add_bos_token
			// and add_eos_token; keep the file's when a needed token is
			// missing.
			addBOS, addEOS := true, false
			if cfg.addBOS != nil {
				addBOS = *cfg.addBOS
			}
			if cfg.addEOS != nil {
				addEOS = *cfg.addEOS
			}
			var p postProcessor
			bos, okB := toID(t.bos)
			eos, okE := toID(t.eos)
			if addBOS {
				p.prefix = []int{bos}
			}
			if addEOS {
				p.suffix = []int{eos}
			}
			if (okB || !addBOS) && (okE || !addEOS) {
				t.post = p
			}
		}
	} else {
		for _, a := range added {
			if a.special {
				t.special = append(t.special, a.id)
			}
		}
	}
	slices.Sort(t.special)
	t.special = slices.Compact(t.special)
	for _, a := range added {
		if a.special {
			t.addedSpecial = append(t.addedSpecial, a.id)
		}
	}
	slices.Sort(t.addedSpecial)
	t.addedSpecial = slices.Compact(t.addedSpecial)
	t.fast = newFastDecoder(t.dec, t.tokens, t.hasToken)
	t.chat = newChatTemplate(name, cfg)
	return t, nil
}

// keyID returns the id of a vocabulary token given as spelt in the file.
func (b *hfBPE) keyID(tok string) (int, bool) {
	key := tok
	if b.byteLevel {
		raw, ok := unByteLevel(tok)
		if !ok {
			return 0, false
		}
		key = raw
	}
	id, ok := b.vocab.get(key)
	return int(id), ok
}

// Name returns the name the tokenizer was loaded under.
func (t *HF) Name() string { return t.name }

// VocabSize is the size of the model's vocabulary, added tokens excluded
// (transformers' vocab_size).
func (t *HF) VocabSize() int { return t.model.size }

// SpecialIDs returns all_special_ids, ascending: with a
// tokenizer_config.json, the ids of its named special tokens (bos, eos,
// unk, sep, pad, cls, mask) and additional_special_tokens, as
// transformers reports them; without one, the added tokens marked
// special.
func (t *HF) SpecialIDs() []int { return slices.Clone(t.special) }

// AddedSpecialIDs returns the ids of the added tokens marked special
// (those of transformers' added_tokens_decoder whose special is true),
// ascending: vLLM's random-mm keeps them out of its prompts, placeholder
// and image-boundary tokens included, which all_special_ids can miss.
func (t *HF) AddedSpecialIDs() []int { return slices.Clone(t.addedSpecial) }

// NumSpecialTokensToAdd is the number of special tokens Encode adds with
// addSpecial (e.g. 1 for a BOS-adding tokenizer).
func (t *HF) NumSpecialTokensToAdd() int { return t.post.count() }

// Encode returns the token ids of text (invalid UTF-8 is first replaced
// as LossyUTF8 does). With addSpecial, the post-processor's special
// tokens are added.
func (t *HF) Encode(text string, addSpecial bool) []int {
	if !utf8.ValidString(text) {
		text = LossyUTF8([]byte(text))
	}
	out := make([]int, 0, len(text)/3+4)
	var segBuf [16]segment
	for _, seg := range t.raw.split(text, 0, segBuf[:0]) {
		if seg.id >= 0 {
			out = append(out, seg.id)
			continue
		}
		s := seg.text
		if t.norm != nil {
			s = t.norm.normalize(s)
		}
		var subBuf [16]segment
		for _, sub := range t.normed.split(s, seg.orig, subBuf[:0]) {
			if sub.id >= 0 {
				out = append(out, sub.id)
				continue
			}
			out = t.encodeText(sub.text, sub.orig == 0, out)
		}
	}
	if addSpecial {
		out = t.post.wrap(out)
	}
	return out
}

// encodeText pre-tokenizes normalized text and appends the model's ids.
func (t *HF) encodeText(s string, first bool, out []int) []int {
	steps := t.pre.steps
	if len(steps) == 0 {
		out, _ = t.model.tokenize(s, out)
		return out
	}
	if sp, ok := steps[0].(*splitPre); ok && len(steps) == 1 && sp.fast != nil {
		// The common byte-level case, without a callback per piece.
		rt, ok := decodeRunes(s)
		if ok {
			for p := 0; p < rt.n; {
				e := sp.fast(rt, p)
				out, _ = t.model.tokenize(s[rt.off[p]:rt.off[e]], out)
				p = e
			}
			rt.release()
			return out
		}
	}
	runPre(steps, s, first, func(piece string, _ bool) {
		out, _ = t.model.tokenize(piece, out)
	})
	return out
}

// Decode returns the text of ids, as transformers' decode with
// skip_special_tokens false: ids that are not tokens are skipped.
func (t *HF) Decode(ids []int) string {
	var s string
	if t.fast != nil {
		s = t.fast.decode(ids)
	} else {
		toks := make([]string, 0, len(ids))
		for _, id := range ids {
			if id >= 0 && id < len(t.tokens) && t.hasToken[id] {
				toks = append(toks, t.tokens[id])
			}
		}
		s = runDecoder(t.dec, toks)
	}
	if t.cleanup {
		s = cleanUpTokenization(s)
	}
	return s
}

// cleanUpTokenization is transformers' clean_up_tokenization: a fixed
// series of replacements, applied one after the other.
func cleanUpTokenization(s string) string {
	for _, r := range cleanupPairs {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

var cleanupPairs = [][2]string{
	{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
	{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
}

// htmlPage reports whether data starts as an HTML page does (JSON never
// starts with "<"), such as the error page a proxy or a failed download
// leaves in place of a JSON file.
func htmlPage(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n"), []byte("<"))
}
