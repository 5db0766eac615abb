package dataset

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vbench/vbench/internal/tokenizer"
)

// The row mappings of vLLM's text-only hf classes (sample() in
// vllm/benchmarks/datasets/datasets.py at 003cf0297cf6), one function per
// class. Prompt lengths are the token counts of the sent prompt with
// special tokens, as vLLM's len(tokenizer(prompt).input_ids).

// instructCoderRow is InstructCoderDataset's row: the code ("input"), two
// newlines and the instruction with vLLM's request to output code only,
// chat-templated unless --skip-chat-template.
func instructCoderRow(row hfRow, s *hfSampling) (Request, bool, error) {
	cols, err := hfStrings(row, "input", "instruction")
	if err != nil {
		return Request{}, false, err
	}
	return hfFixedRequest(s, cols[0]+"\n\n"+cols[1]+" Just output the code, do not include any explanation.")
}

// mtBenchRow is MTBenchDataset's row: the first of its "turns",
// chat-templated unless --skip-chat-template.
func mtBenchRow(row hfRow, s *hfSampling) (Request, bool, error) {
	turns, err := hfList(row, "turns", "strings")
	if err != nil {
		return Request{}, false, err
	}
	if len(turns) == 0 {
		return Request{}, false, errors.New(`"turns" is empty: expected a list that starts with the prompt`)
	}
	first, ok := turns[0].(string)
	if !ok {
		return Request{}, false, fmt.Errorf(`the first of "turns" is %s, expected the prompt string`, hfKind(turns[0]))
	}
	return hfFixedRequest(s, first)
}

// userPromptRow is the row of HumanEvalDataset ("prompt") and GSM8KDataset
// ("question"): the column's text, chat-templated unless
// --skip-chat-template.
func userPromptRow(col string) hfRowFunc {
	return func(row hfRow, s *hfSampling) (Request, bool, error) {
		text, err := hfString(row, col)
		if err != nil {
			return Request{}, false, err
		}
		return hfFixedRequest(s, text)
	}
}

// hfFixedRequest is the request of a class with a fixed output length
// (its default or --hf-output-len) for text.
func hfFixedRequest(s *hfSampling, text string) (Request, bool, error) {
	prompt, err := hfUserPrompt(s, text)
	if err != nil {
		return Request{}, false, err
	}
	return Request{Prompt: prompt, PromptLen: len(s.tok.Encode(prompt, true)), OutputLen: s.outputLen}, true, nil
}

// conversationRow is ConversationDataset's row (ShareGPT_Vicuna): a row
// whose "conversations" has fewer than two turns is dropped (vLLM filters
// them out first); the prompt is turn 0's "value", sent as it is, and the
// output length the token count of turn 1's, or --hf-output-len. Without
// --hf-output-len the pair is dropped unless the prompt has 4 to 1024
// tokens, the output at least 4 and both at most 2048. With
// --enable-multimodal-chat, or an "image" column, the request has chat
// messages: one user message of the text and the image.
func conversationRow(row hfRow, s *hfSampling) (Request, bool, error) {
	conv, err := hfList(row, "conversations", `turns (objects with a "value" string)`)
	if err != nil {
		return Request{}, false, err
	}
	if len(conv) < 2 {
		return Request{}, false, nil
	}
	var turns [2]string
	for i := range turns {
		t, ok := conv[i].(map[string]any)
		if !ok {
			return Request{}, false, fmt.Errorf(`turn %d of "conversations" is %s, expected an object with a "value" string`, i, hfKind(conv[i]))
		}
		v, ok := t["value"]
		if !ok {
			return Request{}, false, fmt.Errorf(`turn %d of "conversations" has no "value": expected a string`, i)
		}
		if turns[i], ok = v.(string); !ok {
			return Request{}, false, fmt.Errorf(`turn %d of "conversations" has a "value" that is %s, expected a string`, i, hfKind(v))
		}
	}
	r := Request{Prompt: turns[0], PromptLen: len(s.tok.Encode(turns[0], true))}
	keep, err := hfMeasuredOutput(s, &r, turns[1], 1024, 2048)
	if err != nil || !keep {
		return Request{}, false, err
	}
	var parts []Part
	if v, ok := row["image"]; ok {
		url, err := hfImageURL(v)
		if err != nil {
			return Request{}, false, fmt.Errorf(`"image": %w`, err)
		}
		parts = append(parts, Part{Type: PartImage, URL: url})
	}
	if parts != nil || s.spec.EnableMultimodalChat {
		r.Messages = []Message{{Role: RoleUser, Parts: append([]Part{{Type: PartText, Text: r.Prompt}}, parts...),
			Transformed: s.spec.EnableMultimodalChat}}
	}
	return r, true, nil
}

// imageURL is the URL vLLM's process_image makes of an image string: an
// http(s), file or image data URL as it is, else a file path.
func imageURL(s string) string {
	for _, p := range []string{"http://", "https://", "file://", "data:image/"} {
		if strings.HasPrefix(s, p) {
			return s
		}
	}
	return "file://" + s
}

// hfMeasuredOutput sets r's output length for a class that measures the
// reference answer (Conversation, AIMO): its token count with special
// tokens, or --hf-output-len. It reports whether r passes vLLM's length
// filter (is_valid_sequence with maxPrompt and maxTotal), which applies
// only to measured lengths. A measured length of 0 is an error, as vLLM
// asserts a positive one.
func hfMeasuredOutput(s *hfSampling, r *Request, answer string, maxPrompt, maxTotal int) (bool, error) {
	if s.fixed {
		r.OutputLen = s.outputLen
		return true, nil
	}
	// The answer is measured even when the prompt's length drops the pair,
	// since vLLM's assertion comes first.
	r.OutputLen = len(s.tok.Encode(answer, true))
	if r.OutputLen <= 0 {
		return false, errors.New("the reference answer has 0 tokens (vLLM asserts a positive output length; give --hf-output-len)")
	}
	return validLengths(r.PromptLen, r.OutputLen, maxPrompt, maxTotal), nil
}

// aimoRow is AIMODataset's row: the "problem", sent as it is (no chat
// template), its output length the token count of the "solution", or
// --hf-output-len. Without --hf-output-len the pair is dropped unless the
// prompt has 4 to 2048 tokens, the output at least 4 and both at most
// 32000.
func aimoRow(row hfRow, s *hfSampling) (Request, bool, error) {
	cols, err := hfStrings(row, "problem", "solution")
	if err != nil {
		return Request{}, false, err
	}
	r := Request{Prompt: cols[0], PromptLen: len(s.tok.Encode(cols[0], true))}
	keep, err := hfMeasuredOutput(s, &r, cols[1], 2048, 32000)
	return r, keep, err
}

// zetaEditableStart marks the start of the editable region in a zeta
// row's "output".
const zetaEditableStart = "<|editable_region_start|>"

// zetaRow is NextEditPredictionDataset's row (zeta): vLLM's zeta prompt
// around the "events" and the "input", sent as it is; the output length is
// the token count of the "output" from its editable region's start marker
// (of its last character when it has none, as Python's output[-1:]).
// --hf-output-len is not read.
func zetaRow(row hfRow, s *hfSampling) (Request, bool, error) {
	cols, err := hfStrings(row, "events", "input", "output")
	if err != nil {
		return Request{}, false, err
	}
	prompt := "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.\n\n" +
		"### User Edits:\n\n" + cols[0] + "\n\n### User Excerpt:\n\n" + cols[1] + "\n\n### Response:\n\n"
	output := cols[2]
	expected := ""
	if i := strings.Index(output, zetaEditableStart); i >= 0 {
		expected = output[i:]
	} else if _, size := utf8.DecodeLastRuneInString(output); size > 0 {
		expected = output[len(output)-size:]
	}
	return Request{Prompt: prompt, PromptLen: len(s.tok.Encode(prompt, true)), OutputLen: len(s.tok.Encode(expected, true))}, true, nil
}

// blazeditRow is BlazeditDataset's row: dropped unless its stored
// "norm_distance" (the edit's Levenshtein distance over the code's length)
// is within --blazedit-min-distance and --blazedit-max-distance; else
// Blazedit's change-request prompt around the "code" and the
// "change_request", chat-templated unless --skip-chat-template, with the
// fixed output length (4000, or --hf-output-len).
func blazeditRow(row hfRow, s *hfSampling) (Request, bool, error) {
	cols, err := hfStrings(row, "code", "change_request")
	if err != nil {
		return Request{}, false, err
	}
	d, err := hfNumber(row, "norm_distance")
	if err != nil {
		return Request{}, false, err
	}
	if d < s.spec.BlazeditMinDistance || d > s.spec.BlazeditMaxDistance {
		return Request{}, false, nil
	}
	return hfFixedRequest(s, "Given a code file, please apply the change requests and generate the new file.\n\n"+
		"Original file:\n```python\n"+cols[0]+"\n```\n\nChange request:\n"+cols[1]+
		"\n\nPlease generate the new code file in the \"New file\" section below.")
}

// mlperfRow is MLPerfDataset's row: the chat template on a system message
// ("system_prompt") and a user message ("question"), always (vLLM ignores
// --skip-chat-template here); the output length is the token count of the
// reference "output" without special tokens, or --hf-output-len. Either
// way the request is dropped unless the prompt has 4 to 1024 tokens, the
// output at least 4 and both at most 2048.
func mlperfRow(row hfRow, s *hfSampling) (Request, bool, error) {
	cols, err := hfStrings(row, "system_prompt", "question", "output")
	if err != nil {
		return Request{}, false, err
	}
	prompt, err := hfTemplate(s, tokenizer.Message{Role: "system", Content: cols[0]}, tokenizer.Message{Role: "user", Content: cols[1]})
	if err != nil {
		return Request{}, false, err
	}
	r := Request{Prompt: prompt, PromptLen: len(s.tok.Encode(prompt, true)), OutputLen: s.outputLen}
	if !s.fixed {
		r.OutputLen = len(s.tok.Encode(cols[2], false))
	}
	return r, validLengths(r.PromptLen, r.OutputLen, 1024, 2048), nil
}
