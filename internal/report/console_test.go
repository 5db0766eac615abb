package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/metrics"
)

// resultBlock cuts vLLM's result block out of a captured console: from the
// "Serving Benchmark Result" header through the closing line of "=".
func resultBlock(t *testing.T, console string) string {
	t.Helper()
	start := strings.Index(console, "============ Serving Benchmark Result ============\n")
	if start < 0 {
		t.Fatal("no result block header")
	}
	closing := strings.Repeat("=", 50) + "\n"
	end := strings.Index(console[start+1:], closing)
	if end < 0 {
		t.Fatal("no closing line")
	}
	return console[start : start+1+end+len(closing)]
}

// TestConsoleGolden rebuilds the summary from each vLLM result file's
// numbers and requires WriteConsole to reproduce the result block vLLM
// printed in the same run, byte for byte.
func TestConsoleGolden(t *testing.T) {
	for _, name := range []string{"random-basic", "random-detailed", "chat-detailed"} {
		t.Run(name, func(t *testing.T) {
			o, _ := loadVLLM(t, name+".json")
			console, err := os.ReadFile(filepath.Join("testdata", name+".console.txt"))
			if err != nil {
				t.Fatal(err)
			}
			want := resultBlock(t, string(console))
			var got bytes.Buffer
			if err := WriteConsole(&got, ConsoleInput{Summary: summaryFromVLLM(t, o), RequestRate: math.Inf(1)}); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("console block differs at byte %d\ngot:\n%s\nwant:\n%s", firstDiff(got.Bytes(), []byte(want)), got.String(), want)
			}
			// The lines vLLM prints just before the block.
			var notes bytes.Buffer
			if err := WriteMetricsNotes(&notes, summaryFromVLLM(t, o)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(console), "\n"+notes.String()+want) {
				t.Errorf("notes %q do not directly precede the result block", notes.String())
			}
		})
	}
}

func consoleLines(t *testing.T, in ConsoleInput) []string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteConsole(&b, in); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

func hasLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func TestConsoleConditions(t *testing.T) {
	four := 4
	good := 1.5
	base := func() *metrics.Summary {
		return &metrics.Summary{Completed: 3, Failed: 1, Duration: 2, TotalInput: 30, TotalOutput: 12,
			RequestThroughput: 1.5, OutputThroughput: 6, TotalTokenThroughput: 21,
			HasTokenizer: true, MaxOutputTokensPerS: 5, MaxConcurrentRequests: 3}
	}
	tests := []struct {
		name        string
		in          func() ConsoleInput
		present     []string
		absent      []string
		exactLine   string
		exactAbsent bool
	}{
		{
			name:      "concurrency and finite rate",
			in:        func() ConsoleInput { return ConsoleInput{Summary: base(), MaxConcurrency: &four, RequestRate: 10} },
			present:   []string{"Maximum request concurrency:", "Request rate configured (RPS):"},
			exactLine: "Request rate configured (RPS):           10.00     ",
		},
		{
			name:   "infinite rate, no concurrency",
			in:     func() ConsoleInput { return ConsoleInput{Summary: base(), RequestRate: math.Inf(1)} },
			absent: []string{"Maximum request concurrency:", "Request rate configured (RPS):", "Request goodput", "RTFx"},
		},
		{
			name: "no tokenizer",
			in: func() ConsoleInput {
				s := base()
				s.HasTokenizer = false
				return ConsoleInput{Summary: s, RequestRate: math.Inf(1)}
			},
			present: []string{"Peak concurrent requests:", "Request throughput (req/s):"},
			absent:  []string{"Total generated tokens:", "Output token throughput", "Peak output token throughput", "Total token throughput"},
		},
		{
			name: "goodput and rtfx",
			in: func() ConsoleInput {
				s := base()
				s.RequestGoodput, s.RTFx = &good, 0.5
				return ConsoleInput{Summary: s, RequestRate: math.Inf(1)}
			},
			present:   []string{"Request goodput (req/s):", "RTFx (Inverse Real-Time Factor):"},
			exactLine: "Request goodput (req/s):                 1.50      ",
		},
		{
			name:      "peak concurrency as .2f",
			in:        func() ConsoleInput { return ConsoleInput{Summary: base(), RequestRate: math.Inf(1)} },
			exactLine: "Peak concurrent requests:                3.00      ",
		},
		{
			name: "wide values are not truncated",
			in: func() ConsoleInput {
				s := base()
				s.TotalInput = 123456789012
				return ConsoleInput{Summary: s, RequestRate: math.Inf(1)}
			},
			exactLine: "Total input tokens:                      123456789012",
		},
		{
			name: "diffusion replaces spec decode",
			in: func() ConsoleInput {
				return ConsoleInput{Summary: base(), RequestRate: math.Inf(1),
					SpecDecode: &SpecDecodeStats{AcceptanceRate: 50}, Diffusion: &DiffusionStats{DenoisingSteps: 7}}
			},
			present: []string{"----------------Diffusion Decoding----------------", "Denoising steps:"},
			absent:  []string{"Acceptance rate (%):"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := consoleLines(t, tt.in())
			for _, p := range tt.present {
				if !hasLine(lines, p) {
					t.Errorf("missing line %q", p)
				}
			}
			for _, p := range tt.absent {
				if hasLine(lines, p) {
					t.Errorf("unexpected line %q", p)
				}
			}
			if tt.exactLine != "" {
				found := false
				for _, l := range lines {
					found = found || l == tt.exactLine
				}
				if !found {
					t.Errorf("no line exactly %q in\n%s", tt.exactLine, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

// fullConsoleInput exercises every section of the block.
func fullConsoleInput() ConsoleInput {
	four := 4
	good := 0.75
	s := &metrics.Summary{Completed: 3, Failed: 1, Duration: 2.5, TotalInput: 300, TotalOutput: 96,
		RequestThroughput: 1.2, RequestGoodput: &good, OutputThroughput: 38.4, TotalTokenThroughput: 158.4,
		HasTokenizer: true, MaxOutputTokensPerS: 40, MaxConcurrentRequests: 3, RTFx: 0.25}
	for i, name := range metrics.MetricOrder {
		f := float64(i + 1)
		s.Metrics = append(s.Metrics, metrics.MetricStats{Name: name, Mean: 10 * f, Median: 9 * f, Std: f,
			Percentiles: []metrics.PercentileValue{{P: 50, Value: 9 * f}, {P: 99.9, Value: 20 * f}}})
	}
	return ConsoleInput{
		Summary: s, MaxConcurrency: &four, RequestRate: 1.5,
		Probe:      &metrics.ProbeSummary{Completed: 5, Failed: 1, MedianE2ELMs: 12.345, P99E2ELMs: 20, MaxE2ELMs: 21.005},
		SpecDecode: &SpecDecodeStats{AcceptanceRate: 62.5, AcceptanceLength: 2.25, NumDrafts: 80, DraftTokens: 240, AcceptedTokens: 150, PerPositionAcceptanceRates: []float64{0.9, 0.625, 0.3}},
	}
}

func TestConsoleFullGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteConsole(&b, fullConsoleInput()); err != nil {
		t.Fatal(err)
	}
	in := fullConsoleInput()
	in.SpecDecode = nil
	in.Diffusion = &DiffusionStats{CommittedThroughput: 100.5, StepsPerCanvas: 3.25, CommittedPerStep: 1.5, CommittedTokens: 96, DenoisingSteps: 64, CanvasPositions: 512}
	if err := WriteConsole(&b, in); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "console-full.golden.txt", b.Bytes())
}

func TestWriteMetricsNotes(t *testing.T) {
	var errs []string
	for i := range 12 {
		errs = append(errs, "failure "+string(rune('a'+i)))
	}
	errs[0] = "Traceback (most recent call last):\n  boom"
	tests := []struct {
		name string
		s    *metrics.Summary
		want string
	}{
		{"all good", &metrics.Summary{Completed: 2}, ""},
		{"all failed", &metrics.Summary{Failed: 1, FailureErrors: []string{"Bad Request"}},
			"Failed requests during benchmark run detected (capping to 10):\nError 0: Bad Request\n"},
		{"capped at ten", &metrics.Summary{Completed: 1, Failed: 12, FailureErrors: errs},
			"Failed requests during benchmark run detected (capping to 10):\n" +
				"Error 0: Traceback (most recent call last):\n  boom\n" +
				"Error 1: failure b\nError 2: failure c\nError 3: failure d\nError 4: failure e\n" +
				"Error 5: failure f\nError 6: failure g\nError 7: failure h\nError 8: failure i\nError 9: failure j\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteMetricsNotes(&b, tt.s); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

func TestConsoleUnknownMetric(t *testing.T) {
	s := &metrics.Summary{Metrics: []metrics.MetricStats{{Name: "bogus"}}}
	if err := WriteConsole(&bytes.Buffer{}, ConsoleInput{Summary: s}); err == nil {
		t.Error("unknown metric accepted")
	}
}
