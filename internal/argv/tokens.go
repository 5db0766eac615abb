package argv

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/vbench/vbench/internal/py"
)

// rewritten is the command line after FlexibleArgumentParser's rewriting,
// as argparse sees it.
type rewritten struct {
	args []string
	// helpKeyword is the KEYWORD of --help=KEYWORD, if given.
	helpKeyword string
	// duplicateKeys are dotted sub-keys given more than once.
	duplicateKeys []string
	// fromConfig counts the options each --config file line gave, by name
	// as written (after underscores became dashes).
	fromConfig map[string]int
}

// rewrite applies vLLM's FlexibleArgumentParser rewriting to args, in its
// order:
//
//  1. --config FILE.yaml is replaced by the flags of the file, placed
//     before the rest of the command line so that the command line wins.
//  2. In every token starting with "--", underscores in the option name
//     (before any "=" and before the first ".") become dashes; and
//     --help=KEYWORD becomes --help, remembering KEYWORD.
//  3. Dotted options (--extra-body.temperature 0, --x.key+ a,b) are folded
//     into one JSON object per option, appended at the end of the command
//     line as --extra-body '{"temperature": 0}'.
//
// vbench departs from vLLM in two places, both where vLLM fails: a value
// that looks like a negative number ("--top-p -0.5") is a value, not a
// dotted option; and --config=FILE works like --config FILE.
func rewrite(args []string, opts Options) (*rewritten, error) {
	args, ncfg, err := expandConfig(args, opts)
	if err != nil {
		return nil, err
	}
	rw := &rewritten{fromConfig: map[string]int{}}
	for _, a := range args[:ncfg] {
		if strings.HasPrefix(a, "--") {
			rw.fromConfig[dashes(a)]++
		}
	}
	processed := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--help="):
			rw.helpKeyword = strings.ToLower(a[len("--help="):])
			processed = append(processed, "--help")
		case strings.HasPrefix(a, "--"):
			processed = append(processed, dashes(a))
		default:
			processed = append(processed, a)
		}
	}
	return rw, rw.foldDotted(processed)
}

// dashes turns underscores into dashes in the option name of a "--" token:
// the part after "--", before any "=" and before the first ".".
func dashes(tok string) string {
	key, value, hasValue := strings.Cut(tok, "=")
	name := key[2:]
	end := strings.IndexByte(name, '.')
	if end < 0 {
		end = len(name)
	}
	key = "--" + strings.ReplaceAll(name[:end], "_", "-") + name[end:]
	if hasValue {
		return key + "=" + value
	}
	return key
}

// foldDotted folds the dotted options of args into JSON objects (step 3
// of rewrite) and stores the result in rw.args.
func (rw *rewritten) foldDotted(args []string) error {
	type dictArg struct {
		key   string
		value *py.Object
	}
	var dicts []*dictArg
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		tok := args[i]
		key, value, hasValue := strings.Cut(tok, "=")
		if !strings.HasPrefix(tok, "--") || !strings.Contains(key, ".") {
			out = append(out, tok)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return flagErr(tok, "expected one argument")
			}
			i++
			value = args[i]
		}
		var v any
		if strings.HasSuffix(key, "+") {
			key = key[:len(key)-1]
			items := []any{}
			for _, s := range strings.Split(value, ",") {
				items = append(items, s)
			}
			v = items
		} else {
			v = dottedValue(value)
		}
		parts := strings.Split(key, ".")
		for j := len(parts) - 1; j >= 2; j-- {
			o := py.NewObject()
			o.Set(parts[j], v)
			v = o
		}
		update := py.NewObject()
		update.Set(parts[1], v)
		var d *dictArg
		for _, x := range dicts {
			if x.key == parts[0] {
				d = x
			}
		}
		if d == nil {
			d = &dictArg{key: parts[0], value: py.NewObject()}
			dicts = append(dicts, d)
		}
		if dup := duplicateKey(d.value, update, parts[0]); dup != "" {
			rw.duplicateKeys = append(rw.duplicateKeys, dup)
		}
		mergeJSON(d.value, update)
	}
	for _, d := range dicts {
		out = append(out, d.key, dumps(d.value))
	}
	rw.args = out
	return nil
}

// dottedValue is the value of a dotted option: JSON if it parses, else a
// human-readable integer (1k, 2M), else the string itself.
func dottedValue(s string) any {
	if v, err := parseJSON(s); err == nil {
		return v
	}
	if n, err := humanReadableInt(s); err == nil {
		return json.Number(n)
	}
	return s
}

// duplicateKey returns the dotted path of the first scalar in update that
// replaces a value already in orig ("" if none), for the duplicate warning.
func duplicateKey(orig, update *py.Object, prefix string) string {
	for k, u := range update.All() {
		o, ok := orig.Get(k)
		if !ok {
			continue
		}
		uo, uObj := u.(*py.Object)
		oo, oObj := o.(*py.Object)
		_, uArr := u.([]any)
		_, oArr := o.([]any)
		switch {
		case uObj && oObj:
			if d := duplicateKey(oo, uo, prefix+"."+k); d != "" {
				return d
			}
		case uArr && oArr:
		default:
			return prefix + "." + k
		}
	}
	return ""
}

// tokenKind is argparse's classification of a command-line token.
type tokenKind int

const (
	// tokValue is a value ("A" in argparse).
	tokValue tokenKind = iota
	// tokOption is a known option, possibly with an explicit =value.
	tokOption
	// tokUnknown is an option-looking token no option matches.
	tokUnknown
	// tokEnd is "--": everything after it is a positional value.
	tokEnd
)

// token is a classified command-line token.
type token struct {
	kind tokenKind
	text string
	// name is the option a tokOption resolves to (after abbreviation).
	name string
	// explicit is the value given with "=" (or after -h), if any.
	explicit *string
}

// exactOption returns the option tok names exactly: itself, or the flag
// it is an alias of.
func exactOption(tok string) (string, bool) {
	if isOption(tok) {
		return tok, true
	}
	name, ok := aliases[tok]
	return name, ok
}

// negativeNumber is argparse's test (Python 3.13) for a token that is a
// negative number, and so a value rather than an option.
var negativeNumber = regexp.MustCompile(`^-\.?[0-9]`)

// classify classifies tok as argparse's _parse_optional does: exact option
// names (or aliases, see aliases), NAME=VALUE, unambiguous prefixes of long
// options (an ambiguous one is an error), "-h" followed by text, then
// negative numbers and tokens with spaces as values, anything else
// starting with "-" as an unknown option.
func classify(tok string) (token, error) {
	t := token{kind: tokValue, text: tok}
	if tok == "" || tok[0] != '-' {
		return t, nil
	}
	if name, ok := exactOption(tok); ok {
		t.kind, t.name = tokOption, name
		return t, nil
	}
	if len(tok) == 1 {
		return t, nil
	}
	if tok == "--" {
		t.kind = tokEnd
		return t, nil
	}
	name, value, hasValue := strings.Cut(tok, "=")
	if opt, ok := exactOption(name); ok && hasValue {
		t.kind, t.name, t.explicit = tokOption, opt, &value
		return t, nil
	}
	if strings.HasPrefix(tok, "--") {
		var matches []string
		for _, o := range optionNames {
			// vllm-bench (clap) takes no abbreviations: its own flags are
			// matched whole, so they leave vLLM's abbreviations as they were.
			if strings.HasPrefix(o, "--") && strings.HasPrefix(o, name) && (o == name || !rustName(o)) {
				matches = append(matches, o)
			}
		}
		switch {
		case len(matches) > 1:
			return t, flagErr(name, fmt.Sprintf("ambiguous option: could match %s", strings.Join(matches, ", ")))
		case len(matches) == 1:
			t.kind, t.name = tokOption, matches[0]
			if hasValue {
				t.explicit = &value
			}
			return t, nil
		}
	} else if strings.HasPrefix(tok, "-h") {
		rest := tok[2:]
		t.kind, t.name, t.explicit = tokOption, "-h", &rest
		return t, nil
	}
	if negativeNumber.MatchString(tok) || strings.Contains(tok, " ") {
		return t, nil
	}
	t.kind = tokUnknown
	return t, nil
}
