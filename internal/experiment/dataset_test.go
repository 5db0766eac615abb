package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
)

// wordSource is a toy dataset: request i asks "question <i>" (the file name
// in its spec is only echoed) for i+2 output tokens.
type wordSource struct{ path string }

func (s wordSource) Requests(ctx context.Context, env dataset.Env) iter.Seq2[dataset.Request, error] {
	return func(yield func(dataset.Request, error) bool) {
		for i := range env.NumPrompts {
			p := s.path + " question " + strconv.Itoa(i)
			r := dataset.Request{Prompt: p, PromptLen: len(env.Tokenizer.Encode(p, false)), OutputLen: i + 2,
				ID: env.IDPrefix + strconv.Itoa(i)}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// wordSpec is the toy kind's section: the word its prompts start with.
type wordSpec struct {
	Path string `json:"path"`
}

// TestRunToyDatasetKind registers a toy dataset kind that does not exist
// through the registry and a schema entry alone, and runs it end to end against
// the simulator: the run accepts the kind, sends the toy's prompts and
// output lengths, and forces ignore_eos exactly as the entry declares.
func TestRunToyDatasetKind(t *testing.T) {
	tests := []struct {
		name      string
		policy    dataset.IgnoreEOS
		wantForce bool
	}{
		{"as set", dataset.IgnoreEOSAsSet, false},
		{"forced", dataset.IgnoreEOSAlways, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer scenario.ExtendSchemaForTest("words.cue", []byte("package schema\n\n#Dataset: words?: path: string\n"))()
			defer dataset.RegisterForTest(dataset.Kind{Name: "words", IgnoreEOS: tt.policy, Align: true, NeedsTokenizer: true,
				Spec: func() any { return new(wordSpec) },
				New: func(spec scenario.Dataset) (dataset.Source, error) {
					return wordSource{path: spec.Spec.(*wordSpec).Path}, nil
				}})()

			cfg := sim.DefaultConfig()
			cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
			simSrv, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var (
				mu       sync.Mutex
				payloads = map[string]map[string]any{}
				tokenize int
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				mu.Lock()
				switch r.URL.Path {
				case "/v1/completions":
					var p map[string]any
					if err := json.Unmarshal(body, &p); err != nil {
						t.Errorf("payload %s: %v", body, err)
					}
					payloads[r.Header.Get("x-request-id")] = p
				case "/tokenize":
					tokenize++
				}
				mu.Unlock()
				simSrv.Handler().ServeHTTP(w, r)
			}))
			defer srv.Close()

			sc, err := scenario.LoadBytes("test.cue", []byte(`
target: {base_url: "`+srv.URL+`", model: "vbench-sim", request_id_prefix: "toy-"}
tokenizer: name: "o200k_base"
dataset: words: path: "trace.csv"
load: num_prompts: 3
output: save_result: false
`), scenario.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(sc); err != nil {
				t.Fatalf("Check: %v", err)
			}
			var stdout bytes.Buffer
			out, err := pipeline.Run(context.Background(), sc, pipeline.Env{Stdout: &stdout, Stderr: io.Discard,
				Getenv: func(string) string { return "" }, Now: time.Now})
			if err != nil {
				t.Fatalf("%v\n%s", err, stdout.String())
			}
			if out.Summary.Completed != 3 {
				t.Errorf("completed %d, want 3", out.Summary.Completed)
			}
			// Without ignore_eos the simulator may stop early.
			if tt.wantForce && out.Summary.TotalOutput != 2+3+4 {
				t.Errorf("output tokens %d, want 9", out.Summary.TotalOutput)
			}
			if tokenize == 0 {
				t.Error("the kind aligns, but /tokenize was never called")
			}
			for i := range 3 {
				p := payloads["toy-"+strconv.Itoa(i)]
				if p == nil {
					t.Fatalf("request toy-%d was not sent; got %v", i, payloads)
				}
				if p["prompt"] != "trace.csv question "+strconv.Itoa(i) || p["max_tokens"] != float64(i+2) {
					t.Errorf("request %d payload %v", i, p)
				}
				if _, forced := p["ignore_eos"]; forced != tt.wantForce {
					t.Errorf("request %d: ignore_eos sent = %v, want %v", i, forced, tt.wantForce)
				}
			}
		})
	}
}
