package cli

import (
	"github.com/vbench/vbench/internal/argv"
	"github.com/vbench/vbench/internal/backend"
)

// The vllm argv dialect is part of the configuration layer and does not
// import the backend package, so the program tells it here which --backend
// choices vbench implements: the backend registry's, before any command
// parses.
func init() { argv.SetImplementedBackends(backend.SupportedNames()) }
