package tokenizer

import (
	"fmt"
	"sync"

	"github.com/ardanlabs/jinja"

	"github.com/vbench/vbench/internal/py"
)

// Chat templates are rendered with github.com/ardanlabs/jinja, a pure-Go
// Jinja engine written for LLM chat templates: it applies the
// trim_blocks and lstrip_blocks settings transformers uses, and has
// transformers' raise_exception and strftime_now globals and a tojson
// filter that formats as Python's json.dumps. (The gonja forks were
// evaluated too: gonja/v2 could not parse Gemma 3's template and formats
// tojson compactly.) A template that uses something the engine does not
// support fails with an error saying so.

// Message is one message of a conversation given to a chat template.
type Message struct {
	// Role is the message's role, e.g. "system", "user" or "assistant".
	Role string
	// Content is the message's text.
	Content string
}

// ChatTemplater is implemented by tokenizers whose files carry a chat
// template (tokenizer_config.json's chat_template).
type ChatTemplater interface {
	// ApplyChatTemplate renders a conversation as transformers'
	// apply_chat_template(messages, tokenize=False,
	// add_generation_prompt=...) does. kwargs are extra template
	// variables (vLLM's --chat-template-kwargs, e.g. enable_thinking).
	ApplyChatTemplate(messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error)
}

// ApplyChatTemplate renders messages with tok's chat template, failing
// when tok has none.
func ApplyChatTemplate(tok Tokenizer, messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error) {
	if ct, ok := tok.(ChatTemplater); ok {
		return ct.ApplyChatTemplate(messages, addGenerationPrompt, kwargs)
	}
	return "", &NoChatTemplateError{Name: tok.Name()}
}

// NoChatTemplateError is the error of rendering a conversation with a
// tokenizer that has no chat template.
type NoChatTemplateError struct {
	// Name is the tokenizer's name.
	Name string
	// InConfig says the tokenizer has a tokenizer_config.json without one.
	InConfig bool
}

func (e *NoChatTemplateError) Error() string {
	if e.InConfig {
		return fmt.Sprintf("tokenizer %s has no chat template (tokenizer_config.json has no chat_template; use --skip-chat-template)", e.Name)
	}
	return fmt.Sprintf("tokenizer %s has no chat template (use --skip-chat-template)", e.Name)
}

// chatTemplate is a tokenizer's chat template, compiled on first use.
type chatTemplate struct {
	name   string            // the tokenizer's name, for errors
	source string            // "" when the tokenizer has none
	vars   map[string]string // special tokens: bos_token, eos_token, ...
	extra  []string          // additional_special_tokens

	once sync.Once
	tmpl *jinja.Template
	err  error
}

// newChatTemplate takes the default template of a config (nil allowed).
func newChatTemplate(name string, cfg *tokenizerConfig) *chatTemplate {
	ct := &chatTemplate{name: name}
	if cfg != nil {
		ct.source = cfg.templates["default"]
		ct.vars = cfg.named
		ct.extra = cfg.additional
	}
	return ct
}

func (ct *chatTemplate) apply(messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error) {
	if ct == nil || ct.source == "" {
		return "", &NoChatTemplateError{Name: ct.nameOr(), InConfig: true}
	}
	ct.once.Do(func() {
		ct.tmpl, ct.err = jinja.Compile(ct.source)
		if ct.err != nil {
			ct.err = fmt.Errorf("the chat template of tokenizer %s uses something vbench's Jinja engine does not support: %w", ct.name, ct.err)
		}
	})
	if ct.err != nil {
		return "", ct.err
	}
	data := make(map[string]any, len(ct.vars)+len(kwargs)+3)
	for k, v := range ct.vars {
		data[k] = v
	}
	extra := make([]any, len(ct.extra))
	for i, s := range ct.extra {
		extra[i] = s
	}
	data["additional_special_tokens"] = extra
	for k, v := range kwargs {
		data[k] = v
	}
	msgs := make([]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	data["messages"] = msgs
	data["add_generation_prompt"] = addGenerationPrompt
	vals := make(map[string]jinja.Value, len(data))
	for k, v := range data {
		vals[k] = toJinja(v)
	}
	out, err := ct.tmpl.RenderValues(vals)
	if err != nil {
		return "", fmt.Errorf("rendering the chat template of tokenizer %s: %w", ct.name, err)
	}
	return out, nil
}

func (ct *chatTemplate) nameOr() string {
	if ct == nil {
		return "?"
	}
	return ct.name
}

// ApplyChatTemplate renders a conversation with the chat template of the
// tokenizer's tokenizer_config.json.
func (t *HF) ApplyChatTemplate(messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error) {
	return t.chat.apply(messages, addGenerationPrompt, kwargs)
}

// ApplyChatTemplate renders a conversation with the chat template of a
// rank file's tokenizer_config.json (the built-in encodings have none).
func (t *Tiktoken) ApplyChatTemplate(messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error) {
	if t.chat == nil {
		return "", &NoChatTemplateError{Name: t.name}
	}
	return t.chat.apply(messages, addGenerationPrompt, kwargs)
}

var (
	_ ChatTemplater = (*HF)(nil)
	_ ChatTemplater = (*Tiktoken)(nil)
)

// toJinja converts a template variable to the engine's value: an ordered
// JSON object (*py.Object, as py.Loads reads one) keeps its key order, so
// that a template's tojson writes the keys as Python's json.dumps would;
// anything else converts as jinja.FromGoValue converts it.
func toJinja(v any) jinja.Value {
	switch x := v.(type) {
	case *py.Object:
		d := jinja.NewDict()
		dict := d.AsDict()
		for k, e := range x.All() {
			dict.Set(k, toJinja(e))
		}
		return d
	case []any:
		items := make([]jinja.Value, len(x))
		for i, e := range x {
			items[i] = toJinja(e)
		}
		return jinja.NewList(items)
	}
	return jinja.FromGoValue(v)
}
