package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vbench/vbench/internal/argv"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/sweep"
)

const importDoc = `Print the scenario equivalent to a vllm bench serve command line, as a CUE
scenario file: only the fields that differ from the defaults, each under a
comment naming the flag it came from. Its hash goes to stderr, as with vbench
export; "vbench export --format argv" turns the scenario back into the
command line.

The command line follows "--", or is read from a file with --file (- for
stdin), written as in a shell script: quotes and backslash-newlines work, and
a leading "vllm bench serve" is skipped. Header values are printed as
<redacted>.`

const importExamples = `  vbench import -- --backend vllm --model Qwen/Qwen3-8B --num-prompts 200 > qwen.cue
  vbench import --file run-bench.sh
  vbench import -- --model m --ramp-up-strategy linear --ramp-up-start-rps 1 --ramp-up-end-rps 20`

func newImportCmd(p Process) *cobra.Command {
	return &cobra.Command{
		Use:                "import [--file FILE | -- FLAG...]",
		Short:              "Turn a vllm bench serve command line into a scenario",
		Long:               importDoc,
		Example:            importExamples,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return doImport(cmd, p, args)
		},
	}
}

func doImport(cmd *cobra.Command, p Process, args []string) error {
	var vargs []string
	switch {
	case len(args) == 0:
		return usageErr(fmt.Errorf("want a vllm bench serve command line after --, or --file FILE (see 'vbench import --help')"))
	case args[0] == "-h" || args[0] == "--help":
		return cmd.Help()
	case args[0] == "--file" || strings.HasPrefix(args[0], "--file="):
		name, rest := strings.TrimPrefix(args[0], "--file="), args[1:]
		if args[0] == "--file" {
			if len(args) < 2 {
				return usageErr(fmt.Errorf("--file: want a file name (- for stdin)"))
			}
			name, rest = args[1], args[2:]
		}
		if len(rest) > 0 {
			return usageErr(fmt.Errorf("--file %s: unexpected arguments after it: %s", name, strings.Join(rest, " ")))
		}
		line, err := readCommandFile(p, name)
		if err != nil {
			return usageErr(fmt.Errorf("--file %s: %w", name, err))
		}
		if words, err := sweep.Split(strings.ReplaceAll(line, "\\\n", " ")); err == nil {
			if sargs, ok := sweepArgs(words); ok {
				return importSweep(p, sargs)
			}
		}
		if vargs, err = argv.SplitCommandLine(line); err != nil {
			return usageErr(fmt.Errorf("--file %s: %w", name, err))
		}
	case args[0] == "--":
		vargs = args[1:]
	default:
		vargs = args
	}
	if sargs, ok := sweepArgs(vargs); ok {
		return importSweep(p, sargs)
	}
	pc, err := parseArgv(cmd, p, vargs)
	if err != nil || pc == nil {
		return err
	}
	out, err := argv.CUE(pc)
	if err != nil {
		return usageErr(err)
	}
	if _, err := p.Stdout.Write(out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.Stderr, "hash: %s\n", pc.Scenario.Hash())
	return err
}

// readCommandFile reads the command line of vbench import --file.
func readCommandFile(p Process, name string) (string, error) {
	if name == "-" {
		b, err := io.ReadAll(p.Stdin)
		return string(b), err
	}
	b, err := os.ReadFile(name)
	return string(b), err
}

// exportArgv is vbench export --format argv: the vllm bench serve command
// line of sc (header values redacted), with a note on stderr for each field
// it leaves out.
func exportArgv(p Process, sc *scenario.Scenario) ([]byte, error) {
	args, err := argv.Format(sc.Redacted())
	if err != nil {
		return nil, fmt.Errorf("--format argv: %w", err)
	}
	for _, d := range argv.Dropped(sc) {
		fmt.Fprintf(p.Stderr, "note: %s has no vllm bench serve flag and is left out\n", d)
	}
	line := "vllm bench serve"
	if len(args) > 0 {
		line += " " + argv.Quote(args)
	}
	return []byte(line + "\n"), nil
}

// sweepArgs finds a vllm bench sweep serve command line: the flags after
// "sweep serve", or flags that include --serve-cmd.
func sweepArgs(words []string) ([]string, bool) {
	for i := 0; i+1 < len(words) && i < 4; i++ {
		if words[i] == "sweep" && words[i+1] == "serve" {
			return words[i+2:], true
		}
	}
	for _, w := range words {
		if w == "--serve-cmd" || strings.HasPrefix(w, "--serve-cmd=") {
			return words, true
		}
	}
	return nil, false
}

// importSweep prints the scenario of a vllm bench sweep serve command line
// (see sweep.Scenario), header and environment values redacted, and its
// hash on stderr.
func importSweep(p Process, args []string) error {
	var o sweep.Options
	fs := pflag.NewFlagSet("vllm bench sweep serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr(fmt.Errorf("vllm bench sweep serve: %w", err))
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("vllm bench sweep serve: unexpected arguments %s", strings.Join(fs.Args(), " ")))
	}
	sc, err := sweep.Scenario(o)
	if err != nil {
		return usageErr(err)
	}
	out, err := scenario.Export(sc.Redacted(), "cue")
	if err != nil {
		return failErr(err)
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if _, err := p.Stdout.Write(out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(p.Stderr, "hash: %s\n", sc.Hash())
	return err
}
