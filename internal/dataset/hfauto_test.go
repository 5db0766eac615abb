package dataset

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/hub/hubtest"
	"github.com/vbench/vbench/internal/scenario"
)

func TestDetectHFFormat(t *testing.T) {
	chat := []any{map[string]any{"role": "user", "content": "a"}, map[string]any{"role": "assistant", "content": "b"}}
	for _, tc := range []struct {
		name string
		row  hfRow
		want string
		err  string
	}{
		{"messages", hfRow{"id": 1.0, "messages": chat}, `chat column "messages"`, ""},
		{"conversations", hfRow{"conversations": []any{map[string]any{"from": "human", "value": "a"}}, "answer": "x"}, `chat column "conversations"`, ""},
		{"conversation first", hfRow{"conversation": chat, "messages": chat}, `chat column "conversation"`, ""},
		{"not a chat", hfRow{"messages": "text", "prompt": "p"}, `prompt column "prompt"`, ""},
		{"turns", hfRow{"turns": []any{"first", "second"}, "answer": "a"}, `column "turns" (first turn), output column "answer"`, ""},
		{"context and input", hfRow{"context": "c", "input": "i", "answers": []any{"a"}}, `prompt column "context" + "input", output column "answers"`, ""},
		{"question", hfRow{"question": "q", "solution": "s", "completion": "c"}, `prompt column "question", output column "completion"`, ""},
		{"instruction", hfRow{"instruction": "do", "output": "done"}, `prompt column "instruction", output column "output"`, ""},
		{"none", hfRow{"id": 1.0, "label": "pos"}, "", "no prompt column: the columns are id, label; expected a chat column (conversation, conversations, messages"},
	} {
		f, err := detectHFFormat(tc.row, "")
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || f.String() != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, f.String(), err, tc.want)
		}
	}
}

func TestHFFormatExtract(t *testing.T) {
	chat, _ := detectHFFormat(hfRow{"messages": []any{map[string]any{"role": "user", "content": "a"}}}, "")
	text, _ := detectHFFormat(hfRow{"prompt": "p", "answer": "a"}, "")
	turns, _ := detectHFFormat(hfRow{"turns": []any{"t"}}, "")
	for _, tc := range []struct {
		name      string
		f         hfFormat
		row       hfRow
		p, c, err string
		skip      bool
	}{
		{"chat", chat, hfRow{"messages": []any{map[string]any{"role": "system", "content": "s"}, map[string]any{"role": "user", "content": "u"}, map[string]any{"role": "assistant", "content": "r"}}}, "u", "r", "", false},
		{"chat without a user", chat, hfRow{"messages": []any{map[string]any{"role": "system", "content": "s"}}}, "", "", "", true},
		{"chat null", chat, hfRow{"messages": nil}, "", "", "", true},
		{"chat wrong type", chat, hfRow{"messages": "hi"}, "", "", `column "messages": expected a list of chat messages ({role, content} or {from, value}), found a string`, false},
		{"text", text, hfRow{"prompt": "p", "answer": 42.0}, "p", "42", "", false},
		{"text missing", text, hfRow{"answer": "a"}, "", "a", "", true},
		{"text wrong type", text, hfRow{"prompt": []any{"x"}}, "", "", `column "prompt": expected a string, found a list`, false},
		{"output wrong type", text, hfRow{"prompt": "p", "answer": map[string]any{}}, "", "", `column "answer": expected a string, found an object`, false},
		{"turns", turns, hfRow{"turns": []any{"one", "two"}}, "one", "", "", false},
		{"turns wrong type", turns, hfRow{"turns": "one"}, "", "", `column "turns": expected a list of strings, found a string`, false},
	} {
		p, c, skip, err := tc.f.extract(tc.row)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || p != tc.p || c != tc.c || skip != tc.skip {
			t.Errorf("%s: %q %q %v %v; want %q %q %v", tc.name, p, c, skip, err, tc.p, tc.c, tc.skip)
		}
	}
}

// convRows returns n ShareGPT-like parquet rows, row i's prompt having
// i%5+2 words and its reply 3 words.
func convRows(n int) []pqConvRow {
	rows := make([]pqConvRow, n)
	for i := range rows {
		prompt := fmt.Sprintf("row %d:%s", i, strings.Repeat(" w", i%5))
		rows[i] = pqConvRow{ID: fmt.Sprint(i), Conversations: []pqTurn{{"human", prompt}, {"gpt", "a b c"}}}
	}
	return rows
}

// hubEnv points the hub client at h with a fresh cache.
func hubEnv(t *testing.T, h *hubtest.Hub) {
	t.Setenv("HF_ENDPOINT", h.URL())
	t.Setenv("HF_HUB_CACHE", filepath.Join(t.TempDir(), "hub"))
	t.Setenv("HF_HUB_OFFLINE", "")
	t.Setenv("HF_TOKEN", "")
}

func parquetBytes(t *testing.T, rows []pqConvRow) string {
	p := filepath.Join(t.TempDir(), "x.parquet")
	writeParquet(t, p, rows, 16)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHFFromHub runs an hf dataset that no vLLM class serves from the
// fake hub: files resolved from the listing, downloaded into the cache,
// read, shuffled and auto-detected; then again offline from the cache.
func TestHFFromHub(t *testing.T) {
	h := hubtest.New(t)
	hubEnv(t, h)
	h.Add("datasets/org/convs", "main", map[string]string{
		"README.md":                         "# convs\n",
		"data/train-00000-of-00002.parquet": parquetBytes(t, convRows(30)[:20]),
		"data/train-00001-of-00002.parquet": parquetBytes(t, convRows(30)[20:]),
		"data/test-00000-of-00001.parquet":  parquetBytes(t, convRows(3)),
	})
	spec := scenario.Dataset{Name: "hf", Spec: &HFSpec{FileOptions: FileOptions{Path: "org/convs"}}}
	var logs bytes.Buffer
	var counts Counts
	env := Env{Tokenizer: wsTokenizer{}, NumPrompts: 40, Seed: 3, IDPrefix: "r-", Stderr: &logs, Counts: &counts}
	reqs, err := Build(context.Background(), spec, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 40 {
		t.Fatalf("%d requests, want 40 (oversampled)", len(reqs))
	}
	// Prompts of 2 or 3 words (i%5 < 2) are under 4 tokens: 12 of 30
	// dropped.
	if counts.Examined != 30 || counts.Dropped != 12 || counts.Oversampled != 22 {
		t.Errorf("counts = %+v", counts)
	}
	seen := map[string]bool{}
	for i, r := range reqs {
		if r.ID != fmt.Sprintf("r-%d", i) || r.OutputLen != 3 || r.PromptLen < 4 || !strings.HasPrefix(r.Prompt, "row ") {
			t.Fatalf("request %d = %+v", i, r)
		}
		seen[r.Prompt] = true
	}
	if len(seen) != 18 {
		t.Errorf("%d distinct prompts, want 18", len(seen))
	}
	if !strings.Contains(logs.String(), `hf: org/convs is not one of vLLM's hf datasets: reading chat column "conversations" (subset "", split "train": 2 parquet files)`) {
		t.Errorf("log: %s", logs.String())
	}
	// The same again offline, from the cache; --hf-split test reads the
	// other split, and --hf-output-len fixes the output length.
	t.Setenv("HF_HUB_OFFLINE", "1")
	again, err := Build(context.Background(), spec, env)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if again[i].Prompt != reqs[i].Prompt || again[i].ID != reqs[i].ID {
			t.Fatalf("offline request %d = %+v, online %+v", i, again[i], reqs[i])
		}
	}
	t.Setenv("HF_HUB_OFFLINE", "")
	n := 7
	spec.Spec.(*HFSpec).Split, spec.Spec.(*HFSpec).OutputLen, spec.Spec.(*HFSpec).NoOversample = "test", &n, true
	test, err := Build(context.Background(), spec, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(test) != 1 || test[0].OutputLen != 7 || test[0].Prompt != "row 2: w w" {
		t.Errorf("test split: %+v", test)
	}
	// Shuffling follows the seed; disable_shuffle keeps file order.
	spec.Spec.(*HFSpec).Split, spec.Spec.(*HFSpec).OutputLen, spec.Spec.(*HFSpec).NoOversample, spec.Spec.(*HFSpec).DisableShuffle = "", nil, true, true
	ordered, err := Build(context.Background(), spec, env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ordered[0].Prompt, "row 2:") || !strings.HasPrefix(ordered[1].Prompt, "row 3:") {
		t.Errorf("unshuffled: %q, %q", ordered[0].Prompt, ordered[1].Prompt)
	}
	if strings.HasPrefix(reqs[0].Prompt, "row 2:") && strings.HasPrefix(reqs[1].Prompt, "row 3:") {
		t.Errorf("the shuffled run kept file order")
	}
}

func TestHFErrors(t *testing.T) {
	h := hubtest.New(t)
	hubEnv(t, h)
	h.Add("datasets/org/labels", "main", map[string]string{"train.jsonl": "{\"id\": 1, \"label\": \"x\"}\n"})
	dir := writeFiles(t, t.TempDir(), map[string]string{
		"types/train.jsonl": "{\"prompt\": \"one two three four\"}\n{\"prompt\": 5}\n",
		"empty/train.jsonl": "",
		"csv/train.csv":     "a,b\n",
		"one.jsonl":         "{\"question\": \"a b c d e\"}\n",
		"notes.txt":         "x",
	})
	for _, tc := range []struct {
		spec HFSpec
		err  string
	}{
		{HFSpec{}, "dataset hf: dataset.hf.path (--dataset-path) is required"},
		{HFSpec{FileOptions: FileOptions{Path: "x"}, OutputLen: new(int)}, "dataset.hf.output_len (--hf-output-len) is 0; it must be positive"},
		{HFSpec{FileOptions: FileOptions{Path: "org/labels"}}, "dataset hf: org/labels/train.jsonl row 0: no prompt column: the columns are id, label; expected"},
		{HFSpec{FileOptions: FileOptions{Path: "org/none"}}, "dataset.hf.path (--dataset-path) org/none is no local file or directory; from the Hub: datasets/org/none@main: repository not found"},
		{HFSpec{FileOptions: FileOptions{Path: "no/such/path"}}, "no/such/path: no such file or directory, and not a Hub dataset id (org/name)"},
		{HFSpec{FileOptions: FileOptions{Path: filepath.Join(dir, "types"), DisableShuffle: true}}, filepath.Join(dir, "types", "train.jsonl") + ` row 1: column "prompt": expected a string, found a number`},
		{HFSpec{FileOptions: FileOptions{Path: filepath.Join(dir, "empty")}}, filepath.Join(dir, "empty") + `: the split "train" has no rows`},
		{HFSpec{FileOptions: FileOptions{Path: filepath.Join(dir, "csv")}}, `split "train" is in csv files (.csv), which vbench cannot read`},
		{HFSpec{FileOptions: FileOptions{Path: filepath.Join(dir, "notes.txt")}}, "notes.txt: not a parquet, JSON or JSON Lines file"},
		{HFSpec{FileOptions: FileOptions{Path: filepath.Join(dir, "types")}, Split: "test"}, `has no split "test" (splits: train)`},
	} {
		_, err := Build(context.Background(), scenario.Dataset{Name: "hf", Spec: &tc.spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 3})
		if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: err = %v, want %q", tc.spec, err, tc.err)
		}
	}
	// A local file is the whole dataset.
	reqs, err := Build(context.Background(), scenario.Dataset{Name: "hf", Spec: &HFSpec{FileOptions: FileOptions{Path: filepath.Join(dir, "one.jsonl")}}}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 2})
	if err != nil || len(reqs) != 2 || reqs[1].Prompt != "a b c d e" || reqs[1].PromptLen != 5 || reqs[1].OutputLen != hfDefaultOutputLen {
		t.Errorf("a local file: %+v, %v", reqs, err)
	}
}

// TestHFClass runs the rows of a dataset a class serves through the
// class: its default split, the shuffled rows, and its errors wrapped
// with the class's name and the last row read.
func TestHFClass(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{
		"train.jsonl": "{\"q\": \"train row\"}\n",
		"test.jsonl":  "{\"q\": \"a\"}\n{\"q\": \"b\"}\n{\"q\": \"c\"}\n{\"q\": 4}\n",
	})
	var gotSpec *HFSpec
	class := &hfClass{Name: "ToyDataset", IDs: []string{"org/toy"}, DefaultSplit: "test",
		Sample: func(ctx context.Context, rows iter.Seq2[hfRow, error], _ hfRepo, spec *HFSpec, env Env) iter.Seq2[Request, error] {
			gotSpec = spec
			return func(yield func(Request, error) bool) {
				n := 0
				for r, err := range rows {
					if err != nil {
						yield(Request{}, err)
						return
					}
					q, ok := r["q"].(string)
					if !ok {
						yield(Request{}, fmt.Errorf("q is %v, want a string", r["q"]))
						return
					}
					if !yield(Request{Prompt: q, PromptLen: 1, OutputLen: 1, ID: env.IDPrefix + strconv.Itoa(n)}, nil) {
						return
					}
					n++
					if n == env.NumPrompts {
						return
					}
				}
			}
		}}
	restore := hfClassLookup
	hfClassLookup = func(id string) *hfClass {
		if slices.Contains(class.IDs, id) {
			return class
		}
		return nil
	}
	defer func() { hfClassLookup = restore }()

	// vLLM matches the name or the path.
	for _, tc := range []struct {
		path, name string
		served     bool
	}{{"org/toy", "", true}, {"./copy", "org/toy", true}, {"org/toy", "org/other", true}, {"./copy", "org/other", false}, {"org/other", "", false}} {
		if got := hfClassOf(&HFSpec{FileOptions: FileOptions{Path: tc.path}, Name: tc.name}); (got != nil) != tc.served {
			t.Errorf("path %q name %q: class %v, want served %v", tc.path, tc.name, got, tc.served)
		}
	}
	spec := &HFSpec{FileOptions: FileOptions{Path: dir, DisableShuffle: true}, Name: "org/toy"}
	reqs, err := Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 || reqs[0].Prompt != "a" || reqs[2].Prompt != "c" || gotSpec.Name != "org/toy" {
		t.Errorf("the class's requests: %+v", reqs)
	}
	_, err = Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 10})
	want := "dataset hf: ToyDataset: q is 4, want a string (the last row read: " + filepath.Join(dir, "test.jsonl") + " row 3)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	// A file's own error reaches the user as it is.
	bad := writeFiles(t, t.TempDir(), map[string]string{"test.jsonl": "{\"q\": \"a\"}\n{bad\n"})
	_, err = Build(context.Background(), scenario.Dataset{Name: "hf", Spec: &HFSpec{FileOptions: FileOptions{Path: bad, DisableShuffle: true}, Name: "org/toy"}}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 3})
	if want := "dataset hf: " + filepath.Join(bad, "test.jsonl") + ":2: invalid JSON"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a bad line: err = %v, want %s...", err, want)
	}
	// Without the name, the local path is the id: no class serves it, the
	// split is train, and the columns are auto-detected.
	spec.Name = ""
	reqs, err = Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 1})
	if err == nil || !strings.Contains(err.Error(), "train.jsonl row 0: no prompt column: the columns are q;") {
		t.Errorf("without --hf-name: %+v, %v", reqs, err)
	}
}

// TestHFParquetExport reads a Hub dataset that has only a loading script
// from the Hub's parquet conversion (refs/convert/parquet).
func TestHFParquetExport(t *testing.T) {
	h := hubtest.New(t)
	hubEnv(t, h)
	h.Add("datasets/org/scripted", "main", map[string]string{"scripted.py": "# a loading script", "README.md": "# x\n"})
	h.Add("datasets/org/scripted", hfParquetExport, map[string]string{
		"plain/train/0000.parquet":        parquetBytes(t, convRows(4)),
		"plain/partial-test/0000.parquet": parquetBytes(t, convRows(8)),
		"other/train/0000.parquet":        parquetBytes(t, convRows(1)),
	})
	spec := &HFSpec{FileOptions: FileOptions{Path: "org/scripted", NoOversample: true}, Subset: "plain"}
	reqs, err := Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 10})
	if err != nil || len(reqs) != 2 {
		t.Fatalf("train: %d requests, %v; want 2", len(reqs), err)
	}
	spec.Split = "test"
	if reqs, err := Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 10}); err != nil || len(reqs) != 4 {
		t.Fatalf("partial test split: %d requests, %v; want 4", len(reqs), err)
	}
	spec.Subset, spec.Split = "", ""
	_, err = Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 10})
	if err == nil || !strings.Contains(err.Error(), "the dataset has several subsets: choose one with --hf-subset (other, plain)") {
		t.Errorf("no subset: err = %v", err)
	}
}

// TestHFEmptyShard checks that an empty JSON Lines shard of a split adds
// no rows, as the datasets library reads it, instead of refusing the
// split.
func TestHFEmptyShard(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{
		"data/train-00000-of-00002.jsonl": "",
		"data/train-00001-of-00002.jsonl": "{\"question\": \"a b c d e\"}\n{\"question\": \"f g h i j\"}\n",
	})
	spec := scenario.Dataset{Name: "hf", Spec: &HFSpec{FileOptions: FileOptions{Path: dir, DisableShuffle: true, NoOversample: true}}}
	reqs, err := Build(context.Background(), spec, Env{Tokenizer: wsTokenizer{}, NumPrompts: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Prompt != "a b c d e" || reqs[1].Prompt != "f g h i j" {
		t.Errorf("requests %+v, want the two rows of the second shard", reqs)
	}
}

// A text column given replaces the search for the prompt column: a text
// column is the prompt, a chat column gives its first user message, the
// output column is still found, and a column the row lacks is an error
// that lists the columns.
func TestHFTextColumn(t *testing.T) {
	row := hfRow{"prompt": "p", "question": "q", "answer": "a",
		"dialog": []any{map[string]any{"role": "user", "content": "hi"}, map[string]any{"role": "assistant", "content": "yo"}}}
	f, err := detectHFFormat(row, "question")
	if err != nil || !slices.Equal(f.prompt, []string{"question"}) || f.output != "answer" || f.chat != "" {
		t.Errorf("text column: %+v, %v", f, err)
	}
	if p, c, skip, err := f.extract(row); err != nil || skip || p != "q" || c != "a" {
		t.Errorf("extract %q %q %v %v", p, c, skip, err)
	}
	f, err = detectHFFormat(row, "dialog")
	if err != nil || f.chat != "dialog" {
		t.Errorf("chat column: %+v, %v", f, err)
	}
	if p, _, _, err := f.extract(row); err != nil || p != "hi" {
		t.Errorf("chat column extract %q, %v", p, err)
	}
	if _, err := detectHFFormat(row, "missing"); err == nil || !strings.Contains(err.Error(), `text_column "missing" is not a column: the columns are answer, dialog, prompt, question`) {
		t.Errorf("missing column: %v", err)
	}
	if f, _ := detectHFFormat(row, ""); !slices.Equal(f.prompt, []string{"prompt"}) {
		t.Errorf("without a text column the prompt column is %v", f.prompt)
	}
}
