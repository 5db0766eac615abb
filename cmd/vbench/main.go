// Command vbench benchmarks LLM serving endpoints (vLLM and any
// OpenAI-compatible server). See README.md.
package main

import (
	"os"

	"github.com/vbench/vbench/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.OS())) }
