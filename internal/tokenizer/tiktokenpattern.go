package tokenizer

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// A tiktoken rank file carries no split pattern: the model's Python
// tokenizer class supplies it. tokenizer_config.json's auto_map names that
// class ("tokenization_kimi.TikTokenTokenizer"), whose module file
// (tokenization_kimi.py) transformers loads from the model's repository.
// vbench reads the pattern from that file when it is there, else from
// the patterns it knows by module name; a model with an auto_map but
// neither is refused, as Llama-3's pattern would tokenize it wrongly
// without a word (Kimi K2's " It's" splits in two under it).

// knownPatternModules are the split patterns of tokenizer modules vbench
// knows, by module name, for model directories that ship the rank file
// and tokenizer_config.json without the module's .py file.
var knownPatternModules = map[string]string{
	"tokenization_kimi": kimiPattern, // Kimi K2 (moonshotai/Kimi-K2-*)
}

// legacyPatternSources are the Python files a split pattern is read from
// when tokenizer_config.json names no tokenizer module (auto_map): Meta's
// original Llama-3 checkpoints ship tokenizer.py.
var legacyPatternSources = []string{"tokenization_kimi.py", "tokenizer.py"}

// autoMapModules returns the modules that tokenizer_config.json's
// auto_map.AutoTokenizer names ("tokenization_kimi" for
// ["tokenization_kimi.TikTokenTokenizer", null]), in order and without
// repeats; a "repo--" prefix (code from another repository) is dropped.
// ok is false when there is no auto_map.AutoTokenizer. A config that is
// not valid JSON gives no modules (its error is reported where the config
// is parsed).
func autoMapModules(config []byte) (mods []string, ok bool) {
	if config == nil {
		return nil, false
	}
	v, err := parseJSON(config)
	if err != nil || v.kind != jObject {
		return nil, false
	}
	at := v.get("auto_map").get("AutoTokenizer")
	var refs []string
	switch {
	case at.isNull():
		return nil, false
	case at.kind == jString:
		refs = []string{at.str}
	case at.kind == jArray:
		for _, e := range at.items() {
			if e.kind == jString {
				refs = append(refs, e.str)
			}
		}
	}
	for _, r := range refs {
		if _, after, cut := strings.Cut(r, "--"); cut {
			r = after
		}
		i := strings.LastIndexByte(r, '.')
		if i <= 0 {
			continue
		}
		m := r[:i]
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	return mods, true
}

// moduleFile returns the file name of a Python module named in auto_map
// ("tokenization_kimi.py"), "" when the name is not a plain identifier
// (a dotted package path, or anything that could leave the directory).
func moduleFile(mod string) string {
	if mod == "" {
		return ""
	}
	for i, c := range mod {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return ""
		}
	}
	return mod + ".py"
}

// patternFiles returns the Python files that may hold the split pattern
// of a tiktoken model with this tokenizer_config.json: the modules its
// auto_map names, else legacyPatternSources.
func patternFiles(config []byte) []string {
	mods, ok := autoMapModules(config)
	if !ok {
		return legacyPatternSources
	}
	var out []string
	for _, m := range mods {
		if f := moduleFile(m); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// chooseTiktokenPattern returns the split pattern of the rank file at
// path, given its tokenizer_config.json (nil when absent) and read, which
// returns a companion file's contents (nil when absent). In order:
//
//  1. the pat_str of a Python module auto_map names, when the file is
//     there and has one;
//  2. the pattern of a module vbench knows by name (knownPatternModules);
//  3. with no auto_map at all, the pat_str of tokenization_kimi.py or
//     tokenizer.py when present, else "" (DefaultTiktokenPattern,
//     Llama-3's, as vLLM's Rust client does);
//  4. otherwise an error saying the pattern is unknown and how to supply
//     it.
func chooseTiktokenPattern(path string, config []byte, read func(name string) ([]byte, error)) (string, error) {
	mods, hasAutoMap := autoMapModules(config)
	for _, f := range patternFiles(config) {
		src, err := read(f)
		if err != nil {
			return "", err
		}
		if p, ok := ExtractTiktokenPattern(string(src)); ok {
			return p, nil
		}
	}
	if !hasAutoMap {
		return "", nil
	}
	for _, m := range mods {
		if p, ok := knownPatternModules[m]; ok {
			return p, nil
		}
	}
	return "", unknownPatternError(path, mods, read)
}

// unknownPatternError says that a rank file's split pattern is unknown,
// why, and how to supply it.
func unknownPatternError(path string, mods []string, read func(string) ([]byte, error)) error {
	rank := filepath.Base(path)
	if len(mods) == 0 {
		return fmt.Errorf("the split pattern of %s is unknown: tokenizer_config.json has an auto_map.AutoTokenizer that names no module; put the model's tokenization_*.py (with its pat_str) beside %s", path, rank)
	}
	named := strings.Join(mods, ", ")
	want := moduleFile(mods[0])
	if want == "" {
		want = "tokenization_*.py"
	}
	if src, _ := read(want); src != nil {
		return fmt.Errorf("the split pattern of %s is unknown: %s, which tokenizer_config.json's auto_map names, has no pat_str vbench can read, and vbench knows the patterns of %s only", path, want, knownModuleNames())
	}
	return fmt.Errorf("the split pattern of %s is unknown: tokenizer_config.json's auto_map names %s, whose file is not beside %s, and vbench knows the patterns of %s only; put the model's %s beside %s", path, named, rank, knownModuleNames(), want, rank)
}

// knownModuleNames lists knownPatternModules' names.
func knownModuleNames() string {
	return strings.Join(slices.Sorted(maps.Keys(knownPatternModules)), ", ")
}
