package tokenizer

import (
	"fmt"
	"slices"
	"strconv"
)

// tokenizerConfig is the part of a tokenizer_config.json that vbench uses.
type tokenizerConfig struct {
	class string
	// addBOS and addEOS are add_bos_token and add_eos_token, nil when
	// absent.
	addBOS, addEOS *bool
	// named holds bos_token, eos_token, unk_token, sep_token, pad_token,
	// cls_token and mask_token by name.
	named map[string]string
	// additional are additional_special_tokens (and the values of
	// extra_special_tokens).
	additional []string
	// added is added_tokens_decoder, by id.
	added map[int]addedToken
	// cleanup is clean_up_tokenization_spaces.
	cleanup bool
	// templates are the chat templates by name; a single template is
	// named "default".
	templates map[string]string
}

// specialNames are the special-token attributes of transformers'
// SpecialTokensMixin, in its order.
var specialNames = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// parseConfig reads a tokenizer_config.json.
func parseConfig(data []byte) (*tokenizerConfig, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if v.kind != jObject {
		return nil, fmt.Errorf("want an object, got %s", v.kindName())
	}
	c := &tokenizerConfig{named: map[string]string{}, added: map[int]addedToken{}, templates: map[string]string{}}
	if c.class, err = v.get("tokenizer_class").optString("tokenizer_class", ""); err != nil {
		return nil, err
	}
	for _, k := range []string{"add_bos_token", "add_eos_token"} {
		if x := v.get(k); !x.isNull() {
			b, err := x.asBool(k, false)
			if err != nil {
				return nil, err
			}
			if k == "add_bos_token" {
				c.addBOS = &b
			} else {
				c.addEOS = &b
			}
		}
	}
	for _, k := range specialNames {
		s, err := tokenContent(v.get(k), k)
		if err != nil {
			return nil, err
		}
		if s != "" {
			c.named[k] = s
		}
	}
	if list := v.get("additional_special_tokens"); !list.isNull() {
		if list.kind != jArray {
			return nil, fmt.Errorf("additional_special_tokens: want an array, got %s", list.kindName())
		}
		for i := range list.items() {
			e := &list.items()[i]
			s, err := tokenContent(e, fmt.Sprintf("additional_special_tokens[%d]", i))
			if err != nil {
				return nil, err
			}
			c.additional = append(c.additional, s)
		}
	}
	if extra := v.get("extra_special_tokens"); extra != nil && extra.kind == jObject {
		for i := range extra.items() {
			e := &extra.items()[i]
			s, err := tokenContent(e, "extra_special_tokens."+extra.names()[i])
			if err != nil {
				return nil, err
			}
			if s != "" && !slices.Contains(c.additional, s) {
				c.additional = append(c.additional, s)
			}
		}
	}
	if dec := v.get("added_tokens_decoder"); !dec.isNull() {
		if dec.kind != jObject {
			return nil, fmt.Errorf("added_tokens_decoder: want an object, got %s", dec.kindName())
		}
		for i, k := range dec.names() {
			id, err := strconv.Atoi(k)
			if err != nil || id < 0 {
				return nil, fmt.Errorf("added_tokens_decoder: key %q is not a token id", k)
			}
			e := dec.items()[i]
			where := "added_tokens_decoder." + k
			var t addedToken
			t.id = id
			if t.content, err = e.get("content").asString(where + ".content"); err != nil {
				return nil, err
			}
			if t.special, err = e.get("special").asBool(where+".special", false); err != nil {
				return nil, err
			}
			c.added[id] = t
		}
	}
	if c.cleanup, err = v.get("clean_up_tokenization_spaces").asBool("clean_up_tokenization_spaces", false); err != nil {
		return nil, err
	}
	switch ct := v.get("chat_template"); {
	case ct.isNull():
	case ct.kind == jString:
		c.templates["default"] = ct.str
	case ct.kind == jArray:
		for i := range ct.items() {
			e := &ct.items()[i]
			name, err := e.get("name").asString(fmt.Sprintf("chat_template[%d].name", i))
			if err != nil {
				return nil, err
			}
			tmpl, err := e.get("template").asString(fmt.Sprintf("chat_template[%d].template", i))
			if err != nil {
				return nil, err
			}
			c.templates[name] = tmpl
		}
	default:
		return nil, fmt.Errorf("chat_template: want a string or a list of templates, got %s", ct.kindName())
	}
	return c, nil
}

// merge overrides c's special tokens with those of a
// special_tokens_map.json.
func (c *tokenizerConfig) merge(m *tokenizerConfig) {
	for k, v := range m.named {
		c.named[k] = v
	}
	if len(m.additional) > 0 {
		c.additional = m.additional
	}
}

// tokenContent reads a special token given as a string or as an
// AddedToken object ({"content": ...}); "" when absent or null.
func tokenContent(v *jvalue, where string) (string, error) {
	switch {
	case v.isNull():
		return "", nil
	case v.kind == jString:
		return v.str, nil
	case v.kind == jObject:
		return v.get("content").asString(where + ".content")
	}
	return "", fmt.Errorf("%s: want a string or a token object, got %s", where, v.kindName())
}

// specialTokens lists the special tokens transformers reports in
// all_special_tokens: the named ones in order, then the additional ones,
// without repeats.
func (c *tokenizerConfig) specialTokens() []string {
	var out []string
	for _, k := range specialNames {
		if s, ok := c.named[k]; ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range c.additional {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// postProcessorClasses are the tokenizer classes whose fast tokenizer in
// transformers rebuilds the post-processor from add_bos_token and
// add_eos_token (update_post_processor), with BOS on by default.
var postProcessorClasses = map[string]bool{
	"LlamaTokenizer": true, "LlamaTokenizerFast": true,
	"CodeLlamaTokenizer": true, "CodeLlamaTokenizerFast": true,
	"GemmaTokenizer": true, "GemmaTokenizerFast": true,
	"CohereTokenizer": true, "CohereTokenizerFast": true,
}
