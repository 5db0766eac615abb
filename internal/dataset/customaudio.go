package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
	"github.com/vbench/vbench/internal/wav"
)

func init() {
	Register(Kind{Name: "custom_audio", Spec: newSpec[CustomSpec](), New: newCustomAudioSource, AllPrompts: true, PythonRandom: true,
		Backends: func() []string { return []string{"openai-audio", "openai-chat"} }})
}

// customAudioSource is the custom_audio kind's Source: vLLM's
// CustomAudioDataset, a JSONL file of lines {"prompt": ..., "audio":
// "path.wav", "output_tokens": ...}.
type customAudioSource struct{ spec CustomSpec }

func newCustomAudioSource(spec scenario.Dataset) (Source, error) {
	cp, err := specOf[CustomSpec](spec)
	if err != nil {
		return nil, err
	}
	if cp.OutputLen < -1 || cp.OutputLen == 0 {
		return nil, fmt.Errorf("dataset.custom_audio.output_len (--custom-output-len) is %d: it must be positive, or -1 for each line's output_tokens", cp.OutputLen)
	}
	if cp.EnsureClientSideData {
		return nil, errors.New("dataset.custom_audio.ensure_client_side_data (--custom-ensure-client-side-data) is custom_image's, not custom_audio's")
	}
	return customAudioSource{spec: *cp}, nil
}

// Requests reads, shuffles and loads every line's audio before yielding
// the first request.
func (s customAudioSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		return CustomAudio(ctx, s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix, env.Stderr)
	})
}

// audioLine is one line of a custom_audio file.
type audioLine struct {
	prompt, audio string
	outputTokens  int // -1: none
	line          int
}

// CustomAudio generates vLLM's custom_audio dataset (CustomAudioDataset):
// the lines of spec.Path shuffled as custom's are (CPython's random seeded
// with seed, unless DisableShuffle), the first numPrompts taken (every
// line when numPrompts <= 0), each line's WAV file (its "audio" path,
// relative to the working directory, as vLLM opens it) read and averaged
// to mono. With --enable-multimodal-chat the clip goes as an input_audio
// part after the prompt's text (a chat request to an audio model, as for
// Qwen2-Audio); otherwise as the request's audio, which the openai-audio
// backend uploads, and the prompt gets the tokenizer's chat template
// (without kwargs) unless SkipChatTemplate. The prompt length is the
// prompt's token count with special tokens; the output length
// spec.OutputLen, or the line's output_tokens when that is -1. Then
// vLLM's oversampling. Without a tokenizer the lengths are 1 and 256 (or
// spec.OutputLen), as in vLLM.
func CustomAudio(ctx context.Context, spec CustomSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	if logw == nil {
		logw = io.Discard
	}
	lines, err := readAudioLines(spec.Path)
	if err != nil {
		return nil, err
	}
	if !spec.DisableShuffle {
		numpy.NewPyRandom(seed).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	if numPrompts <= 0 {
		numPrompts = len(lines)
	}
	var reqs []Request
	for i, l := range lines {
		if len(reqs) >= numPrompts {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clip, err := loadClip(l.audio)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", spec.Path, l.line, err)
		}
		r := Request{Prompt: l.prompt, PromptLen: 1, OutputLen: 256, ID: idPrefix + strconv.Itoa(i)}
		if spec.OutputLen != -1 {
			r.OutputLen = spec.OutputLen
		}
		if spec.EnableMultimodalChat {
			r.Messages = []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: l.prompt},
				{Type: PartAudio, URL: "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(clip.WAV)}}}}
		} else {
			r.Audio = clip
		}
		if tok != nil {
			if !spec.EnableMultimodalChat && !spec.SkipChatTemplate {
				// vLLM templates only when the tokenizer has a chat template.
				p, err := tokenizer.ApplyChatTemplate(tok, []tokenizer.Message{{Role: "user", Content: l.prompt}}, true, nil)
				var none *tokenizer.NoChatTemplateError
				switch {
				case err == nil:
					r.Prompt = p
				case !errors.As(err, &none):
					return nil, fmt.Errorf("%s:%d: %w", spec.Path, l.line, err)
				}
			}
			r.PromptLen = len(tok.Encode(r.Prompt, true))
			if spec.OutputLen == -1 {
				if l.outputTokens < 0 {
					return nil, fmt.Errorf("%s:%d: no \"output_tokens\": --custom-output-len -1 (output_len) takes each line's output_tokens", spec.Path, l.line)
				}
				r.OutputLen = l.outputTokens
			}
		}
		reqs = append(reqs, r)
	}
	return maybeOversample(reqs, numPrompts, seed, idPrefix, spec.NoOversample, logw)
}

// loadClip reads a WAV file and re-encodes it as mono 16-bit PCM.
func loadClip(path string) (*AudioClip, error) {
	if !strings.HasSuffix(strings.ToLower(path), ".wav") {
		return nil, fmt.Errorf("audio %s: vbench reads WAV files only (convert it, e.g. ffmpeg -i in.mp3 out.wav)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audio: %w", err)
	}
	a, err := wav.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("audio %s: %w", path, err)
	}
	var b bytes.Buffer
	if err := wav.Encode16(&b, a); err != nil {
		return nil, err
	}
	return &AudioClip{WAV: b.Bytes(), Seconds: a.Seconds()}, nil
}

// readAudioLines reads a custom_audio JSONL file.
func readAudioLines(path string) ([]audioLine, error) {
	var lines []audioLine
	err := eachJSONLObject(path, "custom_audio", func(n int, obj map[string]json.RawMessage) error {
		l := audioLine{outputTokens: -1, line: n}
		if raw, ok := obj["prompt"]; ok && string(raw) != "null" {
			if raw[0] != '"' || json.Unmarshal(raw, &l.prompt) != nil {
				return fmt.Errorf(`"prompt" is a JSON %s, expected a string`, jsonKind(raw))
			}
		}
		raw, ok := obj["audio"]
		if !ok || raw[0] != '"' || json.Unmarshal(raw, &l.audio) != nil {
			return errors.New(`no "audio" string: expected {"prompt": ..., "audio": "path/to/clip.wav"}`)
		}
		if raw, ok := obj["output_tokens"]; ok && string(raw) != "null" {
			n, ok := outputTokens(raw)
			if !ok {
				return fmt.Errorf(`"output_tokens" is %s, expected a non-negative integer`, clip(raw))
			}
			l.outputTokens = n
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: the file is empty: expected JSON lines with an \"audio\" path", path)
	}
	return lines, nil
}

// eachJSONLObject calls f with the number and the members of each
// non-blank line of the JSON Lines file path (of dataset kind, for the
// error on another file type), each of which must be a JSON object;
// errors are eachLine's, naming the file and line.
func eachJSONLObject(path, kind string, f func(n int, obj map[string]json.RawMessage) error) error {
	if !strings.HasSuffix(path, ".jsonl") {
		return fmt.Errorf("%s: only JSONL files (named *.jsonl) are supported for the %s dataset", path, kind)
	}
	file, err := openDataFile(kind, path, "JSON lines, one object per request")
	if err != nil {
		return err
	}
	defer file.Close()
	return eachLine(path, file, func(n int, b []byte) error {
		var obj map[string]json.RawMessage
		if b[0] != '{' || json.Unmarshal(b, &obj) != nil {
			return invalidJSON(b)
		}
		return f(n, obj)
	})
}
