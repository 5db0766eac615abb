package tokenizer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vbench/vbench/internal/hub"
	"github.com/vbench/vbench/internal/typo"
)

// Spec selects a tokenizer, as vLLM's --tokenizer (which defaults to the
// model) and the scenario's tokenizer.name and tokenizer.revision do.
type Spec struct {
	// Name is a built-in tiktoken encoding (o200k_base, cl100k_base,
	// p50k_base, r50k_base), a local model directory, a local tokenizer
	// file, or a Hugging Face Hub repository id, optionally followed by
	// "@revision".
	Name string
	// Revision is the Hub revision (branch, tag or commit hash); "" means
	// the one in Name, else main.
	Revision string
	// Progress, if not nil, gets a line before Resolve asks the Hub, which
	// can take a while (each metadata request is bounded by the client's
	// MetaTimeout, each download by its HTTP timeout).
	Progress io.Writer
}

// Resolved is a loaded tokenizer and where it came from.
type Resolved struct {
	// Tokenizer is the loaded tokenizer.
	Tokenizer Tokenizer
	// Source says in words what was loaded from where, e.g.
	// "tokenizer.json of Qwen/Qwen3-8B@main from the Hugging Face cache
	// (/root/.cache/huggingface/hub)".
	Source string
}

// ErrNotLocal is returned (wrapped) by Resolve when nothing could be
// loaded for the name; callers may then fall back to the server's
// tokenizer.
var ErrNotLocal = errors.New("no local tokenizer")

// Resolve loads the tokenizer spec names, trying in order, as vLLM does:
// a built-in encoding, a local directory, a local file, and a Hub
// repository (downloaded into the Hugging Face cache by h, which may be
// nil to skip the Hub). Every failure wraps ErrNotLocal, with the reason.
func Resolve(ctx context.Context, spec Spec, h *hub.Client) (*Resolved, error) {
	name := spec.Name
	if name == "" {
		return nil, fmt.Errorf("%w: no tokenizer name (set tokenizer.name or --tokenizer, or the model)", ErrNotLocal)
	}
	if IsBuiltin(name) {
		t, err := Builtin(name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotLocal, err)
		}
		return &Resolved{Tokenizer: t, Source: "built-in tiktoken encoding " + name}, nil
	}
	if st, err := os.Stat(name); err == nil {
		if spec.Revision != "" {
			return nil, fmt.Errorf("%w: tokenizer %s is a local path, which has no revision %q", ErrNotLocal, name, spec.Revision)
		}
		var t Tokenizer
		what := "tokenizer file " + name
		if st.IsDir() {
			t, err = LoadDir(name, name)
			what = "tokenizer in directory " + name
		} else {
			t, err = LoadFile(name, name)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotLocal, err)
		}
		return &Resolved{Tokenizer: t, Source: what + " (" + kind(t) + ")"}, nil
	}
	if err := CheckName(name); err != nil {
		return nil, err // a typo, not a Hub id: no fallback to the server
	}
	repo, rev := name, spec.Revision
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		repo = name[:i]
		if rev != "" && rev != name[i+1:] {
			return nil, fmt.Errorf("%w: tokenizer %s names revision %q but tokenizer.revision is %q", ErrNotLocal, name, name[i+1:], rev)
		}
		rev = name[i+1:]
	}
	if !hub.ValidRepoID(repo) {
		return nil, fmt.Errorf("%w: tokenizer %q is not a built-in encoding (%s), an existing path or a Hugging Face repository id",
			ErrNotLocal, name, strings.Join(builtinNames, ", "))
	}
	if h == nil {
		return nil, fmt.Errorf("%w: tokenizer %s is not a local path, and the Hub is not used", ErrNotLocal, name)
	}
	if rev == "" {
		rev = hub.DefaultRevision
	}
	if spec.Progress != nil && !h.Offline {
		fmt.Fprintf(spec.Progress, "tokenizer: fetching %s@%s from the Hugging Face Hub at %s into %s\n", repo, rev, h.Endpoint, h.CacheDir)
	}
	dir, file, err := fetchTokenizer(ctx, h, repo, rev)
	if err != nil {
		return nil, fmt.Errorf("%w: tokenizer %s: %w", ErrNotLocal, name, err)
	}
	t, err := LoadDir(dir, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotLocal, err)
	}
	where := "from the Hugging Face Hub into the cache"
	if h.Offline {
		where = "from the Hugging Face cache (offline)"
	}
	return &Resolved{Tokenizer: t, Source: fmt.Sprintf("%s of %s@%s %s (%s)", file, repo, rev, where, h.CacheDir)}, nil
}

// ErrUnknownName is wrapped by CheckName's error: the name looks like a
// misspelt built-in encoding.
var ErrUnknownName = errors.New("unknown tokenizer")

// CheckName reports a tokenizer name that is most likely a misspelt
// built-in encoding rather than a Hugging Face repository id: it has no
// "/", is not an existing path nor a built-in, and (before any
// "@revision") is within two edits of a built-in name, ignoring case, or
// is one without its "_base". The error wraps ErrUnknownName and reads
// `unknown tokenizer "o300k_base"; did you mean o200k_base?`. Any other
// name gives nil.
//
// A name written as a local path (see IsPathName) that does not exist
// gives an error wrapping ErrNoSuchPath instead: it is not looked up on
// the Hub nor asked of the server, as vLLM (transformers) refuses it too.
func CheckName(name string) error {
	if name == "" || IsBuiltin(name) {
		return nil
	}
	if _, err := os.Stat(name); err == nil {
		return nil
	} else if IsPathName(name) {
		hint := ""
		if strings.HasPrefix(name, "~") {
			hint = " (vbench does not expand ~: write the path out, or leave it unquoted for the shell)"
		}
		return fmt.Errorf("%s: %w (%v)%s", name, ErrNoSuchPath, errors.Unwrap(err), hint)
	}
	if strings.ContainsAny(name, `/\`) {
		return nil // a Hugging Face repository id
	}
	base := name
	if i := strings.LastIndexByte(name, '@'); i > 0 {
		base = name[:i]
	}
	if s := suggestBuiltin(base); s != "" {
		return fmt.Errorf("%w %q; did you mean %s? (the built-in encodings are %s; a Hugging Face repository id has the form owner/name)",
			ErrUnknownName, name, s, strings.Join(builtinNames, ", "))
	}
	return nil
}

// ErrNoSuchPath is wrapped by CheckName's error for a tokenizer named by a
// local path that does not exist.
var ErrNoSuchPath = errors.New("no such tokenizer path")

// IsPathName reports whether a tokenizer name is written as a local path
// rather than a Hugging Face repository id: absolute, starting with ./,
// ../ or ~/, "." or "..", or with a backslash (a repository id is
// owner/name, nothing else).
func IsPathName(name string) bool {
	switch {
	case name == "." || name == ".." || name == "~":
		return true
	case strings.HasPrefix(name, "/"), strings.HasPrefix(name, "./"), strings.HasPrefix(name, "../"), strings.HasPrefix(name, "~/"):
		return true
	case strings.ContainsRune(name, '\\'):
		return true
	}
	return false
}

// suggestBuiltin returns the built-in encoding name is closest to, when it
// is close enough to be a typo, else "".
func suggestBuiltin(name string) string {
	low := strings.ToLower(name)
	for _, b := range builtinNames {
		if low+"_base" == b || low+"-base" == b {
			return b
		}
	}
	return typo.Closest(low, builtinNames, 2)
}

// kind names a tokenizer's format.
func kind(t Tokenizer) string {
	switch t.(type) {
	case *HF:
		return "tokenizer.json"
	case *Tiktoken:
		return "tiktoken"
	}
	return fmt.Sprintf("%T", t)
}

// fetchTokenizer downloads a repository's tokenizer files and returns
// the snapshot directory holding them and the main file's name. Offline,
// a tiktoken file in the cache is used when tokenizer.json is not.
func fetchTokenizer(ctx context.Context, h *hub.Client, repo, rev string) (dir, file string, err error) {
	p, first := h.Download(ctx, repo, rev, fileTokenizerJSON)
	if first == nil {
		for _, f := range []string{fileConfig, fileSpecialMap} {
			if err := optional(h.Download(ctx, repo, rev, f)); err != nil {
				return "", "", err
			}
		}
		return filepath.Dir(p), fileTokenizerJSON, nil
	}
	if !missing(first) {
		return "", "", first
	}
	if errors.Is(first, hub.ErrUnreachable) {
		// The other files would wait for the same silent Hub: only the
		// cache can have them.
		offline := *h
		offline.Offline = true
		h = &offline
	}
	tried := []string{fileTokenizerJSON}
	for _, f := range tiktokenFiles {
		p, err := h.Download(ctx, repo, rev, f)
		if missing(err) {
			tried = append(tried, f)
			continue
		}
		if err != nil {
			return "", "", err
		}
		// The split pattern comes from the Python module the config's
		// auto_map names (see chooseTiktokenPattern): fetch it when the
		// repository has it.
		cfgPath, err := h.Download(ctx, repo, rev, fileConfig)
		if err := optional(cfgPath, err); err != nil {
			return "", "", err
		}
		var cfg []byte
		if err == nil {
			if cfg, err = os.ReadFile(cfgPath); err != nil {
				return "", "", err
			}
		}
		for _, c := range patternFiles(cfg) {
			if err := optional(h.Download(ctx, repo, rev, c)); err != nil {
				return "", "", err
			}
		}
		return filepath.Dir(p), f, nil
	}
	if !errors.Is(first, hub.ErrFileNotFound) {
		return "", "", first // offline or unreachable: say so
	}
	return "", "", fmt.Errorf("%w: the repository has none of %s", errNoTokenizer, strings.Join(tried, ", "))
}

// missing reports whether err says a file is absent, or not in the cache
// when only the cache can answer.
func missing(err error) bool {
	return errors.Is(err, hub.ErrFileNotFound) || errors.Is(err, hub.ErrOffline) || errors.Is(err, hub.ErrUnreachable)
}

// optional ignores the absence of a companion file (also when only the
// cache can answer).
func optional(_ string, err error) error {
	if missing(err) {
		return nil
	}
	return err
}
