package dataset

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vbench/vbench/internal/scenario"
)

// MemoryEstimate is what a dataset kind expects a run of it to hold (see
// Kind.Memory), before the collector's overhead.
type MemoryEstimate struct {
	// Fixed is what the kind holds whatever the number of requests: a
	// file read whole, a chunk of requests being made.
	Fixed float64
	// PerRequest is what each request adds while the run goes: the
	// requests of a kind built whole before the run, held until sent.
	PerRequest float64
	// PromptTokens and OutputTokens are a request's expected prompt and
	// output lengths, which size the run's payloads and records.
	PromptTokens, OutputTokens float64
}

// DefaultMemory is the estimate of a kind without Kind.Memory: a kind
// built whole, with requests of a few hundred tokens.
var DefaultMemory = MemoryEstimate{PerRequest: 4 << 10, PromptTokens: 512, OutputTokens: 256}

// MemoryOf is the estimate of a run of spec with numPrompts requests:
// its kind's Kind.Memory, else DefaultMemory.
func MemoryOf(spec scenario.Dataset, numPrompts int) MemoryEstimate {
	k, ok := Lookup(spec.Name)
	if !ok || k.Memory == nil {
		return DefaultMemory
	}
	return k.Memory(spec, numPrompts)
}

// pathBytes is the size of a local file, or of the files under a local
// directory; 0 for anything else (a Hub id not downloaded yet).
func pathBytes(path string) float64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if !st.IsDir() {
		return float64(st.Size())
	}
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return float64(n)
}

// lenOr is *v as a float, or def when v is nil.
func lenOr(v *int, def float64) float64 {
	if v == nil {
		return def
	}
	return float64(*v)
}
