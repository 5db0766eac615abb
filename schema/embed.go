// Package schema embeds the CUE definitions of vbench scenarios.
//
// The definitions live in scenario.cue (package schema): #Scenario and its
// parts, with vbench's defaults, which are those of `vllm bench serve`. The
// version of the schema is declared inside the CUE as #Version and repeated
// here as [Version]; a test keeps the two equal.
package schema

import "embed"

// FS holds the schema's CUE files.
//
//go:embed *.cue
var FS embed.FS

// Version is the schema version, equal to #Version in scenario.cue. Every
// resolved scenario records it in its schema field.
const Version = "vbench.dev/scenario/v1alpha1"
