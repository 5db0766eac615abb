package argv

import (
	"github.com/vbench/vbench/internal/dataset"
	"slices"
	"strings"
	"testing"
)

// vLLM's Rust client spells --speed-bench-dataset-subset
// --speed-bench-config: vbench serve takes both, in every form argparse
// takes a flag, but the alias is never an abbreviation, so the prefixes of
// vLLM's own flags resolve as vLLM's argparse resolves them.
func TestSpeedBenchConfigAlias(t *testing.T) {
	cfg := files(map[string]string{"c.yaml": "dataset-name: speed_bench\ndataset-path: sb\nspeed_bench_config: throughput_16k\n"})
	base := []string{"--dataset-name", "speed_bench", "--dataset-path", "sb"}
	for _, tc := range []struct {
		name     string
		args     []string
		opts     Options
		subset   string
		category string
	}{
		{"alias", []string{"--speed-bench-config", "throughput_1k"}, Options{}, "throughput_1k", ""},
		{"alias with =", []string{"--speed-bench-config=throughput_2k"}, Options{}, "throughput_2k", ""},
		{"alias with underscores", []string{"--speed_bench_config", "throughput_8k"}, Options{}, "throughput_8k", ""},
		{"alias in --config", []string{"--config", "c.yaml"}, cfg, "throughput_16k", ""},
		{"last of both wins", []string{"--speed-bench-config", "throughput_1k", "--speed-bench-dataset-subset", "throughput_32k"}, Options{}, "throughput_32k", ""},
		{"vLLM's abbreviation of the subset", []string{"--speed-bench-d", "throughput_2k"}, Options{}, "throughput_2k", ""},
		{"vLLM's abbreviation of the category", []string{"--speed-bench-c", "coding"}, Options{}, "qualitative", "coding"},
		{"vLLM's abbreviation of the category, with =", []string{"--speed-bench-ca=math"}, Options{}, "qualitative", "math"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.opts.ReadFile == nil {
				args = append(slices.Clone(base), args...)
			}
			s, err := Parse(args, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := s.Dataset.Spec.(*dataset.SpeedBenchSpec); d == nil || d.Subset != tc.subset || d.Category != tc.category {
				t.Fatalf("dataset %+v, want subset %q category %q", s.Dataset, tc.subset, tc.category)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// argparse knows no --speed-bench-co...: neither does vbench.
		{[]string{"--speed-bench-con", "x"}, "unrecognized arguments: --speed-bench-con x"},
		{[]string{"--speed-bench-config", "throughput_4k"}, "--speed-bench-dataset-subset: invalid choice: 'throughput_4k' (choose from qualitative, throughput_1k, throughput_2k, throughput_8k, throughput_16k, throughput_32k)"},
		{[]string{"--speed-bench-config"}, "--speed-bench-dataset-subset: expected one argument"},
		{[]string{"--speed-bench"}, "--speed-bench: ambiguous option: could match --speed-bench-category, --speed-bench-dataset-subset, --speed-bench-output-len"},
		{[]string{"--speed-bench-confg", "x"}, "unrecognized arguments: --speed-bench-confg x (did you mean --speed-bench-config?)"},
	} {
		_, err := Parse(append(slices.Clone(base), tc.args...), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if slices.Contains(optionNames, "--speed-bench-config") || slices.Contains(Flags(), "--speed-bench-config") {
		t.Error("the alias is among the option names: it would count as a flag of vLLM's and take part in abbreviations")
	}
}

// --output-len does not override --speed-bench-output-len, as in vLLM's
// serve (which maps it to the other kinds' lengths only); vbench says so.
func TestSpeedBenchOutputLen(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    int
		warning string
	}{
		{nil, 4096, ""},
		{[]string{"--output-len", "7"}, 4096, "--output-len has no effect on the speed_bench dataset (as in vllm bench serve): its output length is --speed-bench-output-len"},
		{[]string{"--speed-bench-output-len", "9", "--output-len", "7"}, 9, "--output-len has no effect"},
		{[]string{"--custom-output-len", "5", "--spec-bench-output-len", "6", "--sharegpt-output-len", "8"}, 4096, ""},
	} {
		cmd, err := ParseCommand(append([]string{"--dataset-name", "speed_bench", "--dataset-path", "sb"}, tc.args...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cmd.Scenario.Dataset.Spec.(*dataset.SpeedBenchSpec).OutputLen; got != tc.want {
			t.Errorf("%q: output_len %d, want %d", tc.args, got, tc.want)
		}
		warned := strings.Join(cmd.Warnings, "\n")
		if (tc.warning == "") != (warned == "") || !strings.Contains(warned, tc.warning) {
			t.Errorf("%q: warnings %q, want %q", tc.args, cmd.Warnings, tc.warning)
		}
		if _, ok := cmd.Sources["dataset.speed_bench.output_len"]; ok != (tc.want != 4096) {
			t.Errorf("%q: sources %v", tc.args, cmd.Sources)
		}
	}
	if _, err := Parse([]string{"--dataset-name", "speed_bench"}, Options{}); err == nil ||
		err.Error() != "--dataset-name speed_bench: the speed_bench dataset needs --dataset-path (the SPEED-Bench directory holding <subset>.jsonl files)" {
		t.Errorf("speed_bench without --dataset-path: %v", err)
	}
}
