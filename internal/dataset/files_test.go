package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

// wsTokenizer is testdata/gen_files.py's WS tokenizer: one token per
// whitespace-separated word, plus a BOS token when special tokens are
// added, and a chat template that wraps each message in role markers. Its
// counts are trivial, so the golden file can reproduce vLLM's selection
// logic without Hugging Face tokenizers.
type wsTokenizer struct{}

func (wsTokenizer) Name() string               { return "ws" }
func (wsTokenizer) VocabSize() int             { return 3 }
func (wsTokenizer) SpecialIDs() []int          { return []int{1} }
func (wsTokenizer) NumSpecialTokensToAdd() int { return 1 }
func (wsTokenizer) Decode(ids []int) string    { return strings.Repeat("w ", len(ids)) }

func (wsTokenizer) Encode(text string, addSpecial bool) []int {
	ids := []int{}
	if addSpecial {
		ids = append(ids, 1)
	}
	for range strings.Fields(text) {
		ids = append(ids, 2)
	}
	return ids
}

func (wsTokenizer) ApplyChatTemplate(msgs []tokenizer.Message, addGenerationPrompt bool, kwargs map[string]any) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<|" + m.Role + "|>\n" + m.Content + "\n")
	}
	if addGenerationPrompt {
		b.WriteString("<|assistant|>\n")
		if v, ok := kwargs["enable_thinking"]; ok && v == false {
			b.WriteString("<think></think>\n")
		}
	}
	return b.String(), nil
}

// filesGolden is testdata/files_golden.json, written by
// testdata/gen_files.py.
type filesGolden struct {
	Custom []struct {
		Name             string
		Seed             int64
		N                int
		OutputLen        int            `json:"output_len"`
		SkipChatTemplate bool           `json:"skip_chat_template"`
		Kwargs           map[string]any `json:"kwargs"`
		DisableShuffle   bool           `json:"disable_shuffle"`
		NoOversample     bool           `json:"no_oversample"`
		Prefix           string
		Tokenizer        *bool
		Requests         []goldenRequest
	}
	Sonnet []struct {
		Name      string
		Path      string
		Seed      int64
		N         int
		InputLen  int `json:"input_len"`
		OutputLen int `json:"output_len"`
		PrefixLen int `json:"prefix_len"`
		Formatted bool
		Requests  []goldenRequest
	}
}

type goldenRequest struct {
	ID        string
	Prompt    string
	PromptLen int `json:"prompt_len"`
	OutputLen int `json:"output_len"`
}

func readFilesGolden(t *testing.T) *filesGolden {
	t.Helper()
	data, err := os.ReadFile("testdata/files_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g filesGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Custom) == 0 || len(g.Sonnet) == 0 {
		t.Fatal("testdata/files_golden.json has no cases")
	}
	return &g
}

func compareGolden(t *testing.T, name string, got []Request, want []goldenRequest) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d requests, Python %d", name, len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.ID || g.Prompt != w.Prompt || g.PromptLen != w.PromptLen || g.OutputLen != w.OutputLen {
			t.Errorf("%s: request %d = {id %q, prompt_len %d, output_len %d, prompt %q}\nPython {id %q, prompt_len %d, output_len %d, prompt %q}",
				name, i, g.ID, g.PromptLen, g.OutputLen, g.Prompt, w.ID, w.PromptLen, w.OutputLen, w.Prompt)
		}
	}
}

func TestCustomMatchesVLLM(t *testing.T) {
	for _, c := range readFilesGolden(t).Custom {
		t.Run(c.Name, func(t *testing.T) {
			kw, err := json.Marshal(c.Kwargs)
			if err != nil {
				t.Fatal(err)
			}
			spec := CustomSpec{
				FileOptions: FileOptions{Path: "testdata/custom/prompts.jsonl", DisableShuffle: c.DisableShuffle, NoOversample: c.NoOversample},
				OutputLen:   c.OutputLen, SkipChatTemplate: c.SkipChatTemplate, ChatTemplateKwargs: kw,
			}
			var tok tokenizer.Tokenizer = wsTokenizer{}
			if c.Tokenizer != nil && !*c.Tokenizer {
				tok = nil
			}
			got, err := Custom(context.Background(), spec, c.N, c.Seed, tok, c.Prefix, nil)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, c.Name, got, c.Requests)
		})
	}
}

func TestSonnetMatchesVLLM(t *testing.T) {
	for _, c := range readFilesGolden(t).Sonnet {
		t.Run(c.Name, func(t *testing.T) {
			spec := SonnetSpec{InputLen: c.InputLen, OutputLen: c.OutputLen, PrefixLen: c.PrefixLen}
			if c.Path != "" {
				spec.Path = filepath.Join("testdata", c.Path)
			}
			got, err := Sonnet(context.Background(), spec, c.N, c.Seed, wsTokenizer{}, "", c.Formatted)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, c.Name, got, c.Requests)
		})
	}
}

// The registry runs both kinds: ids carry the prefix, the log lines go to
// Stderr, and sonnet's backend rule picks raw text for openai-chat.
func TestFileKindsThroughBuild(t *testing.T) {
	var logs bytes.Buffer
	spec := scenario.Dataset{Name: "custom", Spec: &CustomSpec{FileOptions: FileOptions{Path: "testdata/custom/prompts.jsonl"}, OutputLen: 8}}
	reqs, err := Build(context.Background(), spec, Env{Tokenizer: wsTokenizer{}, NumPrompts: 0, IDPrefix: "p-", Stderr: &logs})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 12 || reqs[11].ID != "p-11" || !strings.HasPrefix(reqs[0].Prompt, "<|user|>\n") {
		t.Errorf("custom through Build: %d requests, last id %q, first prompt %q", len(reqs), reqs[len(reqs)-1].ID, reqs[0].Prompt)
	}
	if want := "num_requests is set to 0 or negative, so using all available samples: 12\n"; logs.String() != want {
		t.Errorf("custom logged %q, want %q", logs.String(), want)
	}
	for _, backend := range []string{"openai-chat", "openai"} {
		spec := scenario.Dataset{Name: "sonnet", Spec: &SonnetSpec{InputLen: 100, OutputLen: 7, PrefixLen: 30}}
		reqs, err := Build(context.Background(), spec, Env{Tokenizer: wsTokenizer{}, NumPrompts: 2, Backend: backend})
		if err != nil {
			t.Fatal(err)
		}
		raw := strings.HasPrefix(reqs[0].Prompt, sonnetBase+"FROM fairest creatures")
		if raw != (backend == "openai-chat") || reqs[1].OutputLen != 7 || reqs[1].ID != "1" {
			t.Errorf("sonnet with %s: prompt %.40q, request 1 %+v", backend, reqs[0].Prompt, reqs[1])
		}
	}
	if _, err := Build(context.Background(), scenario.Dataset{Name: "sonnet", Spec: &SonnetSpec{InputLen: 10, OutputLen: 1}}, Env{NumPrompts: 1}); err == nil || !strings.Contains(err.Error(), "needs a client tokenizer") {
		t.Errorf("sonnet without a tokenizer: %v", err)
	}
}

func TestSonnetEmbeddedText(t *testing.T) {
	lines, err := SonnetLines("")
	if err != nil {
		t.Fatal(err)
	}
	// vLLM's benchmarks/sonnet.txt: 518 lines, 22,706 characters read in
	// text mode, the first sonnet's first line first.
	if len(lines) != 518 || len(sonnetText) != 22706 || lines[0] != "FROM fairest creatures we desire increase,\n" ||
		lines[517] != "This wish I have; then ten times happy me!" {
		t.Errorf("embedded sonnet.txt: %d lines, %d bytes, first %q, last %q", len(lines), len(sonnetText), lines[0], lines[len(lines)-1])
	}
	dir := t.TempDir()
	crlf := filepath.Join(dir, "crlf.txt")
	if err := os.WriteFile(crlf, []byte("a b\r\nc\rd"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := SonnetLines(crlf); err != nil || strings.Join(got, "|") != "a b\n|c\n|d" {
		t.Errorf("CRLF lines = %q, %v", got, err)
	}
}

func TestSonnetErrors(t *testing.T) {
	defer func(n int) { maxSonnetRejections = n }(maxSonnetRejections)
	maxSonnetRejections = 50
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec SonnetSpec
		want string
	}{
		{"empty file", SonnetSpec{Path: empty, InputLen: 100, OutputLen: 1}, empty + ": the file is empty: expected lines of a poem"},
		{"missing file", SonnetSpec{Path: filepath.Join(dir, "nope.txt"), InputLen: 100, OutputLen: 1}, "no such file"},
		{"input below the base", SonnetSpec{InputLen: 12, OutputLen: 1}, "--sonnet-input-len) 12 must be higher than the base prompt length (14)"},
		{"nothing fits", SonnetSpec{InputLen: 20, OutputLen: 1, PrefixLen: 400}, "no sonnet prompt of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Sonnet(context.Background(), tc.spec, 1, 0, wsTokenizer{}, "", true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := Sonnet(context.Background(), SonnetSpec{InputLen: 100, OutputLen: 1}, 1, 0, o200k(t), "", true); err == nil || !strings.Contains(err.Error(), "needs a tokenizer with a chat template, and tokenizer o200k_base has none") || strings.Contains(err.Error(), "skip-chat-template") {
		t.Errorf("a tokenizer without a chat template: %v", err)
	}
}

func TestCustomFileErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"empty", "", ": the file is empty: expected JSON lines, each an object with a \"prompt\" string"},
		{"blank lines only", "\n  \n", ": the file is empty: expected JSON lines, each an object with a \"prompt\" string"},
		{"missing prompt", `{"prompt": "a"}` + "\n" + `{"text": "b"}` + "\n", `:2: no "prompt": expected an object with a "prompt" string`},
		{"prompt not a string", `{"prompt": ["a"]}`, `:1: "prompt" is a JSON array, expected a string`},
		{"prompt null", `{"prompt": null}`, `:1: "prompt" is a JSON null, expected a string`},
		{"truncated", `{"prompt": "a"}` + "\n" + `{"prompt": "b`, `:2: invalid JSON (unexpected end of JSON input): expected one JSON object per line`},
		{"not an object", `["prompt"]`, `:1: a JSON array, expected an object with a "prompt" string`},
		{"output_tokens a string", `{"prompt": "a", "output_tokens": "ten"}`, `:1: "output_tokens" is "ten", expected a non-negative integer`},
		{"output_tokens a signed string", `{"prompt": "a", "output_tokens": "-4"}`, `:1: "output_tokens" is "-4", expected a non-negative integer`},
		{"output_tokens fractional", `{"prompt": "a", "output_tokens": 2.5}`, `:1: "output_tokens" is 2.5, expected a non-negative integer`},
		{"output_tokens negative", `{"prompt": "a", "output_tokens": -3}`, `:1: "output_tokens" is -3, expected a non-negative integer`},
		{"output_tokens missing with -1", "\n" + `{"prompt": "a"}`, `:2: no "output_tokens": --custom-output-len -1 (dataset.custom.output_len) takes each line's output_tokens`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := CustomSpec{FileOptions: FileOptions{Path: path}, OutputLen: -1}
			_, err := Custom(context.Background(), spec, 0, 0, wsTokenizer{}, "", nil)
			if err == nil || err.Error() != path+tc.want {
				t.Errorf("error %v\nwant      %s", err, path+tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
	digits := filepath.Join(dir, "digits.jsonl")
	if err := os.WriteFile(digits, []byte(`{"prompt": "a b", "output_tokens": " 12 "}`+"\n"+`{"prompt": "c", "output_tokens": 3.0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := CustomSpec{FileOptions: FileOptions{Path: digits, DisableShuffle: true}, OutputLen: -1}
	if reqs, err := Custom(context.Background(), spec, 0, 0, wsTokenizer{}, "", nil); err != nil || reqs[0].OutputLen != 12 || reqs[1].OutputLen != 3 {
		t.Errorf("output_tokens \" 12 \" and 3.0: %+v, %v", reqs, err)
	}
	spec = CustomSpec{FileOptions: FileOptions{Path: "prompts.json"}, OutputLen: 1}
	if _, err := Custom(context.Background(), spec, 0, 0, nil, "", nil); err == nil || err.Error() != "prompts.json: only JSONL files (named *.jsonl) are supported for the custom dataset" {
		t.Errorf("a .json file: %v", err)
	}
	spec = CustomSpec{FileOptions: FileOptions{Path: "testdata/custom/prompts.jsonl"}, OutputLen: 5}
	if _, err := Custom(context.Background(), spec, 0, 0, o200k(t), "", nil); err == nil || !strings.Contains(err.Error(), "no chat template (use --skip-chat-template)") {
		t.Errorf("a tokenizer without a chat template: %v", err)
	}
	spec.SkipChatTemplate = true
	if reqs, err := Custom(context.Background(), spec, 3, 0, o200k(t), "", nil); err != nil || len(reqs) != 3 {
		t.Errorf("--skip-chat-template with o200k_base: %d requests, %v", len(reqs), err)
	}
	for _, tc := range []struct {
		spec CustomSpec
		want string
	}{
		{CustomSpec{OutputLen: 0}, "dataset.custom.output_len (--custom-output-len) is 0: it must be positive, or -1 for each line's output_tokens"},
		{CustomSpec{OutputLen: 1, ChatTemplateKwargs: json.RawMessage(`[1]`)}, "dataset.custom.chat_template_kwargs (--chat-template-kwargs): expected a JSON object"},
		{CustomSpec{OutputLen: 1, EnableMultimodalChat: true}, "dataset.custom.enable_multimodal_chat (--enable-multimodal-chat): the text custom dataset has no media: use custom_image or custom_audio"},
		{CustomSpec{OutputLen: 1, EnsureClientSideData: true}, "is custom_image's: use dataset custom_image"},
	} {
		if _, err := newCustomSource(scenario.Dataset{Name: "custom", Spec: &tc.spec}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("newCustomSource(%+v): %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestOversampleErrors(t *testing.T) {
	if _, err := maybeOversample(nil, 3, 0, "", false, nil); err == nil {
		t.Error("oversampling nothing did not fail")
	}
	dup := []Request{{ID: "1"}, {ID: "1"}}
	if _, err := maybeOversample(dup, 2, 0, "", false, nil); err == nil || !strings.Contains(err.Error(), `duplicate request id "1"`) {
		t.Errorf("duplicate ids: %v", err)
	}
}

// FuzzReadCustom compares readCustom with the reference (refCustom) on
// arbitrary files, and writes what it reads back with WriteCustom, which
// must read the same.
func FuzzReadCustom(f *testing.F) {
	f.Add([]byte(`{"prompt": "a", "output_tokens": 3}` + "\n"))
	f.Add([]byte(`{"prompt": "a"`))
	f.Add([]byte("\n\n[1]\n"))
	f.Add([]byte(`{"prompt": 1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := readCustom("f.jsonl", bytes.NewReader(data))
		want, bad := refCustom(string(data))
		checkAgainstRef(t, string(data), lines, err, want, bad)
		if err == nil {
			// What was read writes back as a custom file that reads the same.
			var reqs []Request
			for _, l := range lines {
				reqs = append(reqs, Request{Prompt: l.Prompt, OutputLen: max(l.OutputTokens, 0)})
			}
			var buf bytes.Buffer
			if err := WriteCustom(&buf, reqs); err != nil {
				t.Fatalf("WriteCustom: %v", err)
			}
			back, err := readCustom("f.jsonl", &buf)
			if err != nil || len(back) != len(lines) {
				t.Fatalf("%q read back as %d lines, %v", buf.String(), len(back), err)
			}
			for i, b := range back {
				if b.Prompt != lines[i].Prompt || b.OutputTokens != max(lines[i].OutputTokens, 0) || b.Line != i+1 {
					t.Fatalf("line %d read back as %+v, was %+v", i+1, b, lines[i])
				}
			}
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q does not name the file on one line", err)
			}
			return
		}
		for _, l := range lines {
			if l.Line < 1 || l.OutputTokens < -1 {
				t.Errorf("bad line %+v", l)
			}
		}
	})
}
