package pipeline

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/metrics"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/tokenizer"
)

// countingTokenizer counts whitespace words and how often it was asked.
type countingTokenizer struct {
	tokenizer.Tokenizer
	calls atomic.Int64
}

func (c *countingTokenizer) Encode(text string, _ bool) []int {
	c.calls.Add(1)
	return make([]int, len(strings.Fields(text)))
}

// TestFoldTokenizesOnce: the fold counts every success's text once, after
// the run, for the token accounting, and vLLM's output-length rule reuses
// those counts for the successes without server usage; its output lengths
// are vLLM's (server usage first).
func TestFoldTokenizesOnce(t *testing.T) {
	recs := []*record.Record{
		{Index: 0, Success: true, GeneratedText: "a b c", OutputTokens: 3},
		{Index: 1, Success: true, GeneratedText: "a b c d", OutputTokens: 0},   // no usage: vLLM counts 4
		{Index: 2, Success: true, GeneratedText: "x y", OutputTokens: 5},       // disagrees by 3
		{Index: 3, Success: false, GeneratedText: "q", Error: "Bad Request"},   // left out
		{Index: 4, Success: true, GeneratedText: "e f g h i", OutputTokens: 0}, // no usage: 5
	}
	tok := &countingTokenizer{}
	acc := metrics.NewAccumulator(metrics.Options{CountTokens: countTokens(tok), AccountTokens: true, SpillDir: t.TempDir()})
	defer acc.Release()
	for _, r := range recs {
		acc.Add(r)
	}
	sum, err := acc.Close(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ta := acc.TokenAccounting()
	want := metrics.TokenAccounting{Compared: 2, Disagreeing: 1, ClientTokens: 5, ServerTokens: 8, SumAbsDiff: 3, MaxAbsDiff: 3, NoServerUsage: 2}
	if ta == nil || *ta != want {
		t.Fatalf("accounting %+v, want %+v", ta, want)
	}
	if err := acc.Arrays(sum, true); err != nil {
		t.Fatal(err)
	}
	if got := sum.OutputLens; len(got) != 5 || got[0] != 3 || got[1] != 4 || got[2] != 5 || got[3] != 0 || got[4] != 5 {
		t.Errorf("vLLM's output lengths %v, want [3 4 5 0 5]", got)
	}
	if n := tok.calls.Load(); n != 4 {
		t.Errorf("%d tokenizations for 4 successes", n)
	}
	none := metrics.NewAccumulator(metrics.Options{AccountTokens: true})
	none.Add(recs[0])
	if _, err := none.Close(time.Second); err != nil || none.TokenAccounting() != nil {
		t.Errorf("no tokenizer: want no accounting, got %+v (%v)", none.TokenAccounting(), err)
	}
}

func TestTokenAccountingText(t *testing.T) {
	tests := []struct {
		name string
		ta   *metrics.TokenAccounting
		line string
		json string
	}{
		{"none", nil, "", "null"},
		{"agree", &metrics.TokenAccounting{Compared: 4, ClientTokens: 40, ServerTokens: 40},
			"Token accounting: 0 of 4 requests disagree (0.00 %) between tokenizer tk and the server's usage: 40 vs 40 output tokens, mean |diff| 0.00, max 0\n",
			`{"compared":4,"disagreeing":0,"disagreeing_share":0,"client_tokens":40,"server_tokens":40,"mean_abs_diff":0,"max_abs_diff":0,"no_server_usage":0,"stop_tokens":0,"stop_strings":0}`},
		{"disagree, some without usage", &metrics.TokenAccounting{Compared: 3, Disagreeing: 1, ClientTokens: 31, ServerTokens: 30, SumAbsDiff: 1, MaxAbsDiff: 1, NoServerUsage: 2},
			"Token accounting: 1 of 3 requests disagree (33.33 %) between tokenizer tk and the server's usage: 31 vs 30 output tokens, mean |diff| 0.33, max 1; 2 without server usage (counted by the client tokenizer, as vLLM does)\n",
			`{"compared":3,"disagreeing":1,"disagreeing_share":33.333333333333336,"client_tokens":31,"server_tokens":30,"mean_abs_diff":0.3333333333333333,"max_abs_diff":1,"no_server_usage":2,"stop_tokens":0,"stop_strings":0}`},
		{"no usage at all", &metrics.TokenAccounting{NoServerUsage: 5},
			"Token accounting: no request had server usage to compare with tokenizer tk; 5 without server usage (counted by the client tokenizer, as vLLM does)\n",
			`{"compared":0,"disagreeing":0,"disagreeing_share":null,"client_tokens":0,"server_tokens":0,"mean_abs_diff":null,"max_abs_diff":0,"no_server_usage":5,"stop_tokens":0,"stop_strings":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokenAccountingLine(tt.ta, "tk"); got != tt.line {
				t.Errorf("line\n%q\nwant\n%q", got, tt.line)
			}
			b, err := json.Marshal(tokenAccountingJSON(tt.ta))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.json {
				t.Errorf("JSON\n%s\nwant\n%s", b, tt.json)
			}
		})
	}
	// Every key the metric table reads from "token_accounting" is there.
	o := tokenAccountingJSON(&metrics.TokenAccounting{Compared: 1})
	b, _ := json.Marshal(o)
	for _, d := range metrics.Defs() {
		if len(d.Path) == 3 && d.Path[1] == "token_accounting" && !strings.Contains(string(b), `"`+d.Path[2]+`":`) {
			t.Errorf("metric %s reads %v, which the object lacks", d.Key, d.Path)
		}
	}
}

// TestRunTraceContextAndAccounting runs against the built-in simulator
// with trace context on: every record has a distinct W3C trace id, and
// the result's "vbench" object has the token accounting of all 12
// requests (the simulator's usage against o200k_base's count).
func TestRunTraceContextAndAccounting(t *testing.T) {
	out, stdout, err := runScenario(t, base+"metrics: trace_context: true\noutput: records: true\n")
	if err != nil {
		t.Fatal(err)
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for _, r := range out.Records {
		if !hex32.MatchString(r.TraceID) || seen[r.TraceID] {
			t.Errorf("record %d: trace id %q (seen before: %v)", r.Index, r.TraceID, seen[r.TraceID])
		}
		seen[r.TraceID] = true
	}
	f, err := record.ReadFile(out.RecordsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Records {
		if !seen[r.TraceID] {
			t.Errorf("records file: record %d has trace id %q", r.Index, r.TraceID)
		}
	}
	ta := out.TokenAccounting
	if ta == nil || ta.Compared != 12 || ta.ServerTokens != 72 || ta.NoServerUsage != 0 {
		t.Fatalf("accounting %+v", ta)
	}
	if !strings.Contains(stdout, "Token accounting: ") {
		t.Errorf("no accounting line in\n%s", stdout)
	}
	b, err := os.ReadFile(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		VBench struct {
			TokenAccounting map[string]any `json:"token_accounting"`
		} `json:"vbench"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if got := res.VBench.TokenAccounting["compared"]; got != 12.0 {
		t.Errorf("result token_accounting %v", res.VBench.TokenAccounting)
	}
}
