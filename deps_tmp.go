//go:build tools

package tools

import (
	_ "cuelang.org/go/cue"
	_ "cuelang.org/go/cue/cuecontext"
	_ "cuelang.org/go/cue/load"
	_ "cuelang.org/go/encoding/yaml"
	_ "github.com/dlclark/regexp2"
	_ "github.com/pkoukk/tiktoken-go"
	_ "github.com/pkoukk/tiktoken-go-loader"
	_ "github.com/prometheus/common/expfmt"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/text/unicode/norm"
)
