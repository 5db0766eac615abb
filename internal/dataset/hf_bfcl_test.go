package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/py"
	"github.com/vbench/vbench/internal/tokenizer"
)

// bfclID is the BFCL dataset's Hub id, which picks the class.
const bfclID = "gorilla-llm/Berkeley-Function-Calling-Leaderboard"

// bfclRun samples the fixture (testdata/bfcl, named as the Hub dataset by
// --hf-name) as the hf kind does.
func bfclRun(spec HFSpec, env Env) ([]Request, error) {
	spec.Path, spec.Name = "testdata/bfcl", bfclID
	var reqs []Request
	for r, err := range (hfSource{spec: spec}).Requests(context.Background(), env) {
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// BFCLDataset's requests are vLLM's, request by request: the categories
// interleaved and shuffled with random.Random(seed), rows without a
// question, functions or first turn skipped, the first turn as the chat
// messages, the functions as OpenAI tools with BFCL's types remapped (key
// order kept) and tool_choice "auto", oversampled from Python's global
// random (golden from gen_bfcl.py).
func TestBFCLGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/bfcl_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Name           string   `json:"name"`
			N              int      `json:"n"`
			Seed           int64    `json:"seed"`
			Prefix         string   `json:"prefix"`
			OutputLen      *int     `json:"output_len"`
			Categories     []string `json:"categories"`
			DisableShuffle bool     `json:"disable_shuffle"`
			Requests       []struct {
				ID        string `json:"request_id"`
				Prompt    string `json:"prompt"`
				PromptLen int    `json:"prompt_len"`
				OutputLen int    `json:"expected_output_len"`
				Messages  []struct {
					Role, Content string
				} `json:"messages"`
				Overrides string `json:"overrides"`
			} `json:"requests"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 5 {
		t.Fatalf("%d cases in the golden file", len(golden.Cases))
	}
	for _, gc := range golden.Cases {
		t.Run(gc.Name, func(t *testing.T) {
			spec := HFSpec{OutputLen: gc.OutputLen, BFCLCategories: gc.Categories}
			spec.DisableShuffle = gc.DisableShuffle
			reqs, err := bfclRun(spec, Env{Tokenizer: wsTokenizer{}, Seed: gc.Seed, NumPrompts: gc.N, IDPrefix: gc.Prefix})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(gc.Requests) {
				t.Fatalf("%d requests, want %d", len(reqs), len(gc.Requests))
			}
			for i, want := range gc.Requests {
				r := reqs[i]
				if r.ID != want.ID || r.Prompt != want.Prompt || r.PromptLen != want.PromptLen || r.OutputLen != want.OutputLen {
					t.Errorf("request %d: %q %q %d %d, want %q %q %d %d", i, r.ID, r.Prompt, r.PromptLen, r.OutputLen,
						want.ID, want.Prompt, want.PromptLen, want.OutputLen)
				}
				if len(r.Messages) != len(want.Messages) {
					t.Fatalf("request %d: %d messages, want %d", i, len(r.Messages), len(want.Messages))
				}
				for k, m := range want.Messages {
					if string(r.Messages[k].Role) != m.Role || r.Messages[k].Content != m.Content {
						t.Errorf("request %d message %d: %+v, want %+v", i, k, r.Messages[k], m)
					}
				}
				o := py.NewObject()
				o.Set("tools", r.ExtraBody["tools"])
				o.Set("tool_choice", r.ExtraBody["tool_choice"])
				got, err := o.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want.Overrides {
					t.Errorf("request %d overrides\n got %s\nwant %s", i, got, want.Overrides)
				}
			}
		})
	}
}

// A category without its file is vLLM's error, naming the file and the
// defaults; a tokenizer without a chat template falls back to the
// messages' plain text, with one warning.
func TestBFCLErrors(t *testing.T) {
	_, err := bfclRun(HFSpec{BFCLCategories: []string{"simple", "parallel"}}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 2})
	want := "BFCL category 'parallel' not found: file 'BFCL_v3_parallel.json' does not exist in testdata/bfcl. Check --bfcl-categories (defaults: simple, live_simple, multiple)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	var log strings.Builder
	reqs, err := bfclRun(HFSpec{BFCLCategories: []string{"simple"}}, Env{Tokenizer: noTemplate{wsTokenizer{}}, NumPrompts: 3, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		var text []string
		for _, m := range r.Messages {
			text = append(text, m.Content)
		}
		if want := len(wsTokenizer{}.Encode(strings.Join(text, "\n"), true)); r.PromptLen != want {
			t.Errorf("%s: prompt_len %d, want the plain text's %d", r.ID, r.PromptLen, want)
		}
	}
	if got := strings.Count(log.String(), "WARNING: BFCL: apply_chat_template failed for 3 of 3 samples"); got != 1 {
		t.Errorf("warnings:\n%s", log.String())
	}
}

// failOnSystem is wsTokenizer whose chat template refuses a system
// message, as some templates do.
type failOnSystem struct{ wsTokenizer }

func (f failOnSystem) ApplyChatTemplate(msgs []tokenizer.Message, add bool, kwargs map[string]any) (string, error) {
	for _, m := range msgs {
		if m.Role == "system" {
			return "", errors.New("System role not supported")
		}
	}
	return f.wsTokenizer.ApplyChatTemplate(msgs, add, kwargs)
}

// When the template fails for some rows only, those fall back to the plain
// text and the one warning counts them and names the failure.
func TestBFCLTemplateFailsForSome(t *testing.T) {
	var log strings.Builder
	spec := HFSpec{BFCLCategories: []string{"simple"}}
	spec.DisableShuffle = true
	reqs, err := bfclRun(spec, Env{Tokenizer: failOnSystem{}, NumPrompts: 3, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 || reqs[2].Messages[0].Role != RoleSystem {
		t.Fatalf("%d requests; the third should be the one with a system message", len(reqs))
	}
	if want := "WARNING: BFCL: apply_chat_template failed for 1 of 3 samples, whose prompt lengths fall back to their messages' plain text: System role not supported\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if want := len(wsTokenizer{}.Encode("You are terse.\nSum the pairs (1, 2) and (3, 4).", true)); reqs[2].PromptLen != want {
		t.Errorf("prompt_len %d, want the plain text's %d", reqs[2].PromptLen, want)
	}
}
