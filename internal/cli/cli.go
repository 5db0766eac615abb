// Package cli is vbench's command tree: one file per command, each a doc
// constant, a newXCmd that declares flags, and a doX that does the work.
// Process state (stdio, environment, working directory, signals) is
// injected through Process so commands run in-process in tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	// ExitOK is success.
	ExitOK = 0
	// ExitFailed means the run failed (e.g. every request failed, or the
	// server could not be reached).
	ExitFailed = 1
	// ExitUsage means bad command-line usage or an invalid scenario.
	ExitUsage = 2
	// ExitGate means a comparison gate failed.
	ExitGate = 3
)

// Process is the process state a command may use.
type Process struct {
	// Stdin is the standard input, read e.g. by import - and tokenize.
	Stdin io.Reader
	// Stdout and Stderr are the standard output and error streams.
	Stdout, Stderr io.Writer
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Context is cancelled on SIGINT/SIGTERM.
	Context context.Context
}

// OS returns the real process state, with a context cancelled by the first
// SIGINT, SIGTERM or SIGHUP (a second one kills the process as usual), so
// that an interrupted run still writes its results and stops a server it
// manages.
func OS() Process {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return Process{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Context: ctx}
}

// exitError carries an exit code up to Main; its message, if any, is
// printed once.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as a usage error (exit 2).
func usageErr(err error) error { return &exitError{code: ExitUsage, err: err} }

// failErr marks err as a failed run (exit 1).
func failErr(err error) error { return &exitError{code: ExitFailed, err: err} }

// Main runs vbench with args and returns the exit code.
func Main(args []string, p Process) int {
	if p.Context == nil {
		p.Context = context.Background()
	}
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	root := newRootCmd(p)
	root.SetArgs(args)
	err := root.ExecuteContext(p.Context)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(p.Stderr, "vbench: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(p.Stderr, "vbench: %v\n", err)
	// cobra's own usage errors: an unknown command (flag and argument-count
	// errors are marked usage errors where they arise, in newRootCmd).
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return ExitUsage
	}
	return ExitFailed
}

// markArgErrors makes the argument-count errors of c and its subcommands
// usage errors (exit 2).
func markArgErrors(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usageErr(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markArgErrors(sub)
	}
}

const rootDoc = `vbench benchmarks LLM serving endpoints (vLLM and any OpenAI-compatible server).

A workload is a scenario: a CUE or YAML file checked against vbench's schema.
Results match vllm bench serve's console block and result JSON.`

const rootExamples = `  # a benchmark against the built-in simulator, no GPU needed
  vbench run scenarios/quickstart.cue

  # check a scenario, then print it with every default filled in
  vbench vet my.cue
  vbench export my.cue --format yaml

  # point a scenario at a real server
  vbench run scenarios/kimi-8k.cue --set target.base_url=http://gpu-host:8000`

func newRootCmd(p Process) *cobra.Command {
	root := &cobra.Command{
		Use:           "vbench",
		Short:         "Benchmark LLM serving endpoints",
		Long:          rootDoc,
		Example:       rootExamples,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(p.Stdin)
	root.SetOut(p.Stdout)
	root.SetErr(p.Stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(fmt.Errorf("%w (see '%s --help')", err, c.CommandPath()))
	})
	root.AddCommand(
		newRunCmd(p),
		newVetCmd(p),
		newExportCmd(p),
		newSimCmd(p),
		newCompareCmd(p),
		newReportCmd(p),
		newMergeCmd(p),
		newK8sCmd(p),
		newCalibrateCmd(p),
		newVersionCmd(p),
		newServeCmd(p),
		newBenchCmd(p),
		newImportCmd(p),
		newTokenizeCmd(p),
		newDatasetCmd(p),
		newTestCmd(p),
	)
	markArgErrors(root)
	return root
}
