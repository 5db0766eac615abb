package tokenizer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The files a model's tokenizer is made of.
const (
	fileTokenizerJSON = "tokenizer.json"
	fileConfig        = "tokenizer_config.json"
	fileSpecialMap    = "special_tokens_map.json"
)

// tiktokenFiles are the rank files looked for in a model directory, in
// order (as vLLM's Rust client does); any other single *.tiktoken file is
// used too.
var tiktokenFiles = []string{"tiktoken.model", "qwen.tiktoken", "vocab.tiktoken"}

// errNoTokenizer is returned (wrapped) when a directory holds no
// tokenizer file vbench can read.
var errNoTokenizer = errors.New("no tokenizer.json or tiktoken file")

// LoadDir loads the tokenizer of a model directory: tokenizer.json (with
// tokenizer_config.json and special_tokens_map.json when present), else a
// tiktoken rank file (tiktoken.model, qwen.tiktoken, vocab.tiktoken or a
// single *.tiktoken) with tokenizer_config.json and the split pattern
// chooseTiktokenPattern finds (an unknown one is an error). name is what
// the tokenizer's Name returns.
func LoadDir(dir, name string) (Tokenizer, error) {
	if _, err := os.Stat(filepath.Join(dir, fileTokenizerJSON)); err == nil {
		return loadHFFile(filepath.Join(dir, fileTokenizerJSON), name)
	}
	rank, err := findRankFile(dir)
	if err != nil {
		return nil, err
	}
	return loadTiktokenFile(rank, name)
}

// LoadFile loads a tokenizer file: a tokenizer.json (any *.json), or a
// tiktoken rank file (*.tiktoken, tiktoken.model). The tokenizer_config.json
// and other companion files beside it are read too.
func LoadFile(path, name string) (Tokenizer, error) {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, ".json"):
		return loadHFFile(path, name)
	case strings.HasSuffix(base, ".tiktoken"), strings.HasSuffix(base, ".model"):
		return loadTiktokenFile(path, name)
	}
	return nil, fmt.Errorf("tokenizer file %s: want a tokenizer.json, a *.tiktoken or a tiktoken.model file", path)
}

// findRankFile returns the tiktoken rank file of a directory.
func findRankFile(dir string) (string, error) {
	for _, f := range tiktokenFiles {
		if p := filepath.Join(dir, f); fileExists(p) {
			return p, nil
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tiktoken"))
	if len(matches) == 1 {
		return matches[0], nil
	}
	if len(matches) > 1 {
		return "", fmt.Errorf("%s has several *.tiktoken files (%s): name one", dir, strings.Join(matches, ", "))
	}
	return "", fmt.Errorf("%s: %w (looked for %s, %s and *.tiktoken)", dir, errNoTokenizer, fileTokenizerJSON, strings.Join(tiktokenFiles, ", "))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// readOptional reads a file, nil when it does not exist.
func readOptional(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

func loadHFFile(path, name string) (*HF, error) {
	var f HFFiles
	var err error
	if f.Tokenizer, err = os.ReadFile(path); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	dir := filepath.Dir(path)
	if f.Config, err = readOptional(filepath.Join(dir, fileConfig)); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	if f.SpecialTokensMap, err = readOptional(filepath.Join(dir, fileSpecialMap)); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	t, err := NewHF(name, f)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s (%s): %w", name, path, err)
	}
	return t, nil
}

func loadTiktokenFile(path, name string) (*Tiktoken, error) {
	ranks, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	if !looksLikeRankFile(ranks) {
		return nil, fmt.Errorf("tokenizer %s: %s is not a tiktoken rank file (\"base64 rank\" lines); SentencePiece .model files are not supported, use the model's tokenizer.json", name, path)
	}
	dir := filepath.Dir(path)
	cfg, err := readOptional(filepath.Join(dir, fileConfig))
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	pattern, err := chooseTiktokenPattern(path, cfg, func(f string) ([]byte, error) {
		return readOptional(filepath.Join(dir, f))
	})
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	return NewTiktokenFile(name, ranks, cfg, pattern)
}

// looksLikeRankFile reports whether data starts like a tiktoken rank
// file: a base64 token, a space and a number.
func looksLikeRankFile(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	tok, rank, ok := bytes.Cut(bytes.TrimRight(line, "\r"), []byte(" "))
	if !ok || len(tok) == 0 || len(rank) == 0 {
		return false
	}
	for _, c := range tok {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	for _, c := range rank {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
