package sim

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"mime/multipart"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func jpegURL(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h)), nil); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func wavURL(seconds float64) string {
	const rate = 16000
	n := int(seconds * rate)
	b := make([]byte, 44+2*n)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], 2*rate)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*n))
	return "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(b)
}

// Media count as tokens by their size: an image ⌈h/28⌉·⌈w/28⌉, a
// video/jpeg frame list its frames' halved, audio 25 a second; each image,
// frame or clip is a unit of prefill.
func TestMediaTokens(t *testing.T) {
	img := jpegURL(t, 84, 56) // 3 × 2 tokens
	for _, tc := range []struct {
		ref           mediaRef
		tokens, units int
	}{
		{mediaRef{mediaImage, "data:image/jpeg;base64," + img}, 6, 1},
		{mediaRef{mediaImage, "https://example.com/cat.png"}, defaultMediaTokens, 1},
		{mediaRef{mediaVideo, "data:video/jpeg;base64," + img + "," + img + "," + img}, 9, 3},
		{mediaRef{mediaVideo, "data:video/mp4;base64,AAAA"}, 2 * defaultMediaTokens, 4},
		{mediaRef{mediaAudio, wavURL(2)}, 50, 1},
		{mediaRef{mediaAudio, "https://example.com/a.mp3"}, defaultAudioTokens, 1},
	} {
		if tokens, units := mediaTokens(tc.ref); tokens != tc.tokens || units != tc.units {
			t.Errorf("%v %.40s: %d tokens %d units, want %d %d", tc.ref.kind, tc.ref.url, tokens, units, tc.tokens, tc.units)
		}
	}
}

// A chat request's images add their tokens to the usage and their
// prefill to the first token's due time.
func TestMediaLatencyAndUsage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig()
		cfg.TTFT, cfg.ITL, cfg.PrefillPerMediaItem = 10*time.Millisecond, time.Millisecond, 5*time.Millisecond
		s := bubbleServer(t, cfg)
		img := `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + jpegURL(t, 56, 56) + `"}}`
		for _, n := range []int{0, 2} {
			parts := `{"type":"text","text":"hello world"}` + strings.Repeat(","+img, n)
			body := fmt.Sprintf(`{"messages":[{"role":"user","content":[%s]}],"max_tokens":1,"ignore_eos":true}`, parts)
			start := time.Now()
			rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", "/v1/chat/completions", body, nil)
			if took, want := time.Since(start), 10*time.Millisecond+time.Duration(n)*5*time.Millisecond; took != want {
				t.Errorf("%d images: answered after %v, want %v", n, took, want)
			}
			if want := fmt.Sprintf(`"prompt_tokens":%d`, 2+4*n); !strings.Contains(rec.body.String(), want) {
				t.Errorf("%d images: %s, want %s", n, rec.body.String(), want)
			}
		}
	})
}

// The audio API reads a multipart WAV upload: its duration is the prompt
// (25 tokens a second) and the answer streams as chat chunks of object
// transcription.chunk, with the usage when asked; unstreamed, {"text"}.
func TestTranscriptions(t *testing.T) {
	s := mustNew(t, testConfig())
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(wavURL(2), "data:audio/wav;base64,"))
	form := func(stream string) (string, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		fw, _ := w.CreateFormFile("file", "audio.wav")
		fw.Write(raw)
		for k, v := range map[string]string{"model": "sim-model", "max_completion_tokens": "3", "stream": stream,
			"stream_include_usage": "True", "ignore_eos": "True", "language": "en"} {
			w.WriteField(k, v)
		}
		w.Close()
		return b.String(), w.FormDataContentType()
	}
	body, ct := form("True")
	rec := serve(t, s.Handler(), newRecorder(), context.Background(), "POST", "/v1/audio/transcriptions", body, map[string]string{"Content-Type": ct})
	got := rec.body.String()
	if rec.status != 200 || strings.Count(got, `"object":"transcription.chunk"`) != 4 || !strings.Contains(got, `"usage":{"prompt_tokens":50,"total_tokens":53,"completion_tokens":3}`) ||
		!strings.HasSuffix(got, "data: [DONE]\n\n") || strings.Contains(got, `"role"`) {
		t.Errorf("stream %d:\n%s", rec.status, got)
	}
	body, ct = form("False")
	rec = serve(t, s.Handler(), newRecorder(), context.Background(), "POST", "/v1/audio/translations", body, map[string]string{"Content-Type": ct})
	if rec.status != 200 || !strings.HasPrefix(rec.body.String(), `{"text":" `) {
		t.Errorf("unstreamed %d: %s", rec.status, rec.body.String())
	}
	rec = call(t, s, "POST", "/v1/audio/transcriptions", `{"model":"x"}`)
	if rec.status != 400 || !strings.Contains(rec.body.String(), "multipart/form-data") {
		t.Errorf("a JSON body: %d %s", rec.status, rec.body.String())
	}
}
