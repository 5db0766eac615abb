//go:build !unix

package dataset

import "time"

// processCPU is not measured here: benchmarks then report no CPU
// throughput.
func processCPU() time.Duration { return 0 }
