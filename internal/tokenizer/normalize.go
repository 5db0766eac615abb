package tokenizer

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer is a tokenizer.json normalizer: it rewrites the text between
// added tokens before pre-tokenization.
type normalizer interface {
	normalize(s string) string
}

// parseNormalizer builds the normalizer of a tokenizer.json "normalizer"
// value; nil when there is none.
func parseNormalizer(v *jvalue, where string) (normalizer, error) {
	if v.isNull() {
		return nil, nil
	}
	typ, err := v.get("type").asString(where + ".type")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Sequence":
		list := v.get("normalizers")
		if list == nil || list.kind != jArray {
			return nil, fmt.Errorf("%s.normalizers: want an array, got %s", where, list.kindName())
		}
		var seq seqNormalizer
		for i := range list.items() {
			e := &list.items()[i]
			n, err := parseNormalizer(e, fmt.Sprintf("%s.normalizers[%d]", where, i))
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	case "NFC":
		return formNormalizer{norm.NFC}, nil
	case "NFD":
		return formNormalizer{norm.NFD}, nil
	case "NFKC":
		return formNormalizer{norm.NFKC}, nil
	case "NFKD":
		return formNormalizer{norm.NFKD}, nil
	case "Prepend":
		s, err := v.get("prepend").asString(where + ".prepend")
		if err != nil {
			return nil, err
		}
		return prependNormalizer(s), nil
	case "Replace":
		r, err := parseReplace(v, where)
		if err != nil {
			return nil, err
		}
		return r, nil
	case "Lowercase":
		return lowercaseNormalizer{}, nil
	case "Strip":
		l, err := v.get("strip_left").asBool(where+".strip_left", false)
		if err != nil {
			return nil, err
		}
		r, err := v.get("strip_right").asBool(where+".strip_right", false)
		if err != nil {
			return nil, err
		}
		return stripNormalizer{left: l, right: r}, nil
	}
	return nil, fmt.Errorf("%s: normalizer %q is not supported (vbench supports NFC, NFD, NFKC, NFKD, Prepend, Replace with a string pattern, Lowercase, Strip and Sequence)", where, typ)
}

// parseReplace reads a Replace normalizer or decoder. Only string patterns
// are supported.
func parseReplace(v *jvalue, where string) (replaceNormalizer, error) {
	pat := v.get("pattern")
	if pat.get("Regex") != nil {
		return replaceNormalizer{}, fmt.Errorf("%s: Replace with a Regex pattern is not supported (only a String pattern)", where)
	}
	old, err := pat.get("String").asString(where + ".pattern.String")
	if err != nil {
		return replaceNormalizer{}, err
	}
	content, err := v.get("content").asString(where + ".content")
	if err != nil {
		return replaceNormalizer{}, err
	}
	return replaceNormalizer{old: old, new: content}, nil
}

type seqNormalizer []normalizer

func (q seqNormalizer) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

// formNormalizer applies a Unicode normalization form.
type formNormalizer struct{ form norm.Form }

func (f formNormalizer) normalize(s string) string {
	if f.form.IsNormalString(s) {
		return s
	}
	return f.form.String(s)
}

// prependNormalizer prepends its text to a non-empty string.
type prependNormalizer string

func (p prependNormalizer) normalize(s string) string {
	if s == "" {
		return s
	}
	return string(p) + s
}

// replaceNormalizer replaces every occurrence of old, left to right; an
// empty old matches nothing.
type replaceNormalizer struct{ old, new string }

func (r replaceNormalizer) normalize(s string) string {
	if r.old == "" {
		return s
	}
	return strings.ReplaceAll(s, r.old, r.new)
}

// lowercaseNormalizer lowercases character by character, as Rust's
// char::to_lowercase: U+0130 becomes "i̇" (two characters), every other
// character its simple lowercase mapping.
type lowercaseNormalizer struct{}

func (lowercaseNormalizer) normalize(s string) string {
	return strings.Map(unicode.ToLower, strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// stripNormalizer removes leading and/or trailing white space.
type stripNormalizer struct{ left, right bool }

func (st stripNormalizer) normalize(s string) string {
	if st.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}
