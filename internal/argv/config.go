package argv

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vbench/vbench/internal/py"
)

// expandConfig replaces "--config FILE" (or "--config=FILE") with the
// flags of the YAML file, placed before the remaining arguments, as vLLM's
// FlexibleArgumentParser does: the command line wins over the file. It
// also returns how many leading arguments came from the file.
func expandConfig(args []string, opts Options) ([]string, int, error) {
	at := -1
	for i, a := range args {
		if a == "--config" || strings.HasPrefix(a, "--config=") {
			if at >= 0 {
				return nil, 0, flagErr("--config", "given more than once (vLLM reads one config file)")
			}
			at = i
		}
	}
	if at < 0 {
		return args, 0, nil
	}
	file, end := strings.TrimPrefix(args[at], "--config="), at+1
	if args[at] == "--config" {
		if at+1 >= len(args) {
			return nil, 0, flagErr("--config", "expected a YAML file")
		}
		file, end = args[at+1], at+2
	}
	if ext := file[strings.LastIndexByte(file, '.')+1:]; ext != "yaml" && ext != "yml" {
		return nil, 0, flagErr("--config "+file, "the config file must be a .yaml or .yml file")
	}
	read := opts.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	data, err := read(file)
	if err != nil {
		return nil, 0, flagErr("--config "+file, fmt.Sprintf("cannot read the config file: %v", err))
	}
	cfg, err := configArgs(data)
	if err != nil {
		return nil, 0, flagErr("--config "+file, err.Error())
	}
	out := make([]string, 0, len(cfg)+len(args))
	out = append(out, cfg...)
	out = append(out, args[:at]...)
	return append(out, args[end:]...), len(cfg), nil
}

// configArgs turns a YAML mapping into flags as vLLM's load_config_file
// does: true is "--key", false is "--no-key" when that option exists (and
// nothing otherwise), a list is "--key item...", a mapping is "--key JSON",
// anything else "--key str(value)". Scalars are typed by PyYAML's (YAML
// 1.1) rules, so "yes" is true and "0x10" is 16.
func configArgs(data []byte) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid YAML: %v", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || resolveAlias(doc.Content[0]).Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a YAML mapping of flag names to values")
	}
	m := resolveAlias(doc.Content[0])
	var out []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolveAlias(m.Content[i]), resolveAlias(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: want a flag name as the key", k.Line)
		}
		key, _, err := pyScalar(k)
		if err != nil {
			return nil, err
		}
		switch v.Kind {
		case yaml.ScalarNode:
			s, isBool, err := pyScalar(v)
			if err != nil {
				return nil, err
			}
			switch {
			case isBool && s == "True":
				out = append(out, "--"+key)
			case isBool:
				if isOption("--no-" + key) {
					out = append(out, "--no-"+key)
				}
			default:
				out = append(out, "--"+key, s)
			}
		case yaml.SequenceNode:
			if len(v.Content) == 0 {
				continue
			}
			out = append(out, "--"+key)
			for _, item := range v.Content {
				item = resolveAlias(item)
				if item.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("line %d: %s: list items must be plain values", item.Line, key)
				}
				s, _, err := pyScalar(item)
				if err != nil {
					return nil, err
				}
				out = append(out, s)
			}
		case yaml.MappingNode:
			j, err := yamlJSON(v)
			if err != nil {
				return nil, err
			}
			out = append(out, "--"+key, dumps(j))
		default:
			return nil, fmt.Errorf("line %d: %s: unsupported value", v.Line, key)
		}
	}
	return out, nil
}

// resolveAlias follows a YAML alias to its anchor.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// PyYAML's implicit resolvers for plain scalars (YAML 1.1).
var (
	yamlNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yamlBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlInt   = regexp.MustCompile(`^[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+)$`)
	yamlFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// yamlScalar types a scalar node as PyYAML (YAML 1.1) does: quoted,
// block and !!str scalars are strings; plain ones are null (nil), bool,
// int (json.Number of its decimal digits) or float64 when they look like
// one.
func yamlScalar(n *yaml.Node) (any, error) {
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	if quoted || (n.Style&yaml.TaggedStyle != 0 && n.Tag == "!!str") {
		return n.Value, nil
	}
	v := n.Value
	switch {
	case yamlNull.MatchString(v):
		return nil, nil
	case yamlBool.MatchString(v):
		switch strings.ToLower(v) {
		case "yes", "true", "on":
			return true, nil
		}
		return false, nil
	case yamlInt.MatchString(v):
		s, err := yamlIntString(v, n.Line)
		return json.Number(s), err
	case yamlFloat.MatchString(v):
		return yamlFloatValue(v), nil
	}
	return v, nil
}

// pyScalar returns str() of the Python value PyYAML loads for a scalar
// node ("None", "True", "16", "0.5", or the string), and whether that
// value is a bool.
func pyScalar(n *yaml.Node) (string, bool, error) {
	v, err := yamlScalar(n)
	if err != nil {
		return "", false, err
	}
	switch x := v.(type) {
	case nil:
		return "None", false, nil
	case bool:
		if x {
			return "True", true, nil
		}
		return "False", true, nil
	case float64:
		return py.Repr(x), false, nil
	case json.Number:
		return string(x), false, nil
	}
	return v.(string), false, nil
}

// yamlIntString converts a YAML 1.1 integer literal to decimal.
func yamlIntString(v string, line int) (string, error) {
	s := strings.ReplaceAll(v, "_", "")
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0b"):
		base, s = 2, s[2:]
	case strings.HasPrefix(s, "0x"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return "", fmt.Errorf("line %d: integer %s is out of range", line, v)
	}
	if n == 0 {
		sign = ""
	}
	return sign + strconv.FormatUint(n, 10), nil
}

// yamlFloatValue converts a YAML 1.1 float literal.
func yamlFloatValue(v string) float64 {
	s := strings.ReplaceAll(v, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case ".nan":
		return math.NaN()
	}
	if strings.HasSuffix(s, ".") || strings.Contains(s, ".e") || strings.Contains(s, ".E") {
		s = strings.Replace(s, ".", ".0", 1)
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// yamlJSON converts a YAML node into the JSON value json.dumps would write
// for what PyYAML loads.
func yamlJSON(n *yaml.Node) (any, error) {
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.MappingNode:
		v := py.NewObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := yamlJSON(n.Content[i])
			if err != nil {
				return nil, err
			}
			val, err := yamlJSON(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			var key string
			switch x := k.(type) {
			case nil:
				key = "null"
			case bool:
				key = strconv.FormatBool(x)
			case float64:
				key = py.Repr(x)
			case json.Number:
				key = string(x)
			case string:
				key = x
			default:
				return nil, fmt.Errorf("line %d: a mapping key must be a plain value", n.Content[i].Line)
			}
			v.Set(key, val)
		}
		return v, nil
	case yaml.SequenceNode:
		items := []any{}
		for _, c := range n.Content {
			item, err := yamlJSON(c)
			if err != nil {
				return nil, err
			}
			items = append(items, item)
		}
		return items, nil
	case yaml.ScalarNode:
		v, err := yamlScalar(n)
		if f, ok := v.(float64); err == nil && ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			err = fmt.Errorf("line %d: %s is not a number JSON can hold", n.Line, n.Value)
		}
		return v, err
	}
	return nil, fmt.Errorf("line %d: unsupported YAML value", n.Line)
}
