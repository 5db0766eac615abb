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
	r := Request{Prompt: prompt, PromptLen: len(s.tok.Encode(prompt, true)), OutputLen: s.outputLen,
		Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: prompt}, {Type: PartImage, URL: url}},
			Transformed: s.spec.EnableMultimodalChat}}}
	return r, true, nil
}

// firstOf returns l[0].
func firstOf(l []any) (any, bool) {
	if len(l) == 0 {
		return nil, false
	}
	return l[0], true
}
