package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The expected renderings were produced with Python's jinja2 3.1.6 set up
// as transformers' apply_chat_template sets it up (sandboxed,
// trim_blocks, lstrip_blocks, loopcontrols, raise_exception, tojson),
// from Qwen3's template in testdata/qwen3-cut/tokenizer_config.json.
func TestApplyChatTemplateQwen3(t *testing.T) {
	tok := loadFixture(t, "qwen3-cut")
	m := func(kv ...string) []Message {
		var out []Message
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, Message{Role: kv[i], Content: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name     string
		messages []Message
		gen      bool
		kwargs   map[string]any
		want     string
	}{
		{"user", m("user", "Hello, world!"), true, nil,
			"<|im_start|>user\nHello, world!<|im_end|>\n<|im_start|>assistant\n"},
		{"system", m("system", "You are helpful.", "user", "Hi"), true, nil,
			"<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"},
		{"multi-turn", m("system", "S", "user", "Q1", "assistant", "A1", "user", "Q2"), true, nil,
			"<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n"},
		{"earlier reasoning dropped", m("user", "Q1", "assistant", "<think>\nreasoning\n</think>\n\nA1", "user", "Q2"), true, nil,
			"<|im_start|>user\nQ1<|im_end|>\n<|im_start|>assistant\nA1<|im_end|>\n<|im_start|>user\nQ2<|im_end|>\n<|im_start|>assistant\n"},
		{"no generation prompt", m("user", "Q"), false, nil, "<|im_start|>user\nQ<|im_end|>\n"},
		{"enable_thinking false", m("user", "Q"), true, map[string]any{"enable_thinking": false},
			"<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
		{"unicode and spaces", m("user", "日本語 😀 \n\n  spaces  "), true, nil,
			"<|im_start|>user\n日本語 😀 \n\n  spaces  <|im_end|>\n<|im_start|>assistant\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyChatTemplate(tok, tt.messages, tt.gen, tt.kwargs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestApplyChatTemplateErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "qwen3-cut", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	withTemplate := func(tmpl string) Tokenizer {
		cfg := `{"bos_token": "<|endoftext|>", "chat_template": ` + strconvQuoteJSON(tmpl) + `}`
		tok, err := NewHF("x", HFFiles{Tokenizer: data, Config: []byte(cfg)})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	msgs := []Message{{Role: "user", Content: "a"}, {Role: "user", Content: "b"}}
	tests := []struct {
		name string
		tok  Tokenizer
		want string
	}{
		{"builtin has none", mustBuiltin(t, "o200k_base"), "has no chat template (use --skip-chat-template)"},
		{"no template in config", loadFixture(t, "mistral-cut"), "tokenizer_config.json has no chat_template"},
		{"unsupported statement", withTemplate("{% with a = 1 %}{{ a }}{% endwith %}"), `does not support: jinja parse: line 1: unknown statement "with"`},
		{"unknown filter", withTemplate("{{ messages | nosuchfilter }}"), `unknown filter "nosuchfilter"`},
		{"raise_exception", withTemplate("{% if messages[1].role == messages[0].role %}{{ raise_exception('Conversation roles must alternate') }}{% endif %}"),
			"Conversation roles must alternate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ApplyChatTemplate(tt.tok, msgs, true, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Special tokens of the config are template variables.
	got, err := ApplyChatTemplate(withTemplate("{{ bos_token }}{{ messages[0].content }}"), msgs, true, nil)
	if err != nil || got != "<|endoftext|>a" {
		t.Errorf("got %q, %v", got, err)
	}
}

// strconvQuoteJSON quotes s as a JSON string.
func strconvQuoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
