package argv

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/py"
)

// pySpace is the ASCII whitespace Python's int() and float() strip.
const pySpace = " \t\n\r\v\f"

var (
	// pyIntSyntax is Python's int() literal for base 10: digits, optionally
	// separated by single underscores, with an optional sign.
	pyIntSyntax = regexp.MustCompile(`^[+-]?[0-9](?:_?[0-9])*$`)
	// pyFloatSyntax is Python's float() literal, without inf and nan.
	pyFloatSyntax = regexp.MustCompile(`^[+-]?(?:[0-9](?:_?[0-9])*(?:\.(?:[0-9](?:_?[0-9])*)?)?|\.[0-9](?:_?[0-9])*)(?:[eE][+-]?[0-9](?:_?[0-9])*)?$`)
	// humanReadable is the suffixed form vLLM's human_readable_int accepts.
	humanReadable = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)([kKmMgGtT])$`)
)

// pyInt parses s as Python's int(s) does for argparse's type=int: surrounding
// whitespace, a sign, and underscores between digits are allowed. Values
// outside int64 are errors (Python's ints are unbounded, but no vLLM flag
// takes such a value).
func pyInt(s string) (int64, error) {
	t := strings.Trim(s, pySpace)
	if !pyIntSyntax.MatchString(t) {
		return 0, fmt.Errorf("invalid int value: %s", py.ReprString(s))
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("int value %s is out of range", py.ReprString(s))
	}
	return n, nil
}

// pyFloat parses s as Python's float(s) does: surrounding whitespace, a
// sign, underscores between digits, and the case-insensitive words inf,
// infinity and nan. Values too large for a float64 become ±Inf, as in
// Python.
func pyFloat(s string) (float64, error) {
	t := strings.Trim(s, pySpace)
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) <= 1 {
		neg := strings.HasPrefix(t, "-")
		switch strings.ToLower(body) {
		case "inf", "infinity":
			if neg {
				return math.Inf(-1), nil
			}
			return math.Inf(1), nil
		case "nan":
			return math.NaN(), nil
		}
	}
	if !pyFloatSyntax.MatchString(t) {
		return 0, fmt.Errorf("invalid float value: %s", py.ReprString(s))
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid float value: %s", py.ReprString(s))
	}
	return f, nil
}

// humanReadableInt parses vLLM's human_readable_int: a plain Python int, or
// a number with a decimal suffix (k = 10^3, m = 10^6, g = 10^9, t = 10^12;
// decimals allowed, the product truncated as Python's int(float) does) or a
// binary suffix (K = 2^10, M = 2^20, G = 2^30, T = 2^40; integers only).
// The result is a decimal integer string, since it may exceed int64.
func humanReadableInt(s string) (string, error) {
	t := strings.Trim(s, pySpace)
	if m := humanReadable.FindStringSubmatch(t); m != nil {
		number, suffix := m[1], m[2]
		if exp := strings.Index("kmgt", suffix); exp >= 0 {
			f, err := strconv.ParseFloat(number, 64)
			if err != nil {
				return "", fmt.Errorf("invalid number %s", py.ReprString(s))
			}
			product := f * math.Pow10(3*(exp+1))
			if math.IsInf(product, 0) {
				return "", fmt.Errorf("number %s is too large", py.ReprString(s))
			}
			i, _ := new(big.Float).SetFloat64(product).Int(nil)
			return i.String(), nil
		}
		if strings.Contains(number, ".") {
			return "", fmt.Errorf("decimals are not allowed with binary suffixes like %s; did you mean %s%s?", suffix, number, strings.ToLower(suffix))
		}
		n, _ := new(big.Int).SetString(number, 10)
		shift := 10 * uint(strings.Index("KMGT", suffix)+1)
		return n.Lsh(n, shift).String(), nil
	}
	if !pyIntSyntax.MatchString(t) {
		return "", fmt.Errorf("invalid int value: %s", py.ReprString(s))
	}
	n, _ := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), 10)
	return n.String(), nil
}

// formatFloat writes f so that pyFloat (and Python's float) read back
// exactly f: the shortest round-tripping form, "inf" for +Inf.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
