package dataset

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // decoded by hfImageURL, as PIL opens them
	"image/jpeg"
	_ "image/png"
	"slices"
	"strings"
)

// hfImageURL is the URL vLLM's process_image makes of an image value of a
// row: a string is a URL or a file path (imageURL); an image (a dataset
// Image feature: an object whose "bytes" hold the encoded file) is
// decoded, converted to RGB and re-encoded as a JPEG data URL at PIL's
// default quality 75. PNG, JPEG and GIF images are read.
func hfImageURL(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return imageURL(x), nil
	case map[string]any:
		raw, ok := x["bytes"].(string)
		if !ok || raw == "" {
			if p, ok := x["path"].(string); ok && p != "" {
				return imageURL(p), nil
			}
			return "", errors.New("an image object without \"bytes\" or \"path\"")
		}
		img, _, err := image.Decode(bytes.NewReader([]byte(raw)))
		if err != nil {
			return "", fmt.Errorf("the image does not decode (PNG, JPEG and GIF are read): %w", err)
		}
		rgba := image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
		for i := 3; i < len(rgba.Pix); i += 4 {
			rgba.Pix[i] = 0xff // RGB: alpha dropped, as PIL's convert("RGB")
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, rgba, &jpeg.Options{Quality: 75}); err != nil {
			return "", err
		}
		return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b.Bytes()), nil
	}
	return "", fmt.Errorf("%s, expected an image or an image URL or path string", hfKind(v))
}

// visionArenaRow is VisionArenaDataset's row: the prompt is the first
// message's content of the first conversation (VisionArena-Chat's
// "conversation", the bench's "turns"), sent as it is with the row's
// first image; its length counts special tokens.
func visionArenaRow(row hfRow, s *hfSampling) (Request, bool, error) {
	col := "conversation"
	if hfID(s.spec) == "lmarena-ai/vision-arena-bench-v0.1" {
		col = "turns"
	}
	conv, err := hfList(row, col, "conversations")
	if err != nil {
		return Request{}, false, err
	}
	first, ok := firstOf(conv)
	if !ok {
		return Request{}, false, fmt.Errorf("%q has no first conversation", col)
	}
	msgs, ok := first.([]any)
	if !ok || len(msgs) == 0 {
		return Request{}, false, fmt.Errorf("the first of %q is %s, expected a list of messages", col, hfKind(first))
	}
	msg, ok := msgs[0].(map[string]any)
	prompt, ok2 := msg["content"].(string)
	if !ok || !ok2 {
		return Request{}, false, fmt.Errorf(`the first message of %q has no "content" string`, col)
	}
	imgs, err := hfList(row, "images", "images")
	if err != nil {
		return Request{}, false, err
	}
	img0, ok := firstOf(imgs)
	if !ok {
		return Request{}, false, errors.New(`"images" is empty`)
	}
	url, err := hfImageURL(img0)
	if err != nil {
		return Request{}, false, fmt.Errorf(`"images"[0]: %w`, err)
	}
	return hfMediaRequest(s, prompt, Part{Type: PartImage, URL: url}), true, nil
}

// firstOf returns l[0].
func firstOf(l []any) (any, bool) {
	if len(l) == 0 {
		return nil, false
	}
	return l[0], true
}

// mmStarRow is MMStarDataset's row: the question before its "Options:"
// (stripped), sent with the row's image; its length counts special
// tokens.
func mmStarRow(row hfRow, s *hfSampling) (Request, bool, error) {
	q := ""
	if v, ok := row["question"]; ok {
		var isStr bool
		if q, isStr = v.(string); !isStr {
			return Request{}, false, fmt.Errorf(`"question" is %s, expected a string`, hfKind(v))
		}
	}
	q, _, _ = strings.Cut(q, "Options:")
	q = pyStrip(q)
	img, ok := row["image"]
	if !ok {
		return Request{}, false, errors.New(`the row has no "image"`)
	}
	url, err := hfImageURL(img)
	if err != nil {
		return Request{}, false, fmt.Errorf(`"image": %w`, err)
	}
	return hfMediaRequest(s, q, Part{Type: PartImage, URL: url}), true, nil
}

// mmvuRemoteRoot is where MMVU's rows point their videos: the dataset's
// files on the Hub, which vLLM replaces by its local snapshot.
const mmvuRemoteRoot = "https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main"

// mmvuRow is MMVUDataset's row: the question, a space and the choices as
// "key.value" joined by spaces (in key order: vLLM keeps the row's dict
// order, which MMVU's A, B, C, ... is), sent with the row's video. vLLM
// downloads the whole repository and sends the video as a file:// URL of
// its local copy; vbench downloads only the sampled rows' videos, into the
// same Hugging Face cache paths, so the URLs are the same. The server must
// be allowed to read them (vLLM's --allowed-local-media-path).
func mmvuRow(row hfRow, s *hfSampling) (Request, bool, error) {
	q, err := hfString(row, "question")
	if err != nil {
		return Request{}, false, err
	}
	choices, ok := row["choices"].(map[string]any)
	if !ok {
		return Request{}, false, fmt.Errorf(`"choices" is %s, expected an object`, hfKind(row["choices"]))
	}
	keys := make([]string, 0, len(choices))
	for k := range choices {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	opts := make([]string, len(keys))
	for i, k := range keys {
		v, ok := choices[k].(string)
		if !ok {
			return Request{}, false, fmt.Errorf(`"choices"[%q] is %s, expected a string`, k, hfKind(choices[k]))
		}
		opts[i] = k + "." + v
	}
	video, err := hfString(row, "video")
	if err != nil {
		return Request{}, false, err
	}
	if name, ok := strings.CutPrefix(video, mmvuRemoteRoot+"/"); ok {
		if s.repo == nil {
			return Request{}, false, fmt.Errorf("video %s: no repository to read it from", video)
		}
		if video, err = s.repo.Local(s.ctx, name); err != nil {
			return Request{}, false, fmt.Errorf("video %s: %w", name, err)
		}
	}
	return hfMediaRequest(s, q+" "+strings.Join(opts, " "), Part{Type: PartVideo, URL: mediaFileURL(video)}), true, nil
}

// mediaFileURL is vLLM's process_video (and process_image) of a string: a
// URL as it is, else a file:// URL of the path.
func mediaFileURL(s string) string {
	for _, p := range []string{"http://", "https://", "file://"} {
		if strings.HasPrefix(s, p) {
			return s
		}
	}
	return "file://" + s
}

// hfMediaRequest is the request of a multimodal class's row: the prompt's
// text part with one media part (vLLM's transformed chat message with
// --enable-multimodal-chat), its length the prompt's tokens with special
// tokens, the class's output length.
func hfMediaRequest(s *hfSampling, prompt string, media Part) Request {
	return Request{Prompt: prompt, PromptLen: len(s.tok.Encode(prompt, true)), OutputLen: s.outputLen,
		Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: prompt}, media},
			Transformed: s.spec.EnableMultimodalChat}}}
}
