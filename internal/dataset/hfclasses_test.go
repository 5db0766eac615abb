package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	"image/png"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
	"github.com/vbench/vbench/internal/wav"
)

// hfClassesGolden is testdata/hf_classes_golden.json, written by
// testdata/gen_hf_classes.py: per class, the rows and vLLM's requests from
// them in each case.
type hfClassesGolden struct {
	Classes map[string]struct {
		Rows  []hfRow
		Cases []struct {
			Name         string
			N            int
			Seed         int64
			OutputLen    *int `json:"output_len"`
			Skip         bool
			NoOversample bool `json:"no_oversample"`
			Prefix       string
			MMChat       bool     `json:"mm_chat"`
			MinDistance  *float64 `json:"min_distance"`
			MaxDistance  *float64 `json:"max_distance"`
			ASRMin       float64  `json:"asr_min_audio_len_sec"`
			ASRMax       *float64 `json:"asr_max_audio_len_sec"`
			Error        string
			Requests     []struct {
				vllmRequest
				Messages []struct {
					Role    string
					Content []struct {
						Text, Type string
						ImageURL   struct{ URL string } `json:"image_url"`
						VideoURL   struct{ URL string } `json:"video_url"`
					}
				}
				// Images (or Videos) are the multi_modal_data of a request
				// whose prompt is sent as text: chat appends them after the
				// text part.
				Images, Videos []string
				// AudioSeconds is an ASR request's clip duration.
				AudioSeconds *float64 `json:"audio_seconds"`
			}
		}
	}
}

// snapshotRepo is a repository whose files are under a local root, as
// MMVU's snapshot stands in gen_hf_classes.py.
type snapshotRepo string

func (r snapshotRepo) Files() []string { return nil }
func (r snapshotRepo) Local(_ context.Context, name string) (string, error) {
	return string(r) + "/" + name, nil
}
func (r snapshotRepo) String() string             { return string(r) }
func (r snapshotRepo) Display(name string) string { return string(r) + "/" + name }

// rowSeq yields rows as the loader does.
func rowSeq(rows []hfRow) iter.Seq2[hfRow, error] {
	return func(yield func(hfRow, error) bool) {
		for _, r := range rows {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// hfCollect runs a class's Sample to the end.
func hfCollect(c *hfClass, rows iter.Seq2[hfRow, error], spec *HFSpec, env Env) ([]Request, error) {
	var reqs []Request
	for r, err := range c.Sample(context.Background(), rows, snapshotRepo("/hf/snapshot"), spec, env) {
		if err != nil {
			return nil, err
		}
		if err := r.Validate(); err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// TestHFClassesGolden feeds each class the golden rows and compares the
// requests with vLLM's: the first prompts, prompt and output lengths,
// request ids and order, in every case of gen_hf_classes.py.
func TestHFClassesGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "hf_classes_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden hfClassesGolden
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Classes) != len(hfClasses)-1 { // BFCL: TestBFCLGolden
		t.Fatalf("the golden file has %d classes, vbench %d besides BFCL", len(golden.Classes), len(hfClasses)-1)
	}
	for _, c := range hfClasses {
		if c.Load != nil {
			continue // BFCL reads its own files: TestBFCLGolden
		}
		g, ok := golden.Classes[c.Name]
		if !ok || len(g.Cases) < 4 || len(g.Rows) < 4 {
			t.Fatalf("the golden file has no cases for %s", c.Name)
		}
		for _, gc := range g.Cases {
			t.Run(c.Name+"/"+gc.Name, func(t *testing.T) {
				spec := &HFSpec{FileOptions: FileOptions{Path: c.IDs[0], NoOversample: gc.NoOversample},
					OutputLen: gc.OutputLen, SkipChatTemplate: gc.Skip, EnableMultimodalChat: gc.MMChat, BlazeditMaxDistance: 1}
				if gc.MinDistance != nil {
					spec.BlazeditMinDistance = *gc.MinDistance
				}
				if gc.MaxDistance != nil {
					spec.BlazeditMaxDistance = *gc.MaxDistance
				}
				spec.ASRMinAudioLenSec, spec.ASRMaxAudioLenSec = gc.ASRMin, scenario.Inf
				if gc.ASRMax != nil {
					spec.ASRMaxAudioLenSec = scenario.Float(*gc.ASRMax)
				}
				var counts Counts
				env := Env{Tokenizer: wsTokenizer{}, Seed: gc.Seed, NumPrompts: gc.N, IDPrefix: gc.Prefix, Counts: &counts}
				reqs, err := hfCollect(c, rowSeq(g.Rows), spec, env)
				if gc.Error != "" {
					want := map[string]string{"ValueError": "duplicate request id", "IndexError": "nothing to oversample"}[strings.SplitN(gc.Error, ":", 2)[0]]
					if err == nil || want == "" || !strings.Contains(err.Error(), want) {
						t.Fatalf("error %v, want one saying %q (vLLM: %s)", err, want, gc.Error)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := make([]vllmRequest, len(gc.Requests))
				for i, w := range gc.Requests {
					want[i] = w.vllmRequest
				}
				checkVLLMRequests(t, reqs, want)
				for i, w := range gc.Requests {
					if i >= len(reqs) {
						break
					}
					if w.AudioSeconds != nil {
						a := reqs[i].Audio
						if a == nil || a.Seconds != *w.AudioSeconds {
							t.Fatalf("request %d: audio %+v, want a clip of %g s", i, a, *w.AudioSeconds)
						}
						if d, err := wav.Decode(a.WAV); err != nil || d.Seconds() != a.Seconds {
							t.Errorf("request %d: the clip's WAV: %v", i, err)
						}
					}
					// vLLM's chat content: the text part, then the media.
					var parts []Part
					transformed := w.Messages != nil
					switch {
					case transformed:
						for _, c := range w.Messages[0].Content {
							switch c.Type {
							case "text":
								parts = append(parts, Part{Type: PartText, Text: c.Text})
							case "video_url":
								parts = append(parts, Part{Type: PartVideo, URL: c.VideoURL.URL})
							default:
								parts = append(parts, Part{Type: PartImage, URL: c.ImageURL.URL})
							}
						}
					case w.Images != nil || w.Videos != nil:
						parts = []Part{{Type: PartText, Text: w.Prompt}}
						for _, u := range w.Images {
							parts = append(parts, Part{Type: PartImage, URL: u})
						}
						for _, u := range w.Videos {
							parts = append(parts, Part{Type: PartVideo, URL: u})
						}
					default:
						if reqs[i].Messages != nil {
							t.Errorf("request %d has messages %+v, vLLM sends the prompt", i, reqs[i].Messages)
						}
						continue
					}
					m := reqs[i].Messages
					if len(m) != 1 || m[0].Role != RoleUser || m[0].Transformed != transformed || !slices.Equal(m[0].Parts, parts) {
						t.Errorf("request %d messages %+v, want %+v (transformed %v)", i, m, parts, transformed)
					}
				}
				filters := slices.Contains([]string{"ConversationDataset", "AIMODataset", "BlazeditDataset", "MLPerfDataset", "MultiModalConversationDataset", "ASRDataset"}, c.Name)
				if counts.Filtered != filters {
					t.Errorf("Counts.Filtered = %v, want %v", counts.Filtered, filters)
				}
				if filters && counts.Examined-counts.Dropped+counts.Oversampled != len(reqs) {
					t.Errorf("counts %+v do not add up to %d requests", counts, len(reqs))
				}
			})
		}
	}
}

// The classes read only as many rows as they need, so a streamed split is
// downloaded no further.
func TestHFClassesReadLazily(t *testing.T) {
	rows := make([]hfRow, 100)
	for i := range rows {
		rows[i] = hfRow{"question": "what is one plus one", "prompt": "def f(): pass", "turns": []any{"hello there my friend"},
			"input": "x = 1", "instruction": "rename x"}
	}
	for _, id := range []string{"openai/gsm8k", "openai/openai_humaneval", "philschmid/mt-bench", "likaixin/InstructCoder"} {
		read := 0
		counted := func(yield func(hfRow, error) bool) {
			for _, r := range rows {
				read++
				if !yield(r, nil) {
					return
				}
			}
		}
		reqs, err := hfCollect(hfClassFor(id), counted, &HFSpec{}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 5})
		if err != nil || len(reqs) != 5 || read != 5 {
			t.Errorf("%s: %d requests from %d rows read, error %v; want 5 from 5", id, len(reqs), read, err)
		}
	}
}

// A loader error ends the sampling with that error.
func TestHFClassesLoaderError(t *testing.T) {
	boom := errors.New("reading train-00000-of-00002.parquet: unexpected EOF")
	rows := func(yield func(hfRow, error) bool) {
		if yield(hfRow{"question": "a b c d"}, nil) {
			yield(nil, boom)
		}
	}
	_, err := hfCollect(hfClassFor("openai/gsm8k"), rows, &HFSpec{}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 5})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want the loader's", err)
	}
}

func TestHFClassesBadRows(t *testing.T) {
	tests := []struct {
		id   string
		row  hfRow
		want string
	}{
		{"likaixin/InstructCoder", hfRow{"instruction": "x"}, `row 1: no "input" column: expected a string`},
		{"likaixin/InstructCoder", hfRow{"input": 3.0, "instruction": "x"}, `row 1: "input" is a number, expected a string`},
		{"philschmid/mt-bench", hfRow{"turns": "hi"}, `row 1: "turns" is a string, expected a list of strings`},
		{"philschmid/mt-bench", hfRow{"turns": []any{}}, `row 1: "turns" is empty: expected a list that starts with the prompt`},
		{"philschmid/mt-bench", hfRow{"turns": []any{nil}}, `row 1: the first of "turns" is null, expected the prompt string`},
		{"openai/openai_humaneval", hfRow{"prompt": []any{"a"}}, `row 1: "prompt" is a list, expected a string`},
		{"openai/gsm8k", hfRow{"answer": "4"}, `row 1: no "question" column: expected a string`},
		{"Aeala/ShareGPT_Vicuna_unfiltered", hfRow{"id": "x"}, `row 1: no "conversations" column: expected a list of turns (objects with a "value" string)`},
		{"Aeala/ShareGPT_Vicuna_unfiltered", hfRow{"conversations": []any{"hi", "there"}}, `row 1: turn 0 of "conversations" is a string, expected an object with a "value" string`},
		{"Aeala/ShareGPT_Vicuna_unfiltered", hfRow{"conversations": []any{map[string]any{"value": "a b c d"}, map[string]any{"from": "gpt"}}},
			`row 1: turn 1 of "conversations" has no "value": expected a string`},
		{"Aeala/ShareGPT_Vicuna_unfiltered", hfRow{"conversations": []any{map[string]any{"value": 1.0}, map[string]any{"value": "e f g h"}}},
			`row 1: turn 0 of "conversations" has a "value" that is a number, expected a string`},
		{"Aeala/ShareGPT_Vicuna_unfiltered", hfRow{"conversations": []any{map[string]any{"value": "a b c d"}, map[string]any{"value": "e f g h"}}, "image": map[string]any{"bytes": "..."}},
			`row 1: "image": the image does not decode (PNG, JPEG and GIF are read): image: unknown format`},
		{"AI-MO/NuminaMath-CoT", hfRow{"problem": "a b c d", "solution": true}, `row 1: "solution" is a boolean, expected a string`},
		{"zed-industries/zeta", hfRow{"events": "", "input": "x"}, `row 1: no "output" column: expected a string`},
		{"vdaita/edit_5k_char", hfRow{"code": "x", "change_request": "y", "norm_distance": "0.5"}, `row 1: "norm_distance" is a string, expected a number`},
		{"vdaita/edit_10k_char", hfRow{"code": "x", "change_request": "y"}, `row 1: no "norm_distance" column: expected a number`},
		{"mgoin/mlperf-inference-llama2-data", hfRow{"system_prompt": nil, "question": "q", "output": "o"}, `row 1: "system_prompt" is null, expected a string`},
	}
	// Row 0 is good (for every class), so the bad row is row 1.
	good := hfRow{"input": "a", "instruction": "b", "turns": []any{"a b c d"}, "prompt": "a b c d", "question": "a b c d e",
		"conversations": []any{map[string]any{"value": "a b c d"}, map[string]any{"value": "e f g h"}},
		"problem":       "a b c d", "solution": "e f g h", "events": "", "output": "o p q r s", "code": "x", "change_request": "y",
		"norm_distance": 0.5, "system_prompt": "s"}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			c := hfClassFor(tt.id)
			_, err := hfCollect(c, rowSeq([]hfRow{good, tt.row}), &HFSpec{BlazeditMaxDistance: 1}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 5})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("%s: error %v, want %q", c.Name, err, tt.want)
			}
		})
	}
}

// noTemplate is a tokenizer without a chat template.
type noTemplate struct{ tokenizer.Tokenizer }

func TestHFClassesErrors(t *testing.T) {
	three, zero := 3, 0
	row := hfRow{"question": "a b c d", "problem": "a b c d", "solution": "", "system_prompt": "s", "output": "o p q r s"}
	for _, tt := range []struct {
		name string
		id   string
		spec HFSpec
		tok  tokenizer.Tokenizer
		rows []hfRow
		want string
	}{
		{"no tokenizer", "openai/gsm8k", HFSpec{}, nil, []hfRow{row}, "the hf datasets need a client tokenizer: unset tokenizer.skip_init"},
		{"no template", "openai/gsm8k", HFSpec{}, noTemplate{wsTokenizer{}}, []hfRow{row}, "tokenizer ws has no chat template (use --skip-chat-template)"},
		{"mlperf always templates", "mgoin/mlperf-inference-llama3.1-data", HFSpec{SkipChatTemplate: true}, noTemplate{wsTokenizer{}},
			[]hfRow{row}, "tokenizer ws has no chat template, which this dataset's prompts always take (vLLM applies it whatever --skip-chat-template says)"},
		{"output len 0", "openai/gsm8k", HFSpec{OutputLen: &zero}, wsTokenizer{}, []hfRow{row}, "dataset.hf.output_len (--hf-output-len) is 0: it must be positive"},
		{"empty split", "openai/gsm8k", HFSpec{}, wsTokenizer{}, nil, "the dataset split has no rows, so there is nothing to sample or oversample"},
		{"all filtered", "mgoin/mlperf-inference-llama2-data", HFSpec{OutputLen: &three}, wsTokenizer{},
			[]hfRow{{"system_prompt": "", "question": "q", "output": "o"}}, "none of the 1 rows passes the dataset's filters, so there is nothing to oversample"},
		// An empty solution measures 0 tokens with a tokenizer that adds no
		// BOS: vLLM's assertion, even though the prompt is dropped anyway.
		{"zero-token answer", "AI-MO/aimo-validation-aime", HFSpec{}, noBOS{},
			[]hfRow{{"problem": "x", "solution": " "}}, "row 0: the reference answer has 0 tokens (vLLM asserts a positive output length; give --hf-output-len)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := hfCollect(hfClassFor(tt.id), rowSeq(tt.rows), &tt.spec, Env{Tokenizer: tt.tok, NumPrompts: 3})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// noBOS is wsTokenizer without special tokens.
type noBOS struct{ wsTokenizer }

func (noBOS) Encode(text string, _ bool) []int { return wsTokenizer{}.Encode(text, false) }

func TestHFClassFor(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range hfClasses {
		for _, id := range c.IDs {
			if seen[id] {
				t.Errorf("%s is served twice", id)
			}
			seen[id] = true
			if got := hfClassFor(id); got != c {
				t.Errorf("hfClassFor(%q) = %v, want %s", id, got, c.Name)
			}
		}
	}
	if len(seen) != 27 {
		t.Errorf("%d dataset ids, want vLLM's 13 text-only ones, 5 multimodal ones, 8 speech ones and BFCL's", len(seen))
	}
	// No class: auto-detected (ids are case-sensitive, as in vLLM).
	if hfClassFor("openai/GSM8K") != nil {
		t.Error(`hfClassFor("openai/GSM8K") is not nil`)
	}
	splits := map[string][2]string{"InstructCoderDataset": {"train"}, "MTBenchDataset": {"train"}, "HumanEvalDataset": {"test"},
		"GSM8KDataset": {"test", "main"}, "ConversationDataset": {"train"}, "AIMODataset": {"train"}, "NextEditPredictionDataset": {"train"},
		"BlazeditDataset": {"train"}, "MLPerfDataset": {"train"}, "MultiModalConversationDataset": {"train"}, "VisionArenaDataset": {"train"}, "BFCLDataset": {}, "ASRDataset": {"train"},
		"MMVUDataset": {"validation"}, "MMStarDataset": {"val"}}
	for _, c := range hfClasses {
		if got := [2]string{c.DefaultSplit, c.DefaultSubset}; got != splits[c.Name] {
			t.Errorf("%s: default split and subset %q, want %q", c.Name, got, splits[c.Name])
		}
	}
}

// An image column becomes a media part of the conversation's chat message,
// with process_image's URL rules.
func TestHFConversationImage(t *testing.T) {
	conv := []any{map[string]any{"value": "what is in the picture"}, map[string]any{"value": "a cat on a mat"}}
	for img, want := range map[string]string{"cat.jpg": "file://cat.jpg", "https://x/cat.jpg": "https://x/cat.jpg", "data:image/png;base64,AAAA": "data:image/png;base64,AAAA"} {
		reqs, err := hfCollect(hfClassFor("Aeala/ShareGPT_Vicuna_unfiltered"), rowSeq([]hfRow{{"conversations": conv, "image": img}}),
			&HFSpec{}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 1})
		if err != nil {
			t.Fatal(err)
		}
		wantMsg := []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "what is in the picture"}, {Type: PartImage, URL: want}}}}
		if len(reqs) != 1 || reqs[0].Prompt != "what is in the picture" || !slices.EqualFunc(reqs[0].Messages, wantMsg, func(a, b Message) bool {
			return a.Role == b.Role && slices.Equal(a.Parts, b.Parts)
		}) {
			t.Errorf("%s: requests %+v, want messages %+v", img, reqs, wantMsg)
		}
	}
}

// Oversampling reseeds and draws from Python's global generator, as vLLM's
// does, and leaves it alone when it does not oversample; either way the
// requests are the same as with a generator of its own.
func TestHFOversampleUsesPyGlobal(t *testing.T) {
	rows := []hfRow{{"question": "a b c"}, {"question": "d e f g"}, {"question": "h"}}
	c := hfClassFor("openai/gsm8k")
	for _, n := range []int{2, 9} {
		own, err := hfCollect(c, rowSeq(rows), &HFSpec{}, Env{Tokenizer: wsTokenizer{}, Seed: 5, NumPrompts: n})
		if err != nil {
			t.Fatal(err)
		}
		global := numpy.NewPyRandom(0) // as serve.py's random.seed(seed) at start, seed 0 here
		got, err := hfCollect(c, rowSeq(rows), &HFSpec{}, Env{Tokenizer: wsTokenizer{}, Seed: 5, NumPrompts: n, PyGlobal: global})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, own, func(a, b Request) bool { return a.ID == b.ID && a.Prompt == b.Prompt }) {
			t.Fatalf("n=%d: requests differ with the global generator", n)
		}
		// The state vLLM leaves: untouched below 3 rows, else seed 5 and
		// one choice per copy.
		want := numpy.NewPyRandom(0)
		if n > len(rows) {
			want.Seed(5)
			for range n - len(rows) {
				want.Choice(len(rows))
			}
		}
		if g, w := global.Random(), want.Random(); g != w {
			t.Errorf("n=%d: the global generator's next draw is %v, want %v", n, g, w)
		}
	}
}

// Any row, whatever its columns and their types, gives every class a
// valid request, a dropped row or a one-line error naming the row; never
// a panic.
func FuzzHFClassRows(f *testing.F) {
	for _, s := range []string{
		`{"input": "x", "instruction": "y"}`, `{"turns": ["a b c d"]}`, `{"turns": [1]}`, `{"question": null}`,
		`{"conversations": [{"value": "a b c d"}, {"value": "e f g h"}], "image": "x.png"}`, `{"conversations": [[], {}]}`,
		`{"problem": "a b c d", "solution": ""}`, `{"events": "", "input": "", "output": "<|editable_region_start|>"}`,
		`{"code": "c", "change_request": "r", "norm_distance": 0.5}`, `{"norm_distance": "NaN"}`,
		`{"system_prompt": "s", "question": "q", "output": "a b c d e"}`,
	} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, row string, n int) {
		var r hfRow
		if json.Unmarshal([]byte(row), &r) != nil || r == nil {
			return
		}
		n = n%8 - 1
		for _, c := range hfClasses {
			if c.Load != nil {
				continue // BFCL reads its own files (TestBFCLGolden)
			}
			reqs, err := hfCollect(c, rowSeq([]hfRow{r, r}), &HFSpec{BlazeditMaxDistance: 1}, Env{Tokenizer: wsTokenizer{}, NumPrompts: n})
			if err != nil {
				if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "row ") && !strings.Contains(msg, "nothing to oversample") {
					t.Fatalf("%s: error %q", c.Name, msg)
				}
				continue
			}
			if n > 0 && len(reqs) != n {
				t.Fatalf("%s: %d requests for num_prompts %d", c.Name, len(reqs), n)
			}
		}
	})
}

// VisionArena and LLaVA-OneVision rows carry images as dataset Image
// features (encoded bytes): they are decoded and sent as JPEG data URLs
// after the prompt, as vLLM's process_image does; VisionArena's prompt is
// its first conversation's first message, 128 output tokens by default.
func TestHFMultimodalClasses(t *testing.T) {
	var pngb bytes.Buffer
	png.Encode(&pngb, image.NewRGBA(image.Rect(0, 0, 3, 2)))
	img := map[string]any{"bytes": pngb.String(), "path": "x.png"}
	arena := hfRow{"conversation": []any{[]any{map[string]any{"role": "user", "content": "describe it"}}}, "images": []any{img}}
	reqs, err := hfCollect(hfClassFor("lmarena-ai/VisionArena-Chat"), rowSeq([]hfRow{arena}), &HFSpec{FileOptions: FileOptions{Path: "lmarena-ai/VisionArena-Chat"}},
		Env{Tokenizer: wsTokenizer{}, NumPrompts: 1, IDPrefix: "v-"})
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[0]
	if r.Prompt != "describe it" || r.OutputLen != 128 || r.ID != "v-0" || len(r.Messages) != 1 || len(r.Messages[0].Parts) != 2 {
		t.Fatalf("request %+v", r)
	}
	url := r.Messages[0].Parts[1].URL
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/jpeg;base64,"))
	if err != nil || !strings.HasPrefix(url, "data:image/jpeg;base64,") {
		t.Fatalf("image URL %.40s", url)
	}
	if j, err := jpeg.Decode(bytes.NewReader(raw)); err != nil || j.Bounds().Dx() != 3 || j.Bounds().Dy() != 2 {
		t.Errorf("the JPEG: %v", err)
	}
	conv := []any{map[string]any{"value": "what is in the picture"}, map[string]any{"value": "a cat on a mat"}}
	reqs, err = hfCollect(hfClassFor("lmms-lab/LLaVA-OneVision-Data"), rowSeq([]hfRow{{"conversations": conv, "image": img}}),
		&HFSpec{EnableMultimodalChat: true}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m := reqs[0].Messages; len(m) != 1 || !m[0].Transformed || !strings.HasPrefix(m[0].Parts[1].URL, "data:image/jpeg;base64,") {
		t.Errorf("LLaVA-OneVision messages %+v", m)
	}
	if _, err := hfImageURL(map[string]any{"bytes": "not an image"}); err == nil {
		t.Error("undecodable image bytes accepted")
	}
}
