package dataset

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// custom_image sends each line's images after its prompt (or its
// interleaved content as written), as file:// URLs, or inlined as data
// URLs with ensure_client_side_data (local files and http URLs alike).
func TestCustomImage(t *testing.T) {
	dir := t.TempDir()
	var pngb bytes.Buffer
	png.Encode(&pngb, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	img := filepath.Join(dir, "a.png")
	os.WriteFile(img, pngb.Bytes(), 0o644)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(pngb.Bytes()) }))
	defer srv.Close()
	path := filepath.Join(dir, "img.jsonl")
	lines := `{"prompt": "What is this?", "image_files": ["` + img + `", "` + srv.URL + `/b.png"]}` + "\n" +
		`{"content": [{"type": "text", "text": "Compare "}, {"type": "image", "image": "` + img + `"}, {"type": "text", "text": "and"}, {"type": "image_url", "image_url": {"url": "https://example.com/c.jpg", "detail": "low"}}]}` + "\n"
	os.WriteFile(path, []byte(lines), 0o644)

	spec := CustomSpec{FileOptions: FileOptions{Path: path, DisableShuffle: true}, OutputLen: 9}
	reqs, err := CustomImage(context.Background(), spec, 3, 0, toyTokenizer{}, "i-", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.OutputLen != 9 || r.ID != "i-0" || len(r.Messages) != 1 || r.Messages[0].Transformed {
		t.Fatalf("request 0: %+v", r)
	}
	want := []Part{{Type: PartText, Text: "What is this?"}, {Type: PartImage, URL: "file://" + img}, {Type: PartImage, URL: srv.URL + "/b.png"}}
	if got := r.Messages[0].Parts; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("parts %+v\nwant %+v", got, want)
	}
	r = reqs[1]
	if r.Prompt != "Compare and" || len(r.Messages[0].Parts) != 4 || r.Messages[0].Parts[3].URL != "https://example.com/c.jpg" {
		t.Errorf("request 1: %+v", r)
	}
	spec.EnsureClientSideData, spec.EnableMultimodalChat = true, true
	reqs, err = CustomImage(context.Background(), spec, 1, 0, toyTokenizer{}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range reqs[0].Messages[0].Parts[1:] {
		if !strings.HasPrefix(p.URL, "data:image/png;base64,") {
			t.Errorf("inlined %.40s", p.URL)
		}
	}
	if !reqs[0].Messages[0].Transformed {
		t.Error("enable_multimodal_chat: the prompt line's message is not vLLM's transformed one")
	}
	for _, tc := range []struct{ line, want string }{
		{`{"prompt": "x"}`, "'image_files' must be a non-empty list"},
		{`{"content": [{"type": "audio", "audio": "a.wav"}]}`, "content parts must have type"},
		{`{"content": [{"type": "image"}]}`, "an image content part must have"},
	} {
		bad := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(bad, []byte(tc.line+"\n"), 0o644)
		_, err := CustomImage(context.Background(), CustomSpec{FileOptions: FileOptions{Path: bad}, OutputLen: 4}, 1, 0, nil, "", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
	spec.EnsureClientSideData, spec.EnableMultimodalChat = true, false
	os.WriteFile(path, []byte(`{"prompt": "x", "image_files": ["`+filepath.Join(dir, "none.png")+`"]}`+"\n"), 0o644)
	if _, err := CustomImage(context.Background(), spec, 1, 0, nil, "", nil); err == nil || !strings.Contains(err.Error(), "invalid image URL") {
		t.Errorf("a missing image: %v", err)
	}
}
