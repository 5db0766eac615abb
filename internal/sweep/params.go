// Package sweep runs vLLM's `vllm bench sweep serve` command lines: the
// server command is started once per combination of --serve-params, the
// benchmark command runs for every combination of --bench-params (--num-runs
// times each), and the results land in vLLM's directory layout with its
// summary.json and summary.csv, so that scripts written for vLLM's sweep
// read them unchanged. The benchmark itself is vbench's (vbench serve);
// the server is kept by internal/server.
package sweep

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/vbench/vbench/internal/py"
)

// nameKey is the key that names a parameter combination.
const nameKey = "_benchmark_name"

// LoadParams reads a --serve-params or --bench-params file: a JSON list of
// objects, or an object mapping names to objects (each name kept under
// "_benchmark_name", as vLLM does). An empty path gives the one empty
// combination.
func LoadParams(path string) ([]*py.Object, error) {
	if path == "" {
		return []*py.Object{py.NewObject()}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := py.Loads(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []*py.Object
	switch x := v.(type) {
	case []any:
		for i, item := range x {
			o, ok := item.(*py.Object)
			if !ok {
				return nil, fmt.Errorf("%s: item %d is not an object", path, i)
			}
			out = append(out, o)
		}
	case *py.Object:
		for name, item := range x.All() {
			o, ok := item.(*py.Object)
			if !ok {
				return nil, fmt.Errorf("%s: %q is not an object", path, name)
			}
			named := py.NewObject()
			named.Set(nameKey, name)
			for k, v := range o.All() {
				named.Set(k, v)
			}
			out = append(out, named)
		}
	default:
		return nil, fmt.Errorf("%s: want a JSON list of objects or an object of objects", path)
	}
	seen := map[string]bool{}
	for _, o := range out {
		if n, ok := o.Get(nameKey); ok {
			s := py.Str(n)
			if seen[s] {
				return nil, fmt.Errorf("%s: duplicate %s %q", path, nameKey, s)
			}
			seen[s] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no parameter combination", path)
	}
	return out, nil
}

// Name names a combination as vLLM does: its _benchmark_name, else
// "key=value" per parameter joined by "-" (values as Python's str()).
func Name(o *py.Object) string {
	if n, ok := o.Get(nameKey); ok {
		return py.Str(n)
	}
	var parts []string
	for k, v := range o.All() {
		parts = append(parts, k+"="+py.Str(v))
	}
	return strings.Join(parts, "-")
}

// Apply applies a combination to a command as vLLM's sweep does: each
// parameter (but _benchmark_name) becomes an option "--" + key with the
// underscores before its first dot turned to dashes; true is the bare
// option and false "--no-" + key (a dotted key takes "=true" or "=false"),
// an object is its JSON, anything else its Python str(). When the command
// has the option already (either spelling, as its own word) it is replaced
// there, with the word after it for a value; otherwise it is appended.
func Apply(cmd []string, o *py.Object) []string {
	out := append([]string(nil), cmd...)
	for k, v := range o.All() {
		if k == nameKey {
			continue
		}
		head, rest, dotted := strings.Cut(k, ".")
		dashed := strings.ReplaceAll(head, "_", "-")
		if dotted {
			dashed += "." + rest
		}
		if b, ok := v.(bool); ok {
			var flag string
			switch {
			case dotted:
				flag = fmt.Sprintf("--%s=%t", dashed, b)
			case b:
				flag = "--" + dashed
			default:
				flag = "--no-" + dashed
			}
			if i := indexOption(out, k, dashed); i >= 0 {
				out[i] = flag
			} else {
				out = append(out, flag)
			}
			continue
		}
		var val string
		if obj, ok := v.(*py.Object); ok {
			b, _ := py.Dumps(obj)
			val = string(b)
		} else {
			val = py.Str(v)
		}
		if i := indexOption(out, k, dashed); i >= 0 && i+1 < len(out) {
			out[i], out[i+1] = "--"+dashed, val
		} else if i >= 0 {
			out[i] = "--" + dashed
			out = append(out, val)
		} else {
			out = append(out, "--"+dashed, val)
		}
	}
	return out
}

// indexOption finds the option key (as written, or dashed) in cmd.
func indexOption(cmd []string, key, dashed string) int {
	for i, w := range cmd {
		if w == "--"+dashed || w == "--"+key {
			return i
		}
	}
	return -1
}

// LinkVars parses --link-vars: "serve_key=bench_key,..." pairs.
func LinkVars(s string) ([][2]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out [][2]string
	for _, item := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(item, "=")
		if !ok || strings.Contains(b, "=") {
			return nil, fmt.Errorf("--link-vars: %q is not serve_key=bench_key", item)
		}
		out = append(out, [2]string{strings.TrimSpace(a), strings.TrimSpace(b)})
	}
	return out, nil
}

// Linked says whether a serve and a bench combination agree on every
// linked pair (both present and equal, as Python compares them).
func Linked(links [][2]string, serve, bench *py.Object) bool {
	for _, l := range links {
		a, ok1 := serve.Get(l[0])
		b, ok2 := bench.Get(l[1])
		if !ok1 || !ok2 || !pyEqual(a, b) {
			return false
		}
	}
	return true
}

// pyEqual is Python's == on values Loads returns, as far as parameters
// need it: numbers compare by value (1 == 1.0), anything else by its
// JSON.
func pyEqual(a, b any) bool {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x == y
		}
	}
	ja, err1 := py.Dumps(a)
	jb, err2 := py.Dumps(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// number returns a numeric value (booleans count, as in Python).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Split splits a command line as Python's shlex.split does (POSIX mode, no
// comments): words at whitespace; single quotes keep everything; double
// quotes keep everything but \" and \\; a backslash outside quotes keeps
// the next character.
func Split(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("no closing quotation")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New("no closing quotation")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("no escaped character")
			}
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// sanitize makes a directory name as vLLM's sanitize_filename does.
func sanitize(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "/", "_"), "..", "__")
}
