package dataset

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/tokenizer"
)

// writeShareGPTBench writes a ShareGPT file of n conversations of 2 or 3
// turns (prompts of 5-150 words, replies of 5-250) to a temp dir.
func writeShareGPTBench(b *testing.B, n int) (string, int64) {
	b.Helper()
	p := filepath.Join(b.TempDir(), "sharegpt.json")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := strings.Fields("the of and to in is you that it for was on are as with his they at be this from have or by one had not but what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know")
	text := func(words int) string { return benchText(rng, vocab, words) }
	w.WriteString("[\n")
	for i := range n {
		if i > 0 {
			w.WriteString(",\n")
		}
		fmt.Fprintf(w, `{"id": "c%d", "conversations": [{"from": "human", "value": %q}, {"from": "gpt", "value": %q}`, i, text(5+rng.IntN(146)), text(5+rng.IntN(246)))
		if rng.IntN(2) == 0 {
			fmt.Fprintf(w, `, {"from": "human", "value": %q}`, text(5+rng.IntN(50)))
		}
		w.WriteString("]}")
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p, st.Size()
}

// cpuTime returns the process's user plus system CPU time (processCPU;
// 0 where it is not measured).
func cpuTime(*testing.B) time.Duration { return processCPU() }

// BenchmarkShareGPT prepares 100k requests (oversampling included) from a
// 90k-conversation file: reading, shuffling, measuring and selecting.
func BenchmarkShareGPT(b *testing.B) {
	path, size := writeShareGPTBench(b, 90_000)
	o200k, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tok  tokenizer.Tokenizer
	}{{"words", wordTokenizer{}}, {"o200k_base", o200k}} {
		b.Run(tc.name, func(b *testing.B) {
			spec := ShareGPTSpec{FileOptions: FileOptions{Path: path}}
			env := Env{Tokenizer: tc.tok, Seed: 0, NumPrompts: 100_000}
			b.SetBytes(size)
			before := cpuTime(b)
			for b.Loop() {
				reqs, _, err := ShareGPT(context.Background(), path, spec, env)
				if err != nil {
					b.Fatal(err)
				}
				if len(reqs) != 100_000 {
					b.Fatalf("%d requests", len(reqs))
				}
			}
			// CPU seconds of the whole process per preparation: a figure
			// a loaded machine inflates less than the wall time.
			b.ReportMetric((cpuTime(b)-before).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// benchText returns words words drawn from vocab, separated by spaces.
func benchText(rng *rand.Rand, vocab []string, words int) string {
	var sb strings.Builder
	for i := range words {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(vocab[rng.IntN(len(vocab))])
	}
	return sb.String()
}
