package dataset

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHFParquet reads a ShareGPT-like parquet file (20,000 rows of
// four-turn conversations, snappy-compressed, about 9 MB) into rows; the
// MB/s are of parquet file bytes per second of wall time, MB/cpu-s per
// second of the process's CPU time (garbage collection included), which a
// loaded machine does not change. On the 2-core development machine, idle:
// about 105-110 MB/s (row groups decode in parallel), 66-68 MB/s with
// -cpu 1, 62-66 MB/cpu-s.
func BenchmarkHFParquet(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards quietly hex bold jugglers and vexing zebras")
	text := func(n int) string { return benchText(rng, words, n) }
	rows := make([]pqConvRow, 20000)
	for i := range rows {
		rows[i] = pqConvRow{ID: fmt.Sprint(i), Score: int64(i), Conversations: []pqTurn{
			{"human", text(40 + rng.IntN(80))}, {"gpt", text(60 + rng.IntN(200))}, {"human", text(20)}, {"gpt", text(50)},
		}}
	}
	p := filepath.Join(b.TempDir(), "train.parquet")
	writeParquet(b, p, rows, 4096)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportMetric(float64(st.Size())/1e6, "file_MB")
	cpu0 := processCPU()
	for b.Loop() {
		n := 0
		for _, err := range readParquetRows(context.Background(), "train.parquet", p) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(rows) {
			b.Fatalf("%d rows, want %d", n, len(rows))
		}
	}
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(st.Size())*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}
