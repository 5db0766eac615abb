package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/vbench/vbench/internal/hub/hubtest"
	"github.com/vbench/vbench/internal/scenario"
)

// wordTokenizer counts whitespace-separated words, plus a BOS token when
// special tokens are added: the counts testdata/sharegpt_golden.py
// reproduces in Python (len(s.split()) + 1).
type wordTokenizer struct{}

func (wordTokenizer) Name() string               { return "words" }
func (wordTokenizer) VocabSize() int             { return 1 << 20 }
func (wordTokenizer) SpecialIDs() []int          { return []int{0} }
func (wordTokenizer) NumSpecialTokensToAdd() int { return 1 }
func (wordTokenizer) Decode([]int) string        { return "" }

func (wordTokenizer) Encode(text string, addSpecial bool) []int {
	n, in := 0, false // strings.Fields' count, without its slice
	for _, r := range text {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	if addSpecial {
		n++
	}
	return make([]int, n)
}

type shareGPTGolden struct {
	Name           string `json:"name"`
	Seed           int64  `json:"seed"`
	NumPrompts     int    `json:"num_prompts"`
	IDPrefix       string `json:"id_prefix"`
	OutputLen      *int   `json:"output_len"`
	DisableShuffle bool   `json:"disable_shuffle"`
	NoOversample   bool   `json:"no_oversample"`
	Requests       []struct {
		ID         string  `json:"id"`
		PromptHead string  `json:"prompt_head"`
		PromptLen  int     `json:"prompt_len"`
		OutputLen  int     `json:"output_len"`
		Image      *string `json:"image"`
	} `json:"requests"`
}

// TestShareGPTGolden pins the selection (prompts, lengths, ids, order) to
// what vLLM's ShareGPTDataset.sample picks from the fixture, reproduced by
// testdata/sharegpt_golden.py with the word-count tokenizer.
func TestShareGPTGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/sharegpt_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []shareGPTGolden
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 5 {
		t.Fatalf("%d golden cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			spec := scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{
				FileOptions: FileOptions{Path: "testdata/sharegpt_fixture.json", DisableShuffle: c.DisableShuffle, NoOversample: c.NoOversample},
				OutputLen:   c.OutputLen,
			}}
			reqs, err := Build(context.Background(), spec, Env{Tokenizer: wordTokenizer{}, Seed: c.Seed, NumPrompts: c.NumPrompts, IDPrefix: c.IDPrefix})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(c.Requests) {
				t.Fatalf("%d requests, want %d", len(reqs), len(c.Requests))
			}
			for i, w := range c.Requests {
				r := reqs[i]
				head := strings.Join(strings.Fields(r.Prompt)[:min(2, len(strings.Fields(r.Prompt)))], " ")
				if r.ID != w.ID || head != w.PromptHead || r.PromptLen != w.PromptLen || r.OutputLen != w.OutputLen {
					t.Errorf("request %d = {%q %q %d %d}, want {%q %q %d %d}", i, r.ID, head, r.PromptLen, r.OutputLen,
						w.ID, w.PromptHead, w.PromptLen, w.OutputLen)
				}
				if w.Image != nil {
					want := "file://" + *w.Image
					if len(r.Messages) != 1 || len(r.Messages[0].Parts) != 2 || r.Messages[0].Parts[1].URL != want || r.Messages[0].Parts[0].Text != r.Prompt {
						t.Errorf("request %d: messages %+v, want the text then the image %s", i, r.Messages, want)
					}
				} else if r.Messages != nil {
					t.Errorf("request %d: messages %+v without media", i, r.Messages)
				}
			}
		})
	}
}

func TestShareGPTMultimodalChat(t *testing.T) {
	spec := ShareGPTSpec{FileOptions: FileOptions{Path: "testdata/sharegpt_fixture.json"}, EnableMultimodalChat: true}
	reqs, _, err := ShareGPT(context.Background(), spec.Path, spec, Env{Tokenizer: wordTokenizer{}, NumPrompts: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		if len(r.Messages) != 1 || r.Messages[0].Role != RoleUser || r.Messages[0].Parts[0] != (Part{Type: PartText, Text: r.Prompt}) {
			t.Errorf("request %d: messages %+v, want one user message starting with the prompt", i, r.Messages)
		}
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShareGPTBadFiles checks that each bad file gives one line naming the
// file, the entry and what was expected.
func TestShareGPTBadFiles(t *testing.T) {
	good := `{"conversations": [{"value": "a b c d"}, {"value": "e f g h"}]}`
	for _, c := range []struct{ name, content, want string }{
		{"empty", "", "the file is empty; expected a JSON list of conversations"},
		{"blank", " \n", "the file is empty"},
		{"object", `{"conversations": []}`, "1:2: expected a JSON list of conversations, found an object"},
		{"truncated", "[" + good + ",\n" + `{"conversations": [{"value": "a`, ":2:32: entry 1: truncated JSON"},
		{"unterminated", "[" + good, "entry 1: truncated JSON"},
		{"syntax", "[" + good + ",\n{conversations: 1}]", "2:2: entry 1: invalid JSON"},
		{"conversations not a list", "[" + good + `, {"conversations": "hi"}]`, `entry 1: "conversations": expected a list of turns, found string`},
		{"entry not an object", "[" + good + `, 5]`, `entry 1: expected an object with a "conversations" list, found number`},
		{"null entry", "[" + good + `, null]`, `entry 1: expected an object with a "conversations" list, found null`},
		{"value not a string", "[" + good + `, {"conversations": [{"value": 3}, {"value": "x"}]}]`, `entry 1: conversations[0]: expected an object with a string "value", found {"value": 3}`},
		{"multi-line turn", "[" + good + ",\n{\"conversations\": [{\"value\":\n 3}, {\"value\": \"x\"}]}]", `2:1: entry 1: conversations[0]: expected an object with a string "value", found {"value": 3}`},
		{"no value", "[" + good + `, {"conversations": [{"value": "x"}, {"from": "gpt"}]}]`, `entry 1: conversations[1]: expected an object with a string "value"`},
		{"empty list", "[]", "the list is empty; expected conversations"},
		{"no conversations", `[{"id": 1}, {"conversations": [{"value": "x"}]}]`, `none of the 2 entries has a "conversations" list of at least two turns`},
		{"trailing", "[" + good + "] x", "unexpected data after the list"},
		{"image bytes", `[{"conversations": [{"value": "a b c d"}, {"value": "e f g h"}], "image": {"bytes": "AAAA"}}]`, `entry 0: "image": expected a URL or file path string; inline media bytes are not supported`},
		{"too short", `[{"conversations": [{"value": "a"}, {"value": "e f g h"}]}]`, "no conversation passes the length filters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeTemp(t, "bad.json", c.content)
			spec := scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{FileOptions: FileOptions{Path: p}}}
			_, err := Build(context.Background(), spec, Env{Tokenizer: wordTokenizer{}, NumPrompts: 2})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, p) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s and %q", msg, p, c.want)
			}
		})
	}
}

func TestShareGPTSpecErrors(t *testing.T) {
	zero := 0
	for _, c := range []struct {
		spec ShareGPTSpec
		want string
	}{
		{ShareGPTSpec{}, "dataset.sharegpt.path (--dataset-path) is required"},
		{ShareGPTSpec{FileOptions: FileOptions{Path: "x.json"}, OutputLen: &zero}, "--sharegpt-output-len) is 0"},
		{ShareGPTSpec{FileOptions: FileOptions{Path: filepath.Join(t.TempDir(), "none.json")}}, "no such file, and not a Hub dataset file"},
	} {
		_, err := Build(context.Background(), scenario.Dataset{Name: "sharegpt", Spec: &c.spec}, Env{Tokenizer: wordTokenizer{}, NumPrompts: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.spec, err, c.want)
		}
	}
	if _, err := Build(context.Background(), scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{FileOptions: FileOptions{Path: "testdata/sharegpt_fixture.json"}}}, Env{NumPrompts: 1}); err == nil ||
		!strings.Contains(err.Error(), "needs a client tokenizer") {
		t.Errorf("without a tokenizer: %v", err)
	}
}

// TestShareGPTFromHub downloads the file of a Hub dataset id from the
// loopback fake hub into the Hugging Face cache, then reads it from the
// cache offline.
func TestShareGPTFromHub(t *testing.T) {
	fixture, err := os.ReadFile("testdata/sharegpt_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	h := hubtest.New(t)
	h.Add("datasets/"+ShareGPTHubRepo, "main", map[string]string{ShareGPTHubFile: string(fixture)})
	h.Add("datasets/org/convs", "main", map[string]string{"data/part1.json": string(fixture)})
	cache := t.TempDir()
	t.Setenv("HF_ENDPOINT", h.URL())
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HUB_OFFLINE", "")
	t.Setenv("HF_TOKEN", "")
	local, err := Build(context.Background(), scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{FileOptions: FileOptions{Path: "testdata/sharegpt_fixture.json"}}},
		Env{Tokenizer: wordTokenizer{}, NumPrompts: 12})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{ShareGPTHubRepo, "org/convs/data/part1.json"} {
		spec := scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{FileOptions: FileOptions{Path: path}}}
		reqs, err := Build(context.Background(), spec, Env{Tokenizer: wordTokenizer{}, NumPrompts: 12})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(reqs) != len(local) || reqs[0].Prompt != local[0].Prompt || reqs[11].Prompt != local[11].Prompt {
			t.Errorf("%s: the Hub copy samples differently from the local file", path)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets--org--convs")); err != nil {
		t.Errorf("not in the Hugging Face cache: %v", err)
	}
	gets := h.Count("GET")
	t.Setenv("HF_HUB_OFFLINE", "1")
	if _, err := Build(context.Background(), scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{FileOptions: FileOptions{Path: "org/convs/data/part1.json"}}},
		Env{Tokenizer: wordTokenizer{}, NumPrompts: 12}); err != nil {
		t.Errorf("offline from the cache: %v", err)
	}
	_, err = Build(context.Background(), scenario.Dataset{Name: "sharegpt", Spec: &ShareGPTSpec{FileOptions: FileOptions{Path: "org/convs/other.json"}}},
		Env{Tokenizer: wordTokenizer{}, NumPrompts: 12})
	if err == nil || !strings.Contains(err.Error(), "org/convs/other.json is no local file; from the Hub") {
		t.Errorf("offline miss: %v", err)
	}
	if h.Count("GET") != gets {
		t.Errorf("offline mode downloaded")
	}
}

// TestShareGPTMessages checks the oversampling and no-oversample lines
// vLLM logs.
func TestShareGPTMessages(t *testing.T) {
	var errBuf bytes.Buffer
	spec := ShareGPTSpec{FileOptions: FileOptions{Path: "testdata/sharegpt_fixture.json"}}
	_, st, err := ShareGPT(context.Background(), spec.Path, spec, Env{Tokenizer: wordTokenizer{}, NumPrompts: 100, Stderr: &errBuf})
	if err != nil {
		t.Fatal(err)
	}
	if got := errBuf.String(); got != "Oversampled requests to reach 100 total samples.\n" {
		t.Errorf("stderr %q", got)
	}
	if kept := st.Examined - st.Dropped; st.Entries != 40 || st.Conversations != 38 || st.Examined != 38 || kept == 0 || kept+st.Oversampled != 100 {
		t.Errorf("stats %+v", st)
	}
	errBuf.Reset()
	spec.NoOversample = true
	reqs, _, err := ShareGPT(context.Background(), spec.Path, spec, Env{Tokenizer: wordTokenizer{}, NumPrompts: 100, Stderr: &errBuf})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Skipping oversampling. Total samples: " + itoa(len(reqs)) + ".\n"; errBuf.String() != want {
		t.Errorf("stderr %q, want %q", errBuf.String(), want)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzShareGPTRead checks that any file either reads or fails with one
// line naming the file, and that the one-call fast path keeps exactly the
// entries the entry-by-entry reader keeps.
func FuzzShareGPTRead(f *testing.F) {
	for _, s := range []string{
		`[{"conversations": [{"value": "a b c d"}, {"value": "e f g h"}]}]`,
		`[{"conversations": [{"value": "a"}, {"value": "b"}, {"value": 3}]}, {"id": 1}, {"conversations": []}]`,
		`[{"conversations": [{"value": "a"}, {"value": "b"}], "image": "x.png"}, null]`,
		`[{"conversations": "x"}]`, `[`, ``, `{}`, `[] 1`, `[{"conversations": [{"value": null}, {}]}]`,
		`[{"conversations": [{"value": "]},\\\"["}, {"value": "x"}]},]`, `[,{}]`, `[{}{}]`, `[{"a": 1]}`, `[{"conversations": [{"value": "a"}, {"value": "b"}]}] ]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, n, err := readShareGPTSlow("f.json", data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.json") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line naming f.json", msg)
			}
		}
		fast, fn, ok := readShareGPTFast(data)
		if !ok {
			return
		}
		if err != nil && len(fast) > 0 {
			// (Both refuse a file without entries or conversations.)
			t.Fatalf("the fast path reads what the slow one refuses: %v", err)
		}
		if err == nil && (fn != n || len(fast) != len(entries)) {
			t.Fatalf("fast path: %d entries of %d, slow: %d of %d", len(fast), fn, len(entries), n)
		}
		for i := range fast {
			a, b := fast[i], entries[i]
			if a.index != b.index || a.prompt != b.prompt || a.completion != b.completion || !bytes.Equal(a.image, b.image) || !bytes.Equal(a.video, b.video) {
				t.Fatalf("entry %d: fast %+v, slow %+v", i, a, b)
			}
		}
	})
}

// TestShareGPTFastParallel checks the fast path on a file large enough to
// decode on several goroutines against the entry-by-entry reader.
func TestShareGPTFastParallel(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 5000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch i % 5 {
		case 0:
			b.WriteString(`{"id": 1}`)
		case 1:
			b.WriteString(`{"conversations": [{"value": "only"}]}`)
		default:
			b.WriteString(`{"conversations": [{"value": "p` + itoa(i) + ` a \"b\" ]}"}, {"value": "c` + itoa(i) + `"}], "image": "i.png"}`)
		}
	}
	b.WriteString("]")
	data := []byte(b.String())
	fast, fn, ok := readShareGPTFast(data)
	if !ok {
		t.Fatal("the fast path refused a good file")
	}
	slow, sn, err := readShareGPTSlow("f.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if fn != 5000 || sn != 5000 || len(fast) != 3000 || len(slow) != 3000 {
		t.Fatalf("fast %d of %d, slow %d of %d; want 3000 of 5000", len(fast), fn, len(slow), sn)
	}
	for i := range fast {
		if fast[i].index != slow[i].index || fast[i].prompt != slow[i].prompt || fast[i].completion != slow[i].completion || !bytes.Equal(fast[i].image, slow[i].image) {
			t.Fatalf("entry %d: fast %+v, slow %+v", i, fast[i], slow[i])
		}
	}
	// A type error in the last entry sends the file to the slow path.
	if _, _, ok := readShareGPTFast(append(data[:len(data)-1:len(data)-1], []byte(`, {"conversations": 5}]`)...)); ok {
		t.Error("the fast path took a file with a wrong type")
	}
}
