package tokenizer

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// benchTokenizers returns the tokenizers to benchmark: the full-size
// Qwen3 and Mistral files when $VBENCH_TOKENIZERS_DIR has them (see
// full_test.go), else the cut-down fixtures.
func benchTokenizers(b *testing.B) map[string]*HF {
	out := map[string]*HF{}
	for _, name := range []string{"qwen3", "mistral"} {
		if dir := os.Getenv("VBENCH_TOKENIZERS_DIR"); dir != "" {
			p := filepath.Join(dir, name, "tokenizer.json")
			if _, err := os.Stat(p); err == nil {
				out[name] = loadFullHF(b, p)
				continue
			}
		}
		out[name+"-cut"] = loadFixture(b, name+"-cut")
	}
	return out
}

// englishText returns about n bytes of English prose with some markup:
// the Go specification from GOROOT, or generated words when it is absent.
func englishText(n int) string {
	goroot, _ := exec.Command("go", "env", "GOROOT").Output()
	if data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "doc", "go_spec.html")); err == nil && len(data) >= n {
		s := string(data[:n])
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s
	}
	r := rand.New(rand.NewPCG(9, 9))
	words := []string{"the", "of", "and", "a", "to", "in", "is", "you", "that", "it", "benchmark",
		"tokenizer", "latency", "throughput", "request", "server", "model", "prompt", "value"}
	var b []byte
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		switch r.IntN(12) {
		case 0:
			b = append(b, ".\n"...)
		case 1:
			b = append(b, ", "...)
		default:
			b = append(b, ' ')
		}
	}
	return string(b)
}

// datasetText returns about n bytes built as the random dataset builds
// prompts: the decoding of runs of consecutive token ids.
func datasetText(tok *HF, n int) string {
	r := rand.New(rand.NewPCG(3, 3))
	var ids []int
	s := ""
	for len(s) < n {
		off := r.IntN(tok.VocabSize())
		for k := range 512 {
			ids = append(ids, (off+k)%tok.VocabSize())
		}
		s = tok.Decode(ids)
	}
	return s
}

// BenchmarkHFEncode reports encode throughput on 100 KB texts (the
// acceptance figure is ≥ 1 M tokens/s for byte-level BPE, "warm"). "cold"
// empties the merge cache before each encoding.
func BenchmarkHFEncode(b *testing.B) {
	for name, tok := range benchTokenizers(b) {
		texts := map[string]string{"english": englishText(100 << 10), "dataset": datasetText(tok, 100<<10)}
		for kind, text := range texts {
			b.Run(name+"/"+kind+"/warm", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				tokens := 0
				for b.Loop() {
					tokens += len(tok.Encode(text, false))
				}
				b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
			})
			b.Run(name+"/"+kind+"/cold", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				tokens := 0
				for b.Loop() {
					b.StopTimer()
					tok.model.cache = newPieceCache()
					b.StartTimer()
					tokens += len(tok.Encode(text, false))
				}
				b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

// BenchmarkHFDecode reports decode throughput.
func BenchmarkHFDecode(b *testing.B) {
	for name, tok := range benchTokenizers(b) {
		ids := tok.Encode(datasetText(tok, 100<<10), false)
		b.Run(name, func(b *testing.B) {
			tokens := 0
			for b.Loop() {
				tok.Decode(ids)
				tokens += len(ids)
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
