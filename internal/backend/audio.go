package backend

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"mime/multipart"
	"net/textproto"

	"github.com/vbench/vbench/internal/dataset"
	"github.com/vbench/vbench/internal/py"
)

// The openai-audio backend speaks the OpenAI Audio API
// (/v1/audio/transcriptions and /v1/audio/translations): a multipart
// upload of the request's WAV clip whose answer streams as chat chunks.
func init() {
	implement("openai-audio", audio{})
}

// audio is the Audio API wire format.
type audio struct{}

// Payload builds vLLM's multipart form: the clip as "file" (audio.wav,
// audio/wav), then each payload field as Python's str() of its value:
// model, max_completion_tokens, stream, language "en",
// stream_include_usage, stream_continuous_usage_stats, then the common
// update (ignore_eos, the extra body).
func (audio) Payload(r *dataset.Request, o *PayloadOptions) ([]byte, error) {
	if r.Audio == nil {
		return nil, errors.New("the request has no audio clip: openai-audio needs an audio dataset (custom_audio or an hf ASR set)")
	}
	var fields py.Object
	fields.Set("model", o.ModelFor(r))
	fields.Set("max_completion_tokens", r.OutputLen)
	fields.Set("stream", true)
	fields.Set("language", "en")
	fields.Set("stream_include_usage", true)
	fields.Set("stream_continuous_usage_stats", true)
	o.setCommon(&fields, r)
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary(o.Boundary); err != nil {
		return nil, fmt.Errorf("multipart boundary: %w", err)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", "audio/wav")
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, err
	}
	part.Write(r.Audio.WAV)
	for k, v := range fields.All() {
		if err := w.WriteField(k, py.Str(v)); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Decode decodes one streamed chunk as chat's: the audio function reads
// only completion_tokens from the usage (the prompt length stays the
// dataset's).
func (audio) Decode(data, text []byte) (Message, []byte, error) {
	var m Message
	text, err := decodeChunk(data, true, text, &m)
	m.Chunk = true
	m.HasPromptTokens, m.PromptTokens = false, 0
	return m, text, err
}

// AudioSeconds is the duration of the request's clip (see
// audioSeconder).
func (audio) AudioSeconds(r *dataset.Request) float64 {
	if r.Audio == nil {
		return 0
	}
	return r.Audio.Seconds
}

// audioSeconder is implemented by codecs whose requests carry audio:
// the clip's duration is the record's input audio duration (vLLM's
// rtfx).
type audioSeconder interface {
	AudioSeconds(r *dataset.Request) float64
}

// newBoundary returns a random multipart boundary.
func newBoundary() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "vbench-" + hex.EncodeToString(b[:])
}
