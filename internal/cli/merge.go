package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/pipeline"
	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/report"
	"github.com/vbench/vbench/internal/schedule"
)

const mergeDoc = `Merge the records of a run split over several clients into one result.

Each shard of a split run (vbench run --shard I/N, or vbench k8s's workers)
streams its per-request records to NAME-shardIofN.records.jsonl. vbench merge
reads them (the files named, and in each DIR every records file of a shard,
searched recursively), checks that they hold one plan (the same scenario
hash) and every shard of it exactly once (it names the missing ones), moves
each shard's times onto one clock (its start less its clock offset to
shard 0, measured with --clock), and folds all the records with the run's
own fold: the merged percentiles are those of one client sending every
request, never an average of the shards' summaries.

It prints vllm bench serve's result block and writes the result JSON (by
default next to shard 0's records, named without the shard) and the merged
records next to it; neither may exist.

Exit codes: 0 success, 2 bad usage, mixed or missing shards, or an output
that exists.`

const mergeExamples = `  vbench merge results/
  vbench merge shard-0/ shard-1/ shard-2/ --output merged.json`

func newMergeCmd(p Process) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:     "merge DIR|RECORDS.jsonl...",
		Short:   "Merge the shards of a split run into one result",
		Long:    mergeDoc,
		Example: mergeExamples,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := shardFiles(args)
			if err != nil {
				return usageErr(err)
			}
			m, err := pipeline.MergeEnv(cmd.Context(), paths, pipeline.Env{Stdout: p.Stdout, Stderr: p.Stderr, Getenv: p.Getenv, Now: time.Now})
			if err != nil {
				return usageErr(err)
			}
			printShards(p, m)
			console := &report.Console{Stdout: p.Stdout, Stderr: p.Stderr}
			if err := console.Result(report.ConsoleInput{
				Summary:        m.Summary,
				MaxConcurrency: m.Scenario.Load.MaxConcurrency,
				RequestRate:    float64(m.Scenario.Load.RequestRate),
			}); err != nil {
				return failErr(err)
			}
			if _, err := fmt.Fprint(p.Stdout, m.NotSentLine()+pipeline.ServerSamplesLine(m.ServerSamples)); err != nil {
				return failErr(err)
			}
			if out == "" {
				out = m.MergedPath()
			}
			recs, err := m.Write(out)
			if err != nil {
				if errors.Is(err, fs.ErrExist) {
					return usageErr(fmt.Errorf("%w (vbench merge does not overwrite: give another --output)", err))
				}
				return failErr(err)
			}
			fmt.Fprintf(p.Stderr, "Merged result written to %s (records: %s)\n", out, recs)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged result JSON to `FILE` (its records go next to it, FILE's name with .records.jsonl)")
	return cmd
}

// shardFiles are the records files args name: the files themselves, and
// in each directory the records files (searched recursively) whose header
// says they hold a shard of a split run.
func shardFiles(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		found := 0
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".records.jsonl") {
				return err
			}
			h, err := record.ReadHeader(p)
			if err != nil {
				return err
			}
			if h == nil {
				return nil
			}
			if sh, err := schedule.ParseShard(h.Shard); err == nil && sh.Count > 1 {
				paths = append(paths, p)
				found++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no records file of a shard (NAME-shardIofN.records.jsonl, written by vbench run --shard I/N)", a)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// printShards says on stderr which files were merged and how their
// clocks were aligned.
func printShards(p Process, m *pipeline.Merged) {
	for _, s := range m.Shards {
		note := ""
		if s.Truncated {
			note += "; its last line was cut short and is left out"
		}
		if s.End == nil {
			note += "; it has no run-end line (the shard was stopped before its end)"
		}
		clock := "host clock"
		if c := s.Header.Clock; c != nil {
			clock = fmt.Sprintf("clock offset %+.3f ms ± %.3f ms", float64(c.OffsetNs)/1e6, float64(c.UncertaintyNs)/1e6)
		}
		fmt.Fprintf(p.Stderr, "shard %v: %s: %d records from %s, started %+.3f ms after the first (%s)%s\n",
			s.Shard, s.Path, s.Records, s.Header.Host, float64(s.Shift)/1e6, clock, note)
	}
	fmt.Fprintf(p.Stderr, "Merged %d shards: worst clock uncertainty %.3f ms, largest clock drift over a run %.3f ms\n",
		len(m.Shards), float64(m.Uncertainty)/1e6, float64(m.Drift)/1e6)
}
