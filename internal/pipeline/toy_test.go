package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/backend"
	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sim"
)

// toySpec is the section of a dataset kind that exists only in this test,
// "toy": request i asks "<word> <i>" for i+1 output tokens.
type toySpec struct {
	Word string `json:"word"`
}

// toySchema is the toy kind's schema entry, with its default.
const toySchema = `package schema

#Dataset: toy?: {word: *"toy" | string}
`

// toyKind is the toy kind's registry entry: its spec type, its source,
// and a rule the schema cannot state (its word has no spaces).
var toyKind = dataset.Kind{Name: "toy", NeedsTokenizer: true,
	Spec: func() any { return new(toySpec) },
	New: func(d scenario.Dataset) (dataset.Source, error) {
		return toySource{word: d.Spec.(*toySpec).Word}, nil
	},
	Check: func(spec any) []scenario.Problem {
		if w := spec.(*toySpec).Word; w == "" || strings.Contains(w, " ") {
			return []scenario.Problem{scenario.NewProblem(fmt.Sprintf("word %q: want one word", w), "dataset", "toy", "word")}
		}
		return nil
	}}

// toySource makes the toy kind's requests.
type toySource struct{ word string }

func (s toySource) Requests(ctx context.Context, env dataset.Env) iter.Seq2[dataset.Request, error] {
	return func(yield func(dataset.Request, error) bool) {
		for i := range env.NumPrompts {
			p := s.word + " " + strconv.Itoa(i)
			r := dataset.Request{Prompt: p, PromptLen: len(env.Tokenizer.Encode(p, false)), OutputLen: i + 1, ID: env.IDPrefix + strconv.Itoa(i)}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// toyJSONChat is a backend kind that exists only in this test: a
// non-streaming chat request whose prompt is a plain string, decoded from
// the whole body with encoding/json.
type toyJSONChat struct{}

func (toyJSONChat) Payload(r *dataset.Request, o *backend.PayloadOptions) ([]byte, error) {
	return json.Marshal(map[string]any{
		"model":                 o.Model,
		"messages":              []map[string]string{{"role": "user", "content": r.Prompt}},
		"max_completion_tokens": r.OutputLen,
		"ignore_eos":            true,
		"toy":                   true,
	})
}

func (toyJSONChat) Decode(data, text []byte) (backend.Message, []byte, error) {
	var body struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return backend.Message{}, text, err
	}
	m := backend.Message{Output: len(body.Choices) > 0,
		HasPromptTokens: true, PromptTokens: body.Usage.PromptTokens,
		HasOutputTokens: true, OutputTokens: body.Usage.CompletionTokens}
	if m.Output {
		text = append(text, body.Choices[0].Message.Content...)
	}
	return m, text, nil
}

// TestToyKindsEndToEnd adds a dataset kind that does not exist and a
// backend kind, each through its registry alone (the dataset kind plus its
// schema entry), and runs one pipeline with both against the simulator: the
// requests the server receives are the toy dataset's, in the toy backend's
// wire format, and the summary counts the toy decoder's tokens. The toy
// kind's own rule is checked where the scenario is loaded, with its
// position.
func TestToyKindsEndToEnd(t *testing.T) {
	defer scenario.ExtendSchemaForTest("toy.cue", []byte(toySchema))()
	defer dataset.RegisterForTest(toyKind)()
	if err := backend.Register(backend.Kind{Name: "toy-json-chat", URLSuffix: "chat/completions", APIName: "Toy Chat API",
		Task: backend.TaskGeneration, Codec: toyJSONChat{}}); err != nil {
		t.Fatal(err)
	}
	defer backend.Unregister("toy-json-chat")

	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
	simSrv, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		payloads = map[string]map[string]any{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if r.URL.Path == "/v1/chat/completions" {
			var p map[string]any
			if err := json.Unmarshal(body, &p); err != nil {
				t.Errorf("payload %s: %v", body, err)
			}
			mu.Lock()
			payloads[r.Header.Get("x-request-id")] = p
			mu.Unlock()
		}
		simSrv.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()

	sc, err := scenario.LoadBytes("toy.cue", []byte(`
target: {base_url: "`+srv.URL+`", backend: "openai-chat", endpoint: "/v1/chat/completions", model: "vbench-sim", request_id_prefix: "toy-"}
tokenizer: name: "o200k_base"
dataset: toy: {}
load: num_prompts: 4
output: save_result: false
`), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The schema's backend enum is vLLM's list; a kind registered in Go
	// is chosen in Go.
	sc.Target.Backend = "toy-json-chat"
	if err := pipeline.CheckRun(sc); err != nil {
		t.Fatalf("CheckRun: %v", err)
	}
	var stdout bytes.Buffer
	out, err := pipeline.Run(context.Background(), sc, pipeline.Env{Stdout: &stdout, Stderr: io.Discard,
		Getenv: func(string) string { return "" }, Now: time.Now})
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if out.Summary.Completed != 4 || out.Summary.TotalOutput != 1+2+3+4 {
		t.Errorf("completed %d, output tokens %d; want 4 and 10", out.Summary.Completed, out.Summary.TotalOutput)
	}
	if !strings.Contains(stdout.String(), "Serving Benchmark Result") {
		t.Errorf("no result block in:\n%s", stdout.String())
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range 4 {
		p := payloads["toy-"+strconv.Itoa(i)]
		if p == nil {
			t.Fatalf("request toy-%d was not sent; got %v", i, payloads)
		}
		msgs, _ := p["messages"].([]any)
		if p["toy"] != true || len(msgs) != 1 || p["max_completion_tokens"] != float64(i+1) {
			t.Errorf("request %d payload %v, want the toy backend's body for the toy dataset's request", i, p)
		}
		if m, _ := msgs[0].(map[string]any); m["content"] != "toy "+strconv.Itoa(i) {
			t.Errorf("request %d message %v, want the prompt %q", i, msgs[0], "toy "+strconv.Itoa(i))
		}
	}
}

// TestToyKindRules loads scenarios of the toy kind: its defaults come from
// its schema entry, its Check's problem names the field's position, and
// load.num_prompts 0 is refused because the kind does not mean "all" by it.
func TestToyKindRules(t *testing.T) {
	defer scenario.ExtendSchemaForTest("toy.cue", []byte(toySchema))()
	defer dataset.RegisterForTest(toyKind)()
	sc, err := scenario.LoadBytes("ok.yaml", []byte("dataset:\n  toy: {}\n"), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := sc.Dataset.Spec.(*toySpec).Word; sc.Dataset.Name != "toy" || w != "toy" {
		t.Errorf("dataset %s %+v, want toy with the schema's default word", sc.Dataset.Name, sc.Dataset.Spec)
	}
	for _, tc := range []struct{ src, want string }{
		{"dataset:\n  toy:\n    word: two words\n", `bad.yaml:3:5: dataset.toy.word: word "two words": want one word`},
		{"load:\n  num_prompts: 0\ndataset:\n  toy: {}\n", "bad.yaml:2:3: load.num_prompts: 0 requests: want at least 1"},
	} {
		_, err := scenario.LoadBytes("bad.yaml", []byte(tc.src), scenario.Options{})
		if err == nil || err.Error() != tc.want {
			t.Errorf("loading %q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}
