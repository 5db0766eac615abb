package dataset

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vbench/vbench/internal/numpy"
	"github.com/vbench/vbench/internal/scenario"
	"github.com/vbench/vbench/internal/tokenizer"
)

func init() {
	Register(Kind{Name: "custom_image", Spec: newSpec[CustomSpec](), New: newCustomImageSource, AllPrompts: true, PythonRandom: true,
		Backends: mediaBackends})
}

// mediaBackends lists the backends that send a request's images and
// videos: openai-chat, and the embeddings kinds vLLM lets multimodal
// datasets use (those whose name has "embeddings-").
func mediaBackends() []string {
	return []string{"openai-chat", "openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec",
		"infinity-embeddings-clip"}
}

// customImageSource is the custom_image kind's Source: vLLM's
// CustomImageDataset, a JSONL file whose lines are either {"prompt": ...,
// "image_files": [...]} or {"content": [interleaved text and image
// parts]}.
type customImageSource struct{ spec CustomSpec }

func newCustomImageSource(spec scenario.Dataset) (Source, error) {
	cp, err := specOf[CustomSpec](spec)
	if err != nil {
		return nil, err
	}
	if cp.OutputLen < 1 {
		return nil, fmt.Errorf("dataset.custom_image.output_len (--custom-output-len) is %d: custom_image lines carry no output_tokens, so it must be positive", cp.OutputLen)
	}
	return customImageSource{spec: *cp}, nil
}

// Requests reads every line (fetching images when asked) before yielding
// the first request.
func (s customImageSource) Requests(ctx context.Context, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		return CustomImage(ctx, s.spec, env.NumPrompts, env.Seed, env.Tokenizer, env.IDPrefix, env.Stderr)
	})
}

// CustomImage generates vLLM's custom_image dataset (CustomImageDataset):
// the lines of spec.Path shuffled as custom's are (unless
// DisableShuffle), the first numPrompts taken (every line when
// numPrompts <= 0). A line with "content" sends its parts in order (text,
// and images as image_url parts; an image_url object's other members,
// such as "detail", are kept), its prompt length the token count of its
// text parts; a line with "prompt" and "image_files" sends the prompt as
// a text part followed by the images (vLLM's multimodal chat
// transformation with --enable-multimodal-chat). An image given as a path
// is sent as a file:// URL for the server to read, unless
// EnsureClientSideData, which reads local and http(s) images and inlines
// them as data URLs. The output length is spec.OutputLen; no chat
// template is applied. Then vLLM's oversampling.
func CustomImage(ctx context.Context, spec CustomSpec, numPrompts int, seed int64, tok tokenizer.Tokenizer, idPrefix string, logw io.Writer) ([]Request, error) {
	if logw == nil {
		logw = io.Discard
	}
	lines, err := readImageLines(spec.Path)
	if err != nil {
		return nil, err
	}
	if !spec.DisableShuffle {
		numpy.NewPyRandom(seed).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	if numPrompts <= 0 {
		numPrompts = len(lines)
		fmt.Fprintf(logw, "num_requests is set to 0 or negative, so using all available samples: %d\n", numPrompts)
	}
	count := func(text string) int {
		if tok == nil {
			return 1
		}
		return len(tok.Encode(text, true))
	}
	var reqs []Request
	for i, l := range lines {
		if len(reqs) >= numPrompts {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		parts := make([]Part, 0, len(l.parts))
		var text strings.Builder
		for _, p := range l.parts {
			if p.Type == PartImage {
				if p.URL, err = imagePartURL(ctx, p.URL, spec.EnsureClientSideData); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", spec.Path, l.line, err)
				}
			} else {
				text.WriteString(p.Text)
			}
			parts = append(parts, p)
		}
		r := Request{Prompt: text.String(), PromptLen: count(text.String()), OutputLen: spec.OutputLen, ID: idPrefix + strconv.Itoa(i),
			Messages: []Message{{Role: RoleUser, Parts: parts, Transformed: !l.content && spec.EnableMultimodalChat}}}
		reqs = append(reqs, r)
	}
	return maybeOversample(reqs, numPrompts, seed, idPrefix, spec.NoOversample, logw)
}

// imageLine is one line of a custom_image file, as content parts.
type imageLine struct {
	parts   []Part
	content bool // the line had "content" (sent as written)
	line    int
}

// readImageLines reads a custom_image JSONL file.
func readImageLines(path string) ([]imageLine, error) {
	var lines []imageLine
	err := eachJSONLObject(path, "custom_image", func(n int, obj map[string]json.RawMessage) error {
		l := imageLine{line: n}
		if raw, ok := obj["content"]; ok {
			var err error
			l.content = true
			if l.parts, err = contentParts(raw); err != nil {
				return err
			}
			lines = append(lines, l)
			return nil
		}
		var prompt string
		raw, ok := obj["prompt"]
		if !ok || raw[0] != '"' || json.Unmarshal(raw, &prompt) != nil {
			return errors.New(`expected {"prompt": ..., "image_files": [...]} or {"content": [...]}: 'prompt' must be a string`)
		}
		var files []string
		if err := json.Unmarshal(obj["image_files"], &files); err != nil || len(files) == 0 {
			return errors.New("'image_files' must be a non-empty list of image paths or URLs")
		}
		l.parts = append(l.parts, Part{Type: PartText, Text: prompt})
		for _, f := range files {
			l.parts = append(l.parts, Part{Type: PartImage, URL: imageURL(f)})
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: the file is empty", path)
	}
	return lines, nil
}

// contentParts reads a line's interleaved content as vLLM's
// _process_content_part does: text parts, "image" parts (a path or URL)
// and "image_url" parts (a string, or an object whose "url" is one).
func contentParts(raw json.RawMessage) ([]Part, error) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return nil, errors.New("'content' must be a non-empty list of content parts")
	}
	var out []Part
	for _, it := range items {
		var typ string
		_ = json.Unmarshal(it["type"], &typ)
		str := func(key string) (string, bool) {
			var s string
			return s, json.Unmarshal(it[key], &s) == nil && len(it[key]) > 0 && it[key][0] == '"'
		}
		switch typ {
		case "text":
			t, ok := str("text")
			if !ok {
				return nil, errors.New("a text content part must have a string 'text'")
			}
			out = append(out, Part{Type: PartText, Text: t})
		case "image":
			img, ok := str("image")
			if !ok {
				return nil, errors.New("an image content part must have an 'image' path or URL string")
			}
			out = append(out, Part{Type: PartImage, URL: imageURL(img)})
		case "image_url":
			if u, ok := str("image_url"); ok {
				out = append(out, Part{Type: PartImage, URL: imageURL(u)})
				continue
			}
			var obj struct {
				URL *string `json:"url"`
			}
			if json.Unmarshal(it["image_url"], &obj) != nil || obj.URL == nil {
				return nil, errors.New("an image_url content part must have an 'image_url' string, or an object with a string 'url'")
			}
			out = append(out, Part{Type: PartImage, URL: imageURL(*obj.URL)})
		default:
			return nil, fmt.Errorf("content parts must have type 'text', 'image' or 'image_url', found %q", typ)
		}
	}
	return out, nil
}

// imagePartURL is the URL an image part sends: as it is, or with inline
// set, a local file's or an http(s) URL's bytes as a data URL (an
// existing data URL is kept).
func imagePartURL(ctx context.Context, url string, inline bool) (string, error) {
	if !inline || strings.HasPrefix(url, "data:image/") {
		return url, nil
	}
	var data []byte
	var err error
	switch {
	case strings.HasPrefix(url, "file://"):
		data, err = os.ReadFile(strings.TrimPrefix(url, "file://"))
	case strings.HasPrefix(url, "http://"), strings.HasPrefix(url, "https://"):
		data, err = fetchImage(ctx, url)
	default:
		return "", fmt.Errorf("invalid image URL %s: want a file path, file://, http(s):// or data:image/ URL", url)
	}
	if err != nil {
		return "", fmt.Errorf("invalid image URL %s: %w", url, err)
	}
	mime := http.DetectContentType(data)
	if !strings.HasPrefix(mime, "image/") {
		return "", fmt.Errorf("invalid image URL %s: the data is %s, not an image", url, mime)
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

// fetchImage downloads an image (at most 64 MB, in 60 s).
func fetchImage(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
}
