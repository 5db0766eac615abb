package dataset

import (
	"context"
	"testing"

	"github.com/vbench/vbench/internal/scenario"
)

// Once num_prompts requests are made, the generic hf sampler reads no
// further row: the next one could be in another file (a download of a
// Hub file it does not need), here a broken one.
func TestHFGenericStopsAtNumPrompts(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{
		"data/train-0.jsonl": `{"prompt": "one two three four five"}` + "\n" + `{"prompt": "six seven eight nine ten"}` + "\n",
		"data/train-1.jsonl": "{not JSON\n",
	})
	spec := &scenario.HFDataset{FileOptions: scenario.FileOptions{Path: dir, DisableShuffle: true}}
	reqs, err := Build(context.Background(), scenario.Dataset{HF: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 2})
	if err != nil {
		t.Fatalf("read past the rows it needed: %v", err)
	}
	if len(reqs) != 2 || reqs[1].Prompt != "six seven eight nine ten" {
		t.Errorf("requests = %+v", reqs)
	}
}
