// Package dataset generates benchmark requests from a scenario's dataset
// spec, following vLLM's sampling rules so that the same seed gives the same
// prompts.
//
// Each dataset kind (vLLM's --dataset-name) is one registry entry, a Kind,
// whose Source generates the kind's requests; Build runs the entry of the
// scenario's kind. Nothing outside this package dispatches on a kind's
// name.
//
// To add a dataset kind:
//   - write one file in this package with its spec type (the Go type of its
//     section of a scenario), its Source, and an init function that calls
//     Register with the kind's properties: Spec, and as needed IgnoreEOS,
//     Align, NeedsTokenizer, AllPrompts (num_prompts 0 means every row),
//     Backends, Check (rules the schema cannot state), Count
//     when it can make its requests as a run pulls them, Feedback when later
//     requests carry earlier answers, Memory for the pre-run memory check;
//     plus its tests, and its fields' evidence in fields_test.go;
//   - add its section to #Dataset in schema/scenario.cue, under the same
//     name; vbench run, vet and dataset accept the kind from then on (the
//     scenario decodes the section through the registry);
//   - for vbench serve, add its entry to argvDatasets in
//     internal/argv/datasets.go, its flags to the flag table, and take them
//     off internal/argv/testdata/unsupported.txt.
package dataset

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Request is one benchmark request before it is sent: vLLM's
// SampleRequest. The input is one of Prompt, Prompts and PromptTokens;
// Messages, when set, is what chat backends send instead. The backend's
// payload builder picks the form its API takes.
type Request struct {
	// Prompt is the prompt text.
	Prompt string
	// Prompts, when non-nil, makes the request a batch: these prompts are
	// sent together as a list (vLLM's --random-batch-size for embedding
	// backends) and Prompt is empty. PromptLen is then their total.
	Prompts []string
	// PromptTokens, when non-nil, is a pre-tokenized prompt, sent as a list
	// of token ids to a completions API (vLLM's timed_trace); Prompt is then
	// empty.
	PromptTokens []int
	// Messages, when non-nil, are the request's chat messages (vLLM's
	// chat_messages), sent as "messages" by chat backends; Prompt may still
	// hold the text a completions backend would send. In a conversation they
	// are this turn's new messages only: the payload is the conversation's
	// History followed by Messages.
	Messages []Message
	// PromptLen is the prompt length in tokens as the dataset measured it
	// (vLLM's prompt_len).
	PromptLen int
	// OutputLen is vLLM's expected_output_len: the number of output tokens
	// the dataset expects the request to produce, sent as max_tokens (0
	// sends none, as for embedding batches).
	OutputLen int
	// ID is the request id (x-request-id), "" for none.
	ID string
	// Conversation, when not nil, makes the request turn Turn of a
	// multi-turn conversation: it is sent only after the conversation's
	// previous turn answered, with that history in front of Messages.
	Conversation *Conversation
	// Turn is the request's 0-based turn index in Conversation (0 when
	// Conversation is nil).
	Turn int
	// Model, when not "", is the model name this request sends instead of
	// the run's (vLLM's lora_request: a LoRA adapter's name).
	Model string
	// ExtraBody, when not nil, holds members added to this request's
	// payload after the run's extra body, a shallow merge in which the
	// request wins (vLLM's request_overrides, e.g. BFCL's "tools" and
	// "tool_choice"). It is read only, and may be shared between requests.
	ExtraBody map[string]any
	// Audio, when not nil, is the request's audio clip (vLLM's
	// multi_modal_data {"audio": (y, sr)}), which the audio backend
	// uploads as a WAV file.
	Audio *AudioClip
	// Time is when the request is meant to be sent, from the start of the
	// run, when Timed is set (vLLM's timestamp: a trace's time times its
	// multiplier, not re-based to the first entry). A self-timed run sends
	// each request at its Time instead of drawing arrivals.
	Time time.Duration
	// Timed reports that Time is set.
	Timed bool
	// Headers, when not nil, are sent with this request besides the
	// run's (a conversation's session header).
	Headers map[string]string
	// Skip, when set, says the request is not sent, and why (a turn of a
	// conversation that ended): its record is marked not sent with this
	// text.
	Skip string
}

// AudioClip is an audio clip to upload.
type AudioClip struct {
	// WAV is the clip as a 16-bit PCM WAV file, as vLLM's request
	// function writes it.
	WAV []byte
	// Seconds is its duration (vLLM's input_audio_duration).
	Seconds float64
}

// Role is a chat message's author, as the OpenAI chat API spells it.
type Role string

// The chat roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message.
type Message struct {
	// Role is the message's author.
	Role Role
	// Content is the message's text, sent as a plain string, when Parts is
	// nil.
	Content string
	// Parts, when non-nil, is the content as a list of parts (text and
	// media, in order), sent as an array; Content is then ignored.
	Parts []Part
	// Transformed marks a message vLLM's
	// apply_multimodal_chat_transformation made (--enable-multimodal-chat):
	// vLLM writes its text parts' keys text first, then type, where the
	// chat request function writes type first.
	Transformed bool
}

// PartType is the kind of a content part.
type PartType string

// The content part types. Media parts carry a URL: an http(s) URL the
// server fetches, or a data URL ("data:image/jpeg;base64,...") that carries
// the bytes inline.
const (
	// PartText is text ({"type": "text", "text": ...}).
	PartText PartType = "text"
	// PartImage is an image ({"type": "image_url", "image_url": {"url": ...}}).
	PartImage PartType = "image"
	// PartVideo is a video ({"type": "video_url", "video_url": {"url": ...}}).
	PartVideo PartType = "video"
	// PartAudio is an audio clip ({"type": "audio_url", ...} or, from a
	// data URL, {"type": "input_audio", ...}, as the backend's API wants).
	PartAudio PartType = "audio"
)

// Part is one part of a chat message's content.
type Part struct {
	// Type says which field holds the part.
	Type PartType
	// Text is the text of a PartText part.
	Text string
	// URL is the http(s) or data URL of a media part.
	URL string
}

// Conversation is the shared state of a multi-turn conversation: its
// requests (one per turn) point to it, and the history grows as turns
// answer, so each turn is sent with the answers the server actually gave.
// It is safe for concurrent use.
type Conversation struct {
	// ID identifies the conversation (the dataset's conversation id, or one
	// the dataset made up); its turns share it.
	ID string

	mu      sync.Mutex
	history []Message
	turns   int
}

// History returns the messages of the turns that have answered, in order:
// each turn's Messages followed by its answer. The slice is a copy.
func (c *Conversation) History() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.history)
}

// Turns returns how many turns have answered.
func (c *Conversation) Turns() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turns
}

// Answered records that turn answered: its messages and then the answer, as
// an assistant message, join the history. Turns answer in order, since each
// is sent only after the previous one answered.
func (c *Conversation) Answered(turn []Message, answer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.history = append(c.history, turn...)
	c.history = append(c.history, Message{Role: RoleAssistant, Content: answer})
	c.turns++
}

// Validate reports the first inconsistency in r, a Source's programming
// error: a prompt in more than one form, a negative length, a turn index
// without a conversation, a message without a role, a content part without
// its text or URL (or with both), or a time that is set without Timed.
func (r *Request) Validate() error {
	switch {
	case r.Prompts != nil && r.PromptTokens != nil:
		return errors.New("both a prompt batch (Prompts) and token ids (PromptTokens)")
	case r.Prompt != "" && (r.Prompts != nil || r.PromptTokens != nil):
		return errors.New("a text prompt besides a prompt batch or token ids")
	case r.PromptLen < 0 || r.OutputLen < 0:
		return fmt.Errorf("negative length (prompt %d, output %d)", r.PromptLen, r.OutputLen)
	case r.Turn < 0 || r.Turn > 0 && r.Conversation == nil:
		return fmt.Errorf("turn %d without a conversation", r.Turn)
	case r.Timed && r.Time < 0:
		return fmt.Errorf("negative time %v", r.Time)
	case !r.Timed && r.Time != 0:
		return fmt.Errorf("time %v without Timed", r.Time)
	}
	for i, m := range r.Messages {
		if m.Role == "" {
			return fmt.Errorf("message %d has no role", i)
		}
		for j, p := range m.Parts {
			var err error
			switch p.Type {
			case PartText:
				if p.URL != "" {
					err = errors.New("a text part with a URL")
				}
			case PartImage, PartVideo, PartAudio:
				if p.URL == "" || p.Text != "" {
					err = fmt.Errorf("a media part (%s) needs a URL and no text", p.Type)
				}
			default:
				err = fmt.Errorf("unknown part type %q", p.Type)
			}
			if err != nil {
				return fmt.Errorf("message %d, part %d: %w", i, j, err)
			}
		}
	}
	return nil
}

// FileOptions are the options shared by file-backed datasets.
type FileOptions struct {
	// Path is the dataset file (or directory, or HF dataset id).
	Path string `json:"path"`
	// DisableShuffle keeps file order.
	DisableShuffle bool `json:"disable_shuffle"`
	// NoOversample does not pad the sample list up to num_prompts.
	NoOversample bool `json:"no_oversample"`
}
