package typo

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"abc", "abc", 0}, {"abc", "abd", 1}, {"abc", "acb", 1}, {"abc", "ab", 1},
		{"o300k_base", "o200k_base", 1},
		{"ab", "ba", 1},  // one transposition
		{"ca", "abc", 3}, // OSA, not Damerau: no edit after a transposition
		{"--num-promts", "--num-prompts", 1},
		{"p99_ttfx_ms", "p99_ttft_ms", 1},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"cl100k_base", "o200k_base", "p50k_base"}
	tests := []struct {
		word    string
		maxDist int
		want    string
	}{
		{"o300k_base", 2, "o200k_base"},
		{"o200k_base", 0, "o200k_base"},
		{"p50k_bsae", 1, "p50k_base"},
		{"gpt2", 2, ""},
		{"cl100k", 2, ""}, // 5 edits away
	}
	for _, tt := range tests {
		if got := Closest(tt.word, cands, tt.maxDist); got != tt.want {
			t.Errorf("Closest(%q, %d) = %q, want %q", tt.word, tt.maxDist, got, tt.want)
		}
	}
	if got := Closest("ab", []string{"ax", "ay"}, 1); got != "ax" {
		t.Errorf("ties: %q, want the first", got)
	}
}

func TestSuggest(t *testing.T) {
	metrics := []string{"mean_ttft_ms", "p99_ttft_ms", "p99_tpot_ms", "p99_itl_ms", "request_throughput"}
	tests := []struct {
		word    string
		cands   []string
		maxDist int
		want    string
	}{
		{"p99_ttft", metrics, 2, "p99_ttft_ms"},    // a unit left off: 3 edits, found by prefix
		{"p99_ttfx_ms", metrics, 3, "p99_ttft_ms"}, // a typo
		{"p99", metrics, 3, ""},
		{"request_throughput_tok", metrics, 3, "request_throughput"}, // a unit added                    // a prefix of three: not unique
		{"num_promts", []string{"num_prompts", "max_concurrency"}, 2, "num_prompts"},
		{"input_len", []string{"output_len", "path"}, 2, ""}, // 3 edits: not a typo
		{"ab", []string{"ab_x"}, 1, ""},                      // too short for the prefix rule, and 2 edits away
	}
	for _, tt := range tests {
		if got := Suggest(tt.word, tt.cands, tt.maxDist); got != tt.want {
			t.Errorf("Suggest(%q, %d) = %q, want %q", tt.word, tt.maxDist, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cands := []string{"duration", "p99_ttft_ms", "mean_ttft_ms", "p99_tpot_ms", "median_ttft_ms", "p99_itl_ms"}
	tests := []struct {
		word string
		n    int
		want []string
	}{
		{"p99_ttft", 3, []string{"p99_ttft_ms", "p99_tpot_ms", "p99_itl_ms"}},
		{"ttft", 3, []string{"p99_ttft_ms", "mean_ttft_ms", "median_ttft_ms"}},
		{"x", 0, []string{}},
		{"p99_ttft", 10, []string{"p99_ttft_ms", "p99_tpot_ms", "p99_itl_ms", "mean_ttft_ms", "median_ttft_ms", "duration"}},
	}
	for _, tt := range tests {
		if got := Nearest(tt.word, cands, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tt.word, tt.n, got, tt.want)
		}
	}
}
