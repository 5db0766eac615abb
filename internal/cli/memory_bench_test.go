//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/sim"
	"github.com/vbench/vbench/internal/tokenizer"
)

// memChildEnv makes the test binary a vbench client for
// BenchmarkRunMemory: "URL N EXTRA..." runs vbench serve against URL with
// N random requests (8 in, 4 out) at concurrency 64 and exits.
const memChildEnv = "VBENCH_MEM_CHILD"

// TestMemoryChild is BenchmarkRunMemory's client process; without
// memChildEnv it does nothing.
func TestMemoryChild(t *testing.T) {
	spec := os.Getenv(memChildEnv)
	if spec == "" {
		return
	}
	f := strings.Fields(spec)
	args := append([]string{"serve", "--base-url", f[0], "--model", "vbench-sim", "--dataset-name", "random",
		"--random-input-len", "8", "--random-output-len", "4", "--num-prompts", f[1], "--max-concurrency", "64",
		"--tokenizer", "o200k_base", "--disable-tqdm"}, f[2:]...)
	code := Main(args, Process{Stdout: io.Discard, Stderr: os.Stderr, Getenv: os.Getenv, Context: context.Background()})
	os.Exit(code)
}

// BenchmarkRunMemory measures the peak RSS of a vbench serve client
// process (the test binary re-run as one) running N requests of 8 input
// and 4 output tokens against the simulator, with no latency, in this
// process. N is each of VBENCH_MEM_N (comma-separated; default 100000 and
// 1000000); VBENCH_MEM_ARGS adds flags (e.g. "--save-result
// --result-dir /tmp/x"). It reports peak-MB and the client's wall time;
// run it with -benchtime=1x.
func BenchmarkRunMemory(b *testing.B) {
	tok, err := tokenizer.Builtin("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := sim.Start(sim.Config{Model: "vbench-sim", Tokenizer: pipeline.SimTokenizer(tok), DefaultOutputLen: 128, MaxModelLen: 1 << 20}, "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ns := strings.Split(os.Getenv("VBENCH_MEM_N"), ",")
	if ns[0] == "" {
		ns = []string{"100000", "1000000"}
	}
	for _, n := range ns {
		if _, err := strconv.Atoi(n); err != nil {
			b.Fatalf("VBENCH_MEM_N: %q is not a number", n)
		}
		b.Run("requests="+n, func(b *testing.B) {
			for range b.N {
				cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$")
				cmd.Env = append(os.Environ(), memChildEnv+"="+srv.URL()+" "+n+" "+os.Getenv("VBENCH_MEM_ARGS"))
				cmd.Stderr = os.Stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("client: %v", err)
				}
				ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				if !ok {
					b.Skip("no rusage on this platform")
				}
				b.ReportMetric(float64(ru.Maxrss)/1024, "peak-MB")
				b.ReportMetric(time.Since(start).Seconds(), "wall-s")
				fmt.Fprintf(os.Stderr, "requests=%s: peak RSS %.1f MB in %s\n", n, float64(ru.Maxrss)/1024, time.Since(start).Round(time.Second))
			}
		})
	}
}
