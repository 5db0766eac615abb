package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFiles writes name → content under dir and returns dir.
func writeFiles(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHFShuffleMatchesDatasets checks the row order after load_data's
// shuffle, streaming and not, against testdata/hf_shuffle_golden.json
// (gen_hf_shuffle.py, the datasets library's shuffles re-stated on NumPy).
func TestHFShuffleMatchesDatasets(t *testing.T) {
	data, err := os.ReadFile("testdata/hf_shuffle_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			Sizes    []int
			Seed     int64
			NoStream []string `json:"no_stream"`
			Stream   []string
		}
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range g.Cases {
		dir := t.TempDir()
		files := map[string]string{}
		var names []string
		for f, n := range c.Sizes {
			var b strings.Builder
			for r := range n {
				fmt.Fprintf(&b, "{\"id\": \"%d:%d\"}\n", f, r)
			}
			name := fmt.Sprintf("f%02d.jsonl", f)
			files[name] = b.String()
			names = append(names, name)
		}
		writeFiles(t, dir, files)
		repo, err := openDirRepo(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, stream := range []bool{false, true} {
			want := c.NoStream
			if stream {
				want = c.Stream
			}
			rows := &hfRows{repo: repo, split: hfSplit{Split: "train", Format: "json", Files: names}, seed: c.Seed, stream: stream, shuffle: true}
			var got []string
			for r, err := range rows.all(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, r.row["id"].(string))
			}
			if !slices.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("sizes %v seed %d stream %v: %d rows, datasets %d; first difference at %d", c.Sizes, c.Seed, stream, len(got), len(want), i)
			}
		}
	}
}
