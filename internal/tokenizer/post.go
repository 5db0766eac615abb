package tokenizer

import "fmt"

// postProcessor is what a tokenizer.json post-processor does to a single
// sequence when special tokens are requested: ids before and after it.
type postProcessor struct {
	prefix, suffix []int
}

// count is num_special_tokens_to_add() for a single sequence.
func (p postProcessor) count() int { return len(p.prefix) + len(p.suffix) }

// wrap returns prefix + ids + suffix.
func (p postProcessor) wrap(ids []int) []int {
	if p.count() == 0 {
		return ids
	}
	out := make([]int, 0, len(ids)+p.count())
	out = append(out, p.prefix...)
	out = append(out, ids...)
	return append(out, p.suffix...)
}

// parsePostProcessor reads a tokenizer.json "post_processor" value:
// TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel (which
// adds nothing) and Sequence.
func parsePostProcessor(v *jvalue, where string) (postProcessor, error) {
	var p postProcessor
	if v.isNull() {
		return p, nil
	}
	typ, err := v.get("type").asString(where + ".type")
	if err != nil {
		return p, err
	}
	switch typ {
	case "ByteLevel":
		return p, nil
	case "Sequence":
		list := v.get("processors")
		if list == nil || list.kind != jArray {
			return p, fmt.Errorf("%s.processors: want an array, got %s", where, list.kindName())
		}
		// Each processor wraps the output of the one before.
		for i := range list.items() {
			e := &list.items()[i]
			q, err := parsePostProcessor(e, fmt.Sprintf("%s.processors[%d]", where, i))
			if err != nil {
				return p, err
			}
			p.prefix = append(append([]int(nil), q.prefix...), p.prefix...)
			p.suffix = append(p.suffix, q.suffix...)
		}
		return p, nil
	case "RobertaProcessing", "BertProcessing":
		cls, err := tokenPair(v.get("cls"), where+".cls")
		if err != nil {
			return p, err
		}
		sep, err := tokenPair(v.get("sep"), where+".sep")
		if err != nil {
			return p, err
		}
		return postProcessor{prefix: []int{cls}, suffix: []int{sep}}, nil
	case "TemplateProcessing":
		return parseTemplate(v, where)
	}
	return p, fmt.Errorf("%s: post-processor %q is not supported (vbench supports TemplateProcessing, RobertaProcessing, BertProcessing, ByteLevel and Sequence)", where, typ)
}

// tokenPair reads a ["token", id] pair and returns the id.
func tokenPair(v *jvalue, where string) (int, error) {
	if v == nil || v.kind != jArray || len(v.items()) != 2 {
		return 0, fmt.Errorf("%s: want a [token, id] pair", where)
	}
	return v.items()[1].asInt(where + "[1]")
}

// parseTemplate reads TemplateProcessing's "single" template.
func parseTemplate(v *jvalue, where string) (postProcessor, error) {
	var p postProcessor
	single := v.get("single")
	if single == nil || single.kind != jArray {
		return p, fmt.Errorf("%s.single: want an array, got %s", where, single.kindName())
	}
	specials := v.get("special_tokens")
	seen := false
	for i := range single.items() {
		item := &single.items()[i]
		iw := fmt.Sprintf("%s.single[%d]", where, i)
		if s := item.get("Sequence"); s != nil {
			id, err := s.get("id").asString(iw + ".Sequence.id")
			if err != nil {
				return p, err
			}
			if id != "A" {
				return p, fmt.Errorf("%s: sequence %q in a single-sequence template", iw, id)
			}
			if seen {
				return p, fmt.Errorf("%s: the sequence appears twice", iw)
			}
			seen = true
			continue
		}
		st := item.get("SpecialToken")
		if st == nil {
			return p, fmt.Errorf("%s: want Sequence or SpecialToken", iw)
		}
		name, err := st.get("id").asString(iw + ".SpecialToken.id")
		if err != nil {
			return p, err
		}
		spec := specials.get(name)
		if spec == nil {
			return p, fmt.Errorf("%s: special token %q is not in special_tokens", iw, name)
		}
		ids := spec.get("ids")
		if ids == nil || ids.kind != jArray {
			return p, fmt.Errorf("%s.special_tokens[%q].ids: want an array", where, name)
		}
		for k := range ids.items() {
			e := &ids.items()[k]
			id, err := e.asInt(fmt.Sprintf("%s.special_tokens[%q].ids[%d]", where, name, k))
			if err != nil {
				return p, err
			}
			if seen {
				p.suffix = append(p.suffix, id)
			} else {
				p.prefix = append(p.prefix, id)
			}
		}
	}
	if !seen {
		return p, fmt.Errorf("%s.single: the template has no $A", where)
	}
	return p, nil
}
