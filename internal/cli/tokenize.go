package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vbench/vbench/internal/hub"
	"github.com/vbench/vbench/internal/tokenizer"
)

const tokenizeDoc = `Tokenize text with the tokenizer a benchmark would use, to check prompt lengths.

--tokenizer is resolved as vLLM resolves --tokenizer: a built-in tiktoken
encoding (o200k_base, cl100k_base, p50k_base, r50k_base), a local model
directory, a tokenizer.json or tiktoken rank file, or a Hugging Face Hub
repository id (optionally ID@REVISION), downloaded into the Hugging Face
cache (HF_HOME, HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN and HF_HUB_OFFLINE are
honoured). A line on stderr says which tokenizer was loaded.

The text comes from --text, --file, or standard input. By default the
token ids are printed as a JSON array; --count prints their number
instead. --decode prints the text of the given ids (a JSON array or a
comma- or space-separated list). Special tokens the tokenizer adds to a
sequence (such as BOS) are left out unless --add-special-tokens is given.`

const tokenizeExamples = `  vbench tokenize --tokenizer o200k_base --text "Hello, world"
  vbench tokenize --tokenizer Qwen/Qwen3-8B --file prompt.txt --count
  vbench tokenize --tokenizer ./models/mistral --decode "[1, 22557, 1526]"`

func newTokenizeCmd(p Process) *cobra.Command {
	var (
		spec, revision, text, file, decode string
		ids, count, addSpecial             bool
	)
	cmd := &cobra.Command{
		Use:     "tokenize --tokenizer SPEC [--text STRING | --file PATH] [--ids | --count] [--decode IDS]",
		Short:   "Encode or decode text with a tokenizer",
		Long:    tokenizeDoc,
		Example: tokenizeExamples,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			flags := cmd.Flags()
			switch {
			case spec == "":
				return usageErr(errors.New("--tokenizer is required"))
			case flags.Changed("text") && flags.Changed("file"):
				return usageErr(errors.New("--text and --file are exclusive"))
			case ids && count:
				return usageErr(errors.New("--ids and --count are exclusive"))
			case flags.Changed("decode") && (flags.Changed("text") || flags.Changed("file") || ids || count || addSpecial):
				return usageErr(errors.New("--decode takes no --text, --file, --ids, --count or --add-special-tokens"))
			}
			var decodeIDs []int
			if flags.Changed("decode") {
				var err error
				if decodeIDs, err = parseIDs(decode); err != nil {
					return usageErr(fmt.Errorf("--decode: %w", err))
				}
			}
			if err := tokenizer.CheckName(spec); err != nil {
				return usageErr(fmt.Errorf("--tokenizer: %w", err))
			}
			res, err := tokenizer.Resolve(cmd.Context(), tokenizer.Spec{Name: spec, Revision: revision, Progress: p.Stderr}, hub.FromEnv(p.Getenv))
			if err != nil {
				return failErr(err)
			}
			fmt.Fprintf(p.Stderr, "tokenizer: %s\n", res.Source)
			tok := res.Tokenizer
			if decodeIDs != nil {
				_, err := fmt.Fprintln(p.Stdout, tok.Decode(decodeIDs))
				return err
			}
			input := text
			switch {
			case flags.Changed("file"):
				b, err := os.ReadFile(file)
				if err != nil {
					return failErr(err)
				}
				input = string(b)
			case !flags.Changed("text"):
				b, err := io.ReadAll(p.Stdin)
				if err != nil {
					return failErr(fmt.Errorf("reading standard input: %w", err))
				}
				input = string(b)
			}
			out := tok.Encode(input, addSpecial)
			if count {
				_, err := fmt.Fprintln(p.Stdout, len(out))
				return err
			}
			b, err := json.Marshal(out)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(p.Stdout, "%s\n", b)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&spec, "tokenizer", "", "tokenizer: built-in encoding, directory, file, or Hub repository id[@revision]")
	f.StringVar(&revision, "revision", "", "Hub revision (branch, tag or commit) of a repository id")
	f.StringVar(&text, "text", "", "text to tokenize")
	f.StringVar(&file, "file", "", "file whose contents to tokenize")
	f.BoolVar(&ids, "ids", false, "print the token ids as a JSON array (the default)")
	f.BoolVar(&count, "count", false, "print the number of tokens")
	f.StringVar(&decode, "decode", "", "print the text of these token ids")
	f.BoolVar(&addSpecial, "add-special-tokens", false, "add the special tokens the tokenizer puts around a sequence (e.g. BOS)")
	return cmd
}

// parseIDs reads token ids given as a JSON array or a comma- or
// space-separated list.
func parseIDs(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var ids []int
		if err := json.Unmarshal([]byte(s), &ids); err != nil {
			return nil, fmt.Errorf("want a JSON array of token ids: %w", err)
		}
		if ids == nil {
			ids = []int{}
		}
		return ids, nil
	}
	ids := []int{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		id, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a token id", f)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
