package dataset

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/tokenizer"
)

// BenchmarkHFBlazedit samples 1000 requests from 1000 blazedit-like rows
// (code of about 5000 characters, as vdaita/edit_5k_char) with o200k_base:
// building, measuring and filtering the prompts, the work that follows the
// loader's.
func BenchmarkHFBlazedit(b *testing.B) {
	o200k, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("def return self if else for in range len print import os sys value result item items append x y z i j None True False")
	rows := make([]hfRow, 1000)
	size := 0
	for i := range rows {
		var sb strings.Builder
		for sb.Len() < 5000 {
			sb.WriteString(vocab[rng.IntN(len(vocab))])
			if rng.IntN(8) == 0 {
				sb.WriteString("\n    ")
			} else {
				sb.WriteByte(' ')
			}
		}
		rows[i] = hfRow{"code": sb.String(), "change_request": "Rename the variable x to count and add type hints.", "norm_distance": rng.Float64()}
		size += sb.Len()
	}
	c := hfClassFor("vdaita/edit_5k_char")
	spec := &HFSpec{SkipChatTemplate: true, BlazeditMaxDistance: 1}
	env := Env{Tokenizer: o200k, NumPrompts: 1000}
	b.SetBytes(int64(size))
	before := cpuTime(b)
	for b.Loop() {
		reqs, err := hfCollect(c, rowSeq(rows), spec, env)
		if err != nil || len(reqs) != 1000 {
			b.Fatalf("%d requests, error %v", len(reqs), err)
		}
	}
	b.ReportMetric((cpuTime(b)-before).Seconds()/float64(b.N), "cpu-s/op")
}
