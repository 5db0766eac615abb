package pipeline

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/scenario"
)

// chainSource is a dataset kind that asks for feedback: request i+1's
// prompt carries request i's answer, exactly as received.
type chainSource struct{}

func (chainSource) Requests(ctx context.Context, env dataset.Env) iter.Seq2[dataset.Request, error] {
	return func(yield func(dataset.Request, error) bool) {
		prompt := "start"
		for i := range env.NumPrompts {
			if i > 0 {
				a, err := env.Feedback.Wait(ctx, i-1)
				if err != nil {
					yield(dataset.Request{}, err)
					return
				}
				prompt = "after: " + a.Text
			}
			if i+1 < env.NumPrompts {
				env.Feedback.Expect(i)
			}
			r := dataset.Request{Prompt: prompt, PromptLen: len(env.Tokenizer.Encode(prompt, false)), OutputLen: 3, ID: env.IDPrefix + strconv.Itoa(i)}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// TestFeedbackChainEndToEnd runs a kind whose request i+1 contains request
// i's answer text against the simulator: each prompt the server receives
// after the first is "after: " and the previous request's generated text.
func TestFeedbackChainEndToEnd(t *testing.T) {
	defer scenario.ExtendSchemaForTest("chain.cue", []byte("package schema\n\n#Dataset: chain?: {}\n"))()
	defer dataset.RegisterForTest(dataset.Kind{Name: "chain", NeedsTokenizer: true, Feedback: true,
		Spec:  func() any { return new(struct{}) },
		Count: func(_ scenario.Dataset, n int) int { return n },
		New:   func(scenario.Dataset) (dataset.Source, error) { return chainSource{}, nil }})()
	cs := newCaptureServer(t)
	srv := httptest.NewServer(cs)
	defer srv.Close()
	const n = 12
	sc, err := scenario.LoadBytes("chain.cue", []byte(`
target: {base_url: "`+srv.URL+`", model: "vbench-sim", request_id_prefix: "chain-"}
tokenizer: name: "o200k_base"
dataset: chain: {}
load: {num_prompts: `+strconv.Itoa(n)+`, max_concurrency: 4}
sampling: ignore_eos: true
output: save_result: false
`), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	out, err := Run(context.Background(), sc, Env{KeepRecords: true, Stdout: &stdout, Stderr: io.Discard,
		Getenv: func(string) string { return "" }, Now: time.Now})
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if out.Summary.Completed != n || len(out.Records) != n {
		t.Fatalf("completed %d, %d records; want %d", out.Summary.Completed, len(out.Records), n)
	}
	prompts := map[string]string{}
	timed, _ := cs.completions()
	for _, c := range timed {
		prompts[c.id], _ = c.body["prompt"].(string)
	}
	if got := prompts["chain-0"]; got != "start" {
		t.Errorf("request 0 prompt %q, want %q", got, "start")
	}
	for i := 1; i < n; i++ {
		prev := out.Records[i-1].GeneratedText
		if prev == "" {
			t.Fatalf("request %d has no answer text: %+v", i-1, out.Records[i-1])
		}
		want := "after: " + prev
		if got := prompts["chain-"+strconv.Itoa(i)]; got != want {
			t.Errorf("request %d prompt %q, want %q", i, got, want)
		}
		// It was sent only after the answer it carries had ended.
		if out.Records[i].Start < out.Records[i-1].End {
			t.Errorf("request %d started at %v, before request %d ended at %v", i, out.Records[i].Start, i-1, out.Records[i-1].End)
		}
	}
	if !strings.Contains(stdout.String(), "Serving Benchmark Result") {
		t.Errorf("no result block in:\n%s", stdout.String())
	}
}
