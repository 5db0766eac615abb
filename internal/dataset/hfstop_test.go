package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

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
	spec := &HFSpec{FileOptions: FileOptions{Path: dir, DisableShuffle: true}}
	reqs, err := Build(context.Background(), scenario.Dataset{Name: "hf", Spec: spec}, Env{Tokenizer: wsTokenizer{}, NumPrompts: 2})
	if err != nil {
		t.Fatalf("read past the rows it needed: %v", err)
	}
	if len(reqs) != 2 || reqs[1].Prompt != "six seven eight nine ten" {
		t.Errorf("requests = %+v", reqs)
	}
}

// openFDs counts this process's open file descriptors (Linux).
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// A consumer that stops early leaves no goroutine and no open file
// behind: the parquet workers of every file, the interleaved files of a
// streamed shuffle, and the buffer.
func TestHFRowsStopEarlyLeaksNothing(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 12 {
		name := fmt.Sprintf("data/train-%05d-of-00012.parquet", i)
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeParquet(t, p, convRows(300), 20)
		files = append(files, name)
	}
	repo, err := openDirRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name            string
		stream, shuffle bool
		take            int
	}{
		{"ordered", true, false, 1},
		{"streamed shuffle, inside the buffer fill", true, true, 1},
		{"streamed shuffle, past the buffer fill", true, true, 1500},
		{"not streamed", false, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			goroutines, fds := runtime.NumGoroutine(), openFDs(t)
			rows := &hfRows{repo: repo, split: hfSplit{Split: "train", Format: "parquet", Files: files}, stream: tc.stream, shuffle: tc.shuffle}
			n := 0
			for _, err := range rows.all(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == tc.take {
					break
				}
			}
			if n != tc.take {
				t.Fatalf("read %d rows, want %d", n, tc.take)
			}
			// A goroutine that has finished its work may still be on its
			// way out (the runtime counts it until it returns, and it may
			// not have closed its file yet): give the counts a moment to
			// settle before calling either a leak.
			g, f := runtime.NumGoroutine(), openFDs(t)
			for wait := 0; (g > goroutines || f > fds) && wait < 200; wait++ {
				time.Sleep(10 * time.Millisecond)
				g, f = runtime.NumGoroutine(), openFDs(t)
			}
			if g > goroutines {
				t.Errorf("%d goroutines after stopping, %d before", g, goroutines)
			}
			if f > fds {
				t.Errorf("%d open files after stopping, %d before", f, fds)
			}
		})
	}
}
