package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// idsTokenizer is testdata/gen_burstgpt.py's IDS tokenizer: a vocabulary
// of 11 tokens whose decode writes the ids, separated by spaces, so the
// golden prompts show exactly which ids vLLM's burstgpt decodes.
type idsTokenizer struct{ wsTokenizer }

func (idsTokenizer) Name() string   { return "ids" }
func (idsTokenizer) VocabSize() int { return 11 }
func (idsTokenizer) Decode(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, " ")
}

// burstGPTGolden is testdata/burstgpt_golden.json, written by
// testdata/gen_burstgpt.py from vLLM's selection on testdata/burstgpt/trace.csv.
type burstGPTGolden []struct {
	Name     string
	Seed     int64
	N        int
	Prefix   string
	Requests []vllmRequest
}

// vllmRequest is a vLLM SampleRequest as the golden scripts write it.
type vllmRequest struct {
	Prompt    string
	PromptLen int    `json:"prompt_len"`
	OutputLen int    `json:"expected_output_len"`
	RequestID string `json:"request_id"`
}

// checkVLLMRequests compares requests with vLLM's.
func checkVLLMRequests(t *testing.T, reqs []Request, want []vllmRequest) {
	t.Helper()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, w := range want {
		got := reqs[i]
		if got.Prompt != w.Prompt || got.PromptLen != w.PromptLen || got.OutputLen != w.OutputLen || got.ID != w.RequestID {
			t.Errorf("request %d = {%q %d %d %q}, want {%q %d %d %q}", i,
				got.Prompt, got.PromptLen, got.OutputLen, got.ID, w.Prompt, w.PromptLen, w.OutputLen, w.RequestID)
		}
	}
}

func TestBurstGPTGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "burstgpt_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden burstGPTGolden
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden) < 4 {
		t.Fatalf("the golden file has %d cases", len(golden))
	}
	spec := scenario.Dataset{Name: "burstgpt", Spec: &BurstGPTSpec{Path: filepath.Join("testdata", "burstgpt", "trace.csv")}}
	for _, c := range golden {
		t.Run(c.Name, func(t *testing.T) {
			reqs, err := Build(context.Background(), spec, Env{Tokenizer: idsTokenizer{}, Seed: c.Seed, NumPrompts: c.N, IDPrefix: c.Prefix})
			if err != nil {
				t.Fatal(err)
			}
			checkVLLMRequests(t, reqs, c.Requests)
		})
	}
}

func TestBurstGPTKeptRows(t *testing.T) {
	rows, err := ReadBurstGPTFile(filepath.Join("testdata", "burstgpt", "trace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// GPT-4 rows with a response: not ChatGPT, not "gpt-4", not 0 or empty
	// response tokens.
	want := []BurstGPTRow{{417, 346, 4}, {3, 27, 6}, {12, 1, 8}, {7, 19, 10}, {4, 5, 11}, {21, 8, 12},
		{2, 44, 15}, {33, 2, 16}, {5, 13, 18}, {26, 71, 19}, {1, 3, 20}}
	if len(rows) != len(want) {
		t.Fatalf("kept %d rows %v, want %d", len(rows), rows, len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
}

func TestBurstGPTErrors(t *testing.T) {
	const head = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
	tests := []struct {
		name, file, want string
	}{
		{"empty", "", "t.csv: the file is empty: expected a CSV with BurstGPT's header Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"},
		{"blank lines", "\n\n", "t.csv: the file is empty: expected a CSV with BurstGPT's header"},
		{"no model", "Timestamp,Engine,Request tokens,Response tokens\n", `t.csv:1: the header has no "Model" column: expected BurstGPT's header`},
		{"no response", "Timestamp,Model,Request tokens,Reply tokens\n", `t.csv:1: the header has no "Response tokens" column`},
		{"three columns", "Model,Request tokens,Response tokens\n", "t.csv:1: the header has 3 columns: expected at least 4"},
		{"short row", head + "1,GPT-4,3,4,7,API log\n2,GPT-4,3\n", "t.csv:3: wrong number of fields: expected BurstGPT's 6-field rows"},
		{"bad quote", head + "1,\"GPT-4,3,4,7,API log\n", "t.csv:2: extraneous or missing \" in quoted-field"},
		{"text response", head + "1,ChatGPT,3,many,7,API log\n", `t.csv:2: row 1: "Response tokens" is "many": expected a number`},
		{"text request", head + "1,GPT-4,3,4,7,API log\n2,GPT-4,lots,4,7,API log\n", `t.csv:3: row 2: the request tokens (3rd column) are "lots": expected a whole number, 0 or more`},
		{"empty request", head + "2,GPT-4,,4,7,API log\n", `t.csv:2: row 1: the request tokens (3rd column) are ""`},
		{"fractional response", head + "2,GPT-4,3,4.5,7,API log\n", `t.csv:2: row 1: the response tokens (4th column) are "4.5": expected a whole number`},
		{"negative request", head + "2,GPT-4,-3,4,7,API log\n", `row 1: the request tokens (3rd column) are "-3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readBurstGPT("t.csv", strings.NewReader(tt.file))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is not one line", err)
			}
		})
	}
}

func TestBurstGPTAcceptsPandasForms(t *testing.T) {
	// A BOM, quoted fields, CRLF line ends, blank lines, whole numbers
	// written as floats read as pandas reads them; an empty response is NaN, which the filter drops.
	file := "\ufeffTimestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\r\n" +
		"1,\"GPT-4\",\"12\",3.0,15,\"API, log\"\r\n\r\n" +
		"2,GPT-4,5,,5,API log\r\n" +
		"3,GPT-4 ,5,1,6,API log\r\n" +
		"4,GPT-4,8e1,2,82,API log\r\n"
	rows, err := readBurstGPT("t.csv", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	want := []BurstGPTRow{{12, 3, 2}, {80, 2, 6}}
	if len(rows) != len(want) || rows[0] != want[0] || rows[1] != want[1] {
		t.Fatalf("rows %+v, want %+v", rows, want)
	}
}

func TestBurstGPTSampleErrors(t *testing.T) {
	rows := []BurstGPTRow{{1, 1, 2}}
	tests := []struct {
		name string
		rows []BurstGPTRow
		n    int
		seed int64
		want string
	}{
		{"no rows", nil, 3, 0, "no row to sample: expected GPT-4 rows"},
		{"zero prompts", rows, 0, 0, "num_prompts (--num-prompts) is 0: burstgpt samples a positive number of rows"},
		{"negative seed", rows, 1, -1, "seed (--seed) is -1"},
		{"large seed", rows, 1, 1 << 32, "seed (--seed) is 4294967296"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SampleBurstGPT(tt.rows, tt.n, tt.seed)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestBurstGPTSpecErrors(t *testing.T) {
	for _, spec := range []scenario.Dataset{{}, {Name: "burstgpt", Spec: &BurstGPTSpec{}}} {
		if _, err := newBurstGPTSource(spec); err == nil {
			t.Errorf("newBurstGPTSource(%+v) accepted", spec)
		}
	}
	_, err := Build(context.Background(), scenario.Dataset{Name: "burstgpt", Spec: &BurstGPTSpec{Path: "x.csv"}}, Env{NumPrompts: 1})
	if err == nil || !strings.Contains(err.Error(), "needs a client tokenizer") {
		t.Errorf("without a tokenizer: %v", err)
	}
	_, err = Build(context.Background(), scenario.Dataset{Name: "burstgpt", Spec: &BurstGPTSpec{Path: filepath.Join(t.TempDir(), "none.csv")}},
		Env{Tokenizer: idsTokenizer{}, NumPrompts: 1})
	if err == nil || !strings.Contains(err.Error(), "none.csv") {
		t.Errorf("a missing file: %v", err)
	}
}

// FuzzReadBurstGPT reads arbitrary CSV: errors name the file, kept rows
// are GPT-4 rows with responses in file order, and they read back the
// same when written as a BurstGPT file.
func FuzzReadBurstGPT(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "burstgpt", "trace.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("Model,a,b,Response tokens\nGPT-4,1,2,3\n")
	f.Add("Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,\"3\n\",4\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := readBurstGPT("f.csv", strings.NewReader(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		prev := 1
		for _, r := range rows {
			if r.Request < 0 || r.Response <= 0 || r.Line <= prev {
				t.Fatalf("kept row %+v after line %d", r, prev)
			}
			prev = r.Line
		}
		// The kept rows, written as a BurstGPT file, read back the same.
		var b strings.Builder
		b.WriteString(burstGPTHeader + "\n")
		for i, r := range rows {
			fmt.Fprintf(&b, "%d,GPT-4,%d,%d,%d,Conversation log\n", i, r.Request, r.Response, r.Request+r.Response)
		}
		back, err := readBurstGPT("f.csv", strings.NewReader(b.String()))
		if err != nil || len(back) != len(rows) {
			t.Fatalf("%q read back as %d rows, %v", b.String(), len(back), err)
		}
		for i, r := range back {
			if r.Request != rows[i].Request || r.Response != rows[i].Response || r.Line != i+2 {
				t.Fatalf("row %d read back as %+v, was %+v", i, r, rows[i])
			}
		}
	})
}

// BenchmarkReadBurstGPT reads a CSV of 200k BurstGPT-like rows (the real
// trace has about 1.4M), half of them GPT-4 rows with a response.
func BenchmarkReadBurstGPT(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
	for i := range 200000 {
		model, resp := "GPT-4", 1+i%400
		if i%2 == 1 {
			model = "ChatGPT"
		}
		in := 3 + i%1500
		fmt.Fprintf(&sb, "%d,%s,%d,%d,%d,Conversation log\n", 5+i*7, model, in, resp, in+resp)
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rows, err := readBurstGPT("b.csv", strings.NewReader(data))
		if err != nil || len(rows) != 100000 {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
	}
}
