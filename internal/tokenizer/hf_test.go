package tokenizer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// patchFixture loads a fixture's tokenizer.json, lets edit change it, and
// builds a tokenizer from the result (without a config unless cfg is set).
func patchFixture(t testing.TB, dir string, edit func(m map[string]any), cfg []byte) (*HF, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return NewHF(dir, HFFiles{Tokenizer: out, Config: cfg})
}

func model(m map[string]any) map[string]any { return m["model"].(map[string]any) }

func TestParseJSON(t *testing.T) {
	tests := []struct {
		in   string
		want any // as encoding/json decodes it
	}{
		{`null`, nil},
		{` true `, true},
		{`[1, -2, 3.5, 1e3, -0, 123456789012345678]`, []any{1.0, -2.0, 3.5, 1000.0, math.Copysign(0, -1), 123456789012345678.0}},
		{`{"a": {"b": []}, "c": ""}`, map[string]any{"a": map[string]any{"b": []any{}}, "c": ""}},
		{`"\u00e9\n\t\"\\\/\ud83d\ude00"`, "é\n\t\"\\/😀"},
		{`"\ud800x"`, "\uFFFDx"},
		{`"\udc00\ud800"`, "\uFFFD\uFFFD"},
		{`{"k": 1, "k": 2}`, map[string]any{"k": 2.0}},
	}
	for _, tt := range tests {
		v, err := parseJSON([]byte(tt.in))
		if err != nil {
			t.Errorf("parseJSON(%s): %v", tt.in, err)
			continue
		}
		if got := jsonAny(v); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("parseJSON(%s) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
	bad := []struct{ in, msg string }{
		{``, "line 1, column 1: unexpected end of input"},
		{`[1,]`, "unexpected ']'"},
		{`{"a" 1}`, "want ':'"},
		{"{\n  \"a\": tru}", "line 2, column 8: invalid literal"},
		{`01`, "after the top-level value"},
		{`1.`, "invalid number"},
		{`"a`, "unterminated string"},
		{"\"a\x01\"", "control character"},
		{`"\x"`, `invalid escape \x`},
		{`"\u12"`, `invalid \u escape`},
		{strings.Repeat("[", 600) + strings.Repeat("]", 600), "nested too deeply"},
	}
	for _, tt := range bad {
		_, err := parseJSON([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("parseJSON(%.20q) error %v, want one containing %q", tt.in, err, tt.msg)
		}
	}
}

// jsonAny converts a parsed value to what encoding/json produces.
func jsonAny(v *jvalue) any {
	switch v.kind {
	case jNull:
		return nil
	case jBool:
		return v.b
	case jNumber:
		f, _ := v.asFloat("")
		if v.isInt {
			f = float64(v.num)
		}
		return f
	case jString:
		return v.str
	case jArray:
		out := []any{}
		for i := range v.items() {
			out = append(out, jsonAny(&v.items()[i]))
		}
		return out
	}
	out := map[string]any{}
	for i, k := range v.names() {
		out[k] = jsonAny(&v.items()[i])
	}
	return out
}

// FuzzParseJSON checks the parser against encoding/json: the same
// documents are accepted, with the same values.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\ud83d\ude00"`, `-1.5e-3`, `[true,false]`, `{"model":{"vocab":{"a":0}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON(data)
		if strings.Count(string(data), "[")+strings.Count(string(data), "{") >= maxJSONDepth {
			return // encoding/json allows deeper nesting
		}
		if valid := json.Valid(data); (err == nil) != valid {
			t.Fatalf("parseJSON(%q) error %v, json.Valid %v", data, err, valid)
		}
		var want any
		if werr := json.Unmarshal(data, &want); err == nil && werr == nil {
			if got := jsonAny(v); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Fatalf("parseJSON(%q) = %#v, encoding/json %#v", data, got, want)
			}
		}
	})
}

// splitAlphabet covers every class the cl100k-style patterns distinguish
// (ſ is left out: Oniguruma folds it to s, regexp2 does not; the goldens
// cover it).
var splitAlphabet = []rune{
	'a', 's', 't', 'r', 'e', 'v', 'm', 'l', 'd', 'S', 'T', 'D', 'X', '0', '7', '\'', ' ', ' ', '\n',
	'\r', '\t', '/', '.', '!', '-', 'é', 'ʰ', 'あ', 'Ж', '\u0301', 'Ⅻ', '½', '\u00a0', '\u3000', '😀',
	// Han (for Kimi's pattern): Lo, Lm, Nl, So and Mc runes of the script.
	'漢', '字', '々', '〇', '⺀', '\U00016FF0',
}

// regexp2Pattern rewrites a pattern for regexp2: class intersection with
// a negated class, [A&&[^B]], becomes .NET's class subtraction, [A-[B]].
// (Written apart from dotnetClasses, which TestDotnetClasses checks.)
func regexp2Pattern(pattern string) string {
	return strings.ReplaceAll(pattern, `&&[^\p{Han}]]`, `-[\p{Han}]]`)
}

func TestDotnetClasses(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[\p{L}&&[^\p{Han}]]+`, `[\p{L}-[\p{Han}]]+`},
		{`[a-z&&[^aeiou]]|[\p{M}&&[^\]x]]`, `[a-z-[aeiou]]|[\p{M}-[\]x]]`},
		{kimiPattern, regexp2Pattern(kimiPattern)},
		{`[a&&[^b]c]`, `[a&&[^b]c]`},   // not the last element: left alone
		{`[a&&[^[b]]]`, `[a&&[^[b]]]`}, // nested class: left alone
		{`a&&[^b`, `a&&[^b`},           // unterminated
		{`x&&y`, `x&&y`},
		{`[a&&[^b]]&&[^`, `[a-[b]]&&[^`},
	}
	for _, tt := range tests {
		if got := dotnetClasses(tt.in); got != tt.want {
			t.Errorf("dotnetClasses(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// A tokenizer.json Split with an intersection that no matcher knows
	// runs on regexp2, with the same pieces as Kimi's matcher.
	other := strings.Replace(kimiPattern, `\s+(?!\S)|\s+`, `\s+(?!\S)|\s+|x`, 1)
	sp, err := newSplit(other, true, "Isolated", false)
	if err != nil || sp.re == nil {
		t.Fatalf("newSplit(Kimi-like) = %v, %v; want a regexp2 split", sp, err)
	}
	fast := &splitPre{fast: splitKimi}
	for _, text := range []string{"中文abc 漢字's", "々あ〇七!⺀x", "大\u0301学 a!\n/b"} {
		var got, want []string
		sp.split(text, true, func(p string, _ bool) { got = append(got, p) })
		fast.split(text, true, func(p string, _ bool) { want = append(want, p) })
		if !slices.Equal(got, want) {
			t.Errorf("regexp2 pieces of %q = %q, matcher's %q", text, got, want)
		}
	}
}

func TestKnownSplitsMatchRegexp2(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	for pattern, split := range knownSplits {
		re := regexp2.MustCompile(regexp2Pattern(pattern), regexp2.None)
		for range 3000 {
			var sb strings.Builder
			for range 1 + r.IntN(24) {
				sb.WriteRune(splitAlphabet[r.IntN(len(splitAlphabet))])
			}
			text := sb.String()
			var want []string
			rs := []rune(text)
			for m, _ := re.FindStringMatch(text); m != nil; m, _ = re.FindNextMatch(m) {
				want = append(want, string(rs[m.Index:m.Index+m.Length]))
			}
			sp := &splitPre{fast: split}
			var got []string
			sp.split(text, true, func(p string, _ bool) { got = append(got, p) })
			if !slices.Equal(got, want) {
				t.Fatalf("%.30s...: pieces of %q = %q, want %q", pattern, text, got, want)
			}
		}
	}
}

// fixtureTokenizers are the committed fixtures and their variants.
func fixtureTokenizers(t testing.TB) map[string]*HF {
	out := map[string]*HF{"qwen3-cut": loadFixture(t, "qwen3-cut"), "mistral-cut": loadFixture(t, "mistral-cut")}
	for _, v := range []string{"qwen3-llama3", "qwen3-gpt2", "qwen3-split", "mistral-metaspace",
		"mistral-metaspace-split", "mistral-metaspace-never", "mistral-unk-fused", "mistral-unk"} {
		out[v] = loadVariant(t, v)
	}
	return out
}

func TestFastDecoderMatchesChain(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	fast := 0
	for name, tok := range fixtureTokenizers(t) {
		if tok.fast == nil {
			continue
		}
		fast++
		for range 2000 {
			ids := make([]int, 1+r.IntN(40))
			for i := range ids {
				ids[i] = r.IntN(len(tok.tokens)+20) - 10
				if r.IntN(3) == 0 { // runs of byte tokens
					ids[i] = 3 + r.IntN(256)
				}
			}
			var toks []string
			for _, id := range ids {
				if id >= 0 && id < len(tok.tokens) && tok.hasToken[id] {
					toks = append(toks, tok.tokens[id])
				}
			}
			if got, want := tok.fast.decode(ids), runDecoder(tok.dec, toks); got != want {
				t.Fatalf("%s: fast decode of %v = %q, the chain gives %q", name, ids, got, want)
			}
		}
	}
	if fast < 2 {
		t.Errorf("only %d fixtures have a fast decoder", fast)
	}
}

func TestMergeHeapMatchesSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	tok := loadFixture(t, "qwen3-cut")
	alphabets := []string{"ab", "aab ", "the ing", "ll  \n", "\xe6\xbc\xa2 a"}
	for range 3000 {
		alpha := alphabets[r.IntN(len(alphabets))]
		var sb strings.Builder
		for range 2 + r.IntN(smallPiece-2) {
			sb.WriteByte(alpha[r.IntN(len(alpha))])
		}
		syms, _ := tok.model.symbols(sb.String(), nil)
		want := tok.model.mergeSmall(slices.Clone(syms), "")
		if got := tok.model.mergeSmall(slices.Clone(syms), sb.String()); !slices.Equal(got, want) {
			t.Fatalf("mergeSmall(%q) with the byte-pair table = %v, without %v", sb.String(), got, want)
		}
		if got := tok.model.mergeHeap(slices.Clone(syms), sb.String()); !slices.Equal(got, want) {
			t.Fatalf("mergeHeap(%q) = %v, mergeSmall %v", sb.String(), got, want)
		}
	}
}

// TestWordSplitMatchesWhole checks that tokenizing a SentencePiece-style
// piece word by word gives what merging it whole gives.
func TestWordSplitMatchesWhole(t *testing.T) {
	tok, err := patchFixture(t, "mistral-cut", func(m map[string]any) {
		model(m)["vocab"].(map[string]any)[metaChar] = 3100.0
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tok.model.wordSplit {
		t.Fatal("word splitting is off")
	}
	whole := *tok.model
	whole.wordSplit = false
	whole.cache = newPieceCache()
	r := rand.New(rand.NewPCG(14, 14))
	words := []string{"the", "▁", "▁▁", "a", "tion", "ing", "\u00e9t\u00e9", "漢字", "x", "<0x41>", "\u0301", " "}
	for range 500 {
		var sb strings.Builder
		for range 20 + r.IntN(200) {
			sb.WriteString(words[r.IntN(len(words))])
		}
		piece := strings.ReplaceAll(sb.String(), " ", metaChar)
		got, _ := tok.model.tokenize(piece, nil)
		want, _ := whole.tokenize(piece, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("word by word %v, whole %v, for %q", got, want, piece)
		}
	}
}

func TestUnsupportedComponents(t *testing.T) {
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"WordPiece model", func(m map[string]any) { model(m)["type"] = "WordPiece" }, `model "WordPiece" is not supported`},
		{"Unigram model", func(m map[string]any) { model(m)["type"] = "Unigram" }, `model "Unigram" is not supported`},
		{"BertNormalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "BertNormalizer"} }, `normalizer "BertNormalizer" is not supported`},
		{"Precompiled", func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "Precompiled"}}}
		}, `normalizer.normalizers[0]: normalizer "Precompiled" is not supported`},
		{"regex Replace", func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " +"}, "content": " "}
		}, "Replace with a Regex pattern is not supported"},
		{"Whitespace", func(m map[string]any) { m["pre_tokenizer"] = map[string]any{"type": "Whitespace"} }, `pre-tokenizer "Whitespace" is not supported`},
		{"ByteLevel not last", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "ByteLevel"}, map[string]any{"type": "Digits"}}}
		}, "ByteLevel pre-tokenizer followed by another"},
		{"WordPiece decoder", func(m map[string]any) { m["decoder"] = map[string]any{"type": "WordPiece"} }, `decoder "WordPiece" is not supported`},
		{"CTC decoder", func(m map[string]any) { m["decoder"] = map[string]any{"type": "CTC"} }, `decoder "CTC" is not supported`},
		{"post-processor", func(m map[string]any) { m["post_processor"] = map[string]any{"type": "Magic"} }, `post-processor "Magic" is not supported`},
		{"subword prefix", func(m map[string]any) { model(m)["continuing_subword_prefix"] = "##" }, "continuing_subword_prefix"},
		{"dropout", func(m map[string]any) { model(m)["dropout"] = 0.1 }, "dropout"},
		{"merge out of vocabulary", func(m map[string]any) {
			model(m)["merges"] = []any{[]any{"Ġ", "zzzzq"}}
		}, `token "zzzzq" is not in the vocabulary`},
		{"bad merge", func(m map[string]any) { model(m)["merges"] = []any{"a b c"} }, `"a b c" is not two tokens`},
		{"unknown unk", func(m map[string]any) { model(m)["unk_token"] = "<nope>" }, `unk_token "<nope>" is not in the vocabulary`},
		{"bad split behaviour", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"String": " "}, "behavior": "Sideways"}
		}, `unknown Split behavior "Sideways"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := patchFixture(t, "qwen3-cut", tt.edit, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestConfigRules(t *testing.T) {
	qwen := loadFixture(t, "qwen3-cut")
	// eos <|im_end|>, pad <|endoftext|> and the 13 additional special
	// tokens (<|im_start|> ... <|video_pad|>), renumbered from 3000.
	if got, want := qwen.SpecialIDs(), []int{3000, 3001, 3002, 3003, 3004, 3005, 3006, 3007, 3008, 3009, 3010, 3011, 3012, 3013}; !slices.Equal(got, want) {
		t.Errorf("Qwen3 SpecialIDs() = %v, want %v", got, want)
	}
	noCfg, err := patchFixture(t, "qwen3-cut", func(map[string]any) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Without a config: the added tokens marked special (not <tool_call>
	// and the other 11 non-special ones).
	if got := noCfg.SpecialIDs(); len(got) != 14 || got[0] != 3000 || got[13] != 3013 {
		t.Errorf("SpecialIDs() without a config = %v", got)
	}

	cfg := func(kv string) []byte {
		return []byte(`{"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"` + kv + `}`)
	}
	tests := []struct {
		name           string
		config         []byte
		prefix, suffix []int
		special        []int
	}{
		{"llama default adds BOS", cfg(""), []int{1}, nil, []int{0, 1, 2}},
		{"no BOS", cfg(`, "add_bos_token": false`), nil, nil, []int{0, 1, 2}},
		{"BOS and EOS", cfg(`, "add_eos_token": true`), []int{1}, []int{2}, []int{0, 1, 2}},
		{"other class keeps the file's", []byte(`{"tokenizer_class": "PreTrainedTokenizerFast", "add_bos_token": false}`), []int{1}, nil, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := patchFixture(t, "mistral-cut", func(map[string]any) {}, tt.config)
			if err != nil {
				t.Fatal(err)
			}
			ids := tok.Encode("hi", false)
			want := slices.Concat(tt.prefix, ids, tt.suffix)
			if got := tok.Encode("hi", true); !slices.Equal(got, want) {
				t.Errorf("Encode(hi, special) = %v, want %v", got, want)
			}
			if got := tok.NumSpecialTokensToAdd(); got != len(tt.prefix)+len(tt.suffix) {
				t.Errorf("NumSpecialTokensToAdd() = %d", got)
			}
			if got := tok.SpecialIDs(); !slices.Equal(got, tt.special) {
				t.Errorf("SpecialIDs() = %v, want %v", got, tt.special)
			}
		})
	}

	t.Run("special_tokens_map overrides", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join("testdata", "qwen3-cut", "tokenizer.json"))
		tok, err := NewHF("q", HFFiles{Tokenizer: data, Config: []byte(`{"eos_token": "<|im_end|>"}`),
			SpecialTokensMap: []byte(`{"eos_token": {"content": "<|endoftext|>"}, "additional_special_tokens": ["<tool_call>"]}`)})
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.SpecialIDs(); !slices.Equal(got, []int{3000, 3014}) {
			t.Errorf("SpecialIDs() = %v, want [3000 3014]", got)
		}
	})
	t.Run("clean_up_tokenization_spaces", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join("testdata", "qwen3-cut", "tokenizer.json"))
		tok, err := NewHF("q", HFFiles{Tokenizer: data, Config: []byte(`{"clean_up_tokenization_spaces": true}`)})
		if err != nil {
			t.Fatal(err)
		}
		text := "Hi , it 's a test . Is n't it ?"
		if got, want := tok.Decode(tok.Encode(text, false)), "Hi, it's a test. Isn't it?"; got != want {
			t.Errorf("Decode = %q, want %q", got, want)
		}
	})
}

// TestConcurrentHF encodes and decodes from many goroutines, comparing
// with sequential results (run with -race).
func TestConcurrentHF(t *testing.T) {
	for _, name := range []string{"qwen3-cut", "mistral-cut"} {
		tok := loadFixture(t, name)
		r := rand.New(rand.NewPCG(15, 15))
		texts := make([]string, 12)
		want := make([][]int, len(texts))
		for i := range texts {
			ids := make([]int, 300)
			for k := range ids {
				ids[k] = r.IntN(tok.VocabSize())
			}
			texts[i] = tok.Decode(ids)
			fresh := *tok.model
			fresh.cache = newPieceCache()
			want[i] = (&HF{raw: tok.raw, normed: tok.normed, norm: tok.norm, pre: tok.pre, model: &fresh}).Encode(texts[i], false)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 100)
		for g := range 8 {
			wg.Go(func() {
				for k := range 3 * len(texts) {
					i := (g + k) % len(texts)
					got := tok.Encode(texts[i], false)
					if !slices.Equal(got, want[i]) {
						errs <- fmt.Sprintf("%s: text %d encodes differently", name, i)
					}
					if tok.Decode(got) == "" {
						errs <- fmt.Sprintf("%s: text %d decodes to nothing", name, i)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	}
}

// roundTrips reports whether decode(encode(text)) must give text back for
// a fixture: byte-level ones are lossless on NFC text; SentencePiece-style
// ones on text without "▁" and added-token text.
func roundTrips(name, text string) bool {
	if strings.HasPrefix(name, "qwen3") {
		return norm.NFC.IsNormalString(text)
	}
	for _, s := range []string{metaChar, "<s>", "</s>", "<unk>"} {
		if strings.Contains(text, s) {
			return false
		}
	}
	return true
}

func TestRoundTripFixtures(t *testing.T) {
	for _, name := range []string{"qwen3-cut", "mistral-cut"} {
		tok := loadFixture(t, name)
		for _, text := range append(roundTripTexts, "", " ", "  x  ", "\n\n", "e\u0301", "<|im_start|>user\nhi<|im_end|>") {
			if !roundTrips(name, text) {
				continue
			}
			if got := tok.Decode(tok.Encode(text, false)); got != text {
				t.Errorf("%s: Decode(Encode(%q)) = %q", name, text, got)
			}
		}
	}
}

// FuzzHFEncodeDecode checks, for the committed fixtures, that encoding
// and decoding never panic, that encoding is deterministic and round-trips
// where the tokenizer is lossless, that decoding arbitrary ids agrees with
// the generic decoder chain, and that the ids are in range.
func FuzzHFEncodeDecode(f *testing.F) {
	toks := map[string]*HF{"qwen3-cut": loadFixture(f, "qwen3-cut"), "mistral-cut": loadFixture(f, "mistral-cut")}
	for _, s := range roundTripTexts {
		f.Add(s, []byte{1, 2, 3})
	}
	f.Add("<|im_start|>x<s>\u2581 \xff\xfe", []byte{0xff, 0, 7})
	f.Fuzz(func(t *testing.T, text string, raw []byte) {
		for name, tok := range toks {
			ids := tok.Encode(text, false)
			for _, id := range ids {
				if id < 0 || id >= len(tok.tokens) || !tok.hasToken[id] {
					t.Fatalf("%s: Encode(%q) gave id %d", name, text, id)
				}
			}
			if again := tok.Encode(text, false); !slices.Equal(again, ids) {
				t.Fatalf("%s: Encode(%q) is not deterministic", name, text)
			}
			back := tok.Decode(ids)
			if strings.ToValidUTF8(text, "x") == text && roundTrips(name, text) && back != text {
				t.Fatalf("%s: Decode(Encode(%q)) = %q", name, text, back)
			}
			// Arbitrary ids, two bytes each.
			var any []int
			for i := 0; i+1 < len(raw); i += 2 {
				any = append(any, int(raw[i])<<8|int(raw[i+1])-100)
			}
			var strs []string
			for _, id := range any {
				if id >= 0 && id < len(tok.tokens) && tok.hasToken[id] {
					strs = append(strs, tok.tokens[id])
				}
			}
			if got, want := tok.Decode(any), runDecoder(tok.dec, strs); got != want {
				t.Fatalf("%s: Decode(%v) = %q, the decoder chain gives %q", name, any, got, want)
			}
		}
	})
}

// lazyWalk parses `{"l": data}` keeping l lazy and returns l as
// encoding/json would decode it, walked with each, and checks that
// size and a built copy (items, names) agree with the walk.
func lazyWalk(t *testing.T, data []byte) (any, error) {
	t.Helper()
	doc := append(append([]byte(`{"l": `), data...), '}')
	root, err := parseJSONLazy(doc, []string{"l"})
	if err != nil {
		return nil, err
	}
	l := root.get("l")
	if l.kind != jObject && l.kind != jArray {
		return jsonAny(l), nil
	}
	var got any
	n := 0
	if l.kind == jObject {
		m := map[string]any{}
		err = l.each(func(k string, e *jvalue) error {
			m[k] = jsonAny(e)
			n++
			return nil
		})
		got = m
	} else {
		s := []any{}
		err = l.each(func(_ string, e *jvalue) error {
			s = append(s, jsonAny(e))
			n++
			return nil
		})
		got = s
	}
	if err != nil {
		return nil, err
	}
	if l.size() != n {
		t.Errorf("lazy %q: size() = %d, each walked %d", data, l.size(), n)
	}
	if built := jsonAny(l); fmt.Sprintf("%#v", built) != fmt.Sprintf("%#v", got) {
		t.Errorf("lazy %q: built %#v, walked %#v", data, built, got)
	}
	return got, nil
}

func TestParseJSONLazy(t *testing.T) {
	good := []string{`[]`, `{}`, `[ ]`, `[1]`, `[[1], [2, 3]]`, `["a", "b\"c", "\\", "d\\\\"]`, `{"a": 1, "b": [1, {"c": "}"}]}`,
		`[["Ġ", "t"], ["i", "n"]]`, `["a b", "#version: 0.2"]`, `{"k": 1, "k": 2}`, "[\n  1,\n  2\n]", `-1`, `"s"`}
	for _, in := range good {
		got, err := lazyWalk(t, []byte(in))
		if err != nil {
			t.Errorf("lazy %s: %v", in, err)
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("lazy %s = %#v, want %#v", in, got, want)
		}
	}
	bad := []struct{ in, msg string }{
		{`[1,]`, "unexpected ']'"},
		{`[1 2]`, "want ',' or ']' in an array"},
		{`{"a" 1}`, "want ':'"},
		{`{1: 2}`, "want an object key"},
		{"[\n tru]", "line 2, column 2: invalid literal"},
		{`["a]`, "unexpected end of input"},
		{`[`, "unexpected end of input"},
	}
	for _, tt := range bad {
		_, err := lazyWalk(t, []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("lazy %q: error %v, want one containing %q", tt.in, err, tt.msg)
		}
	}
}

// FuzzParseJSONLazy checks that a lazy value, walked with each, accepts
// exactly valid JSON and reads what encoding/json reads.
func FuzzParseJSONLazy(f *testing.F) {
	for _, s := range []string{`[]`, `{"a": [1, "b"]}`, `[["x", "y"], "p q"]`, `["\u0041\\"]`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if strings.Count(string(data), "[")+strings.Count(string(data), "{") >= maxJSONDepth-2 {
			return
		}
		got, err := lazyWalk(t, data)
		if valid := json.Valid(data); (err == nil) != valid {
			t.Fatalf("lazy %q: error %v, json.Valid %v", data, err, valid)
		}
		var want any
		if werr := json.Unmarshal(data, &want); err == nil && werr == nil {
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Fatalf("lazy %q = %#v, encoding/json %#v", data, got, want)
			}
		}
	})
}
