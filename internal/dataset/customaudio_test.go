package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vbench/vbench/internal/wav"
)

// writeWAV writes a mono 16-bit WAV of the given length and rate.
func writeWAV(t *testing.T, path string, seconds float64, rate int) {
	t.Helper()
	a := &wav.Audio{Rate: rate, Samples: make([]float64, int(seconds*float64(rate)))}
	var b bytes.Buffer
	if err := wav.Encode16(&b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// custom_audio reads each line's WAV clip (its duration is the request's
// input audio), takes output_tokens with --custom-output-len -1, and with
// --enable-multimodal-chat sends the clip as an input_audio part after the
// prompt's text instead.
func TestCustomAudio(t *testing.T) {
	dir := t.TempDir()
	writeWAV(t, filepath.Join(dir, "a.wav"), 1.5, 16000)
	writeWAV(t, filepath.Join(dir, "b.wav"), 0.25, 8000)
	path := filepath.Join(dir, "audio.jsonl")
	lines := `{"prompt": "Transcribe.", "audio": "` + filepath.Join(dir, "a.wav") + `", "output_tokens": 12}` + "\n" +
		`{"audio": "` + filepath.Join(dir, "b.wav") + `", "output_tokens": 3}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := CustomSpec{FileOptions: FileOptions{Path: path, DisableShuffle: true}, OutputLen: -1, SkipChatTemplate: true}
	reqs, err := CustomAudio(context.Background(), spec, 3, 0, toyTokenizer{}, "a-", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 { // oversampled to 3
		t.Fatalf("%d requests", len(reqs))
	}
	if r := reqs[0]; r.Audio == nil || r.Audio.Seconds != 1.5 || r.OutputLen != 12 || r.Prompt != "Transcribe." || r.ID != "a-0" {
		t.Errorf("request 0: %+v", r)
	}
	if r := reqs[1]; r.Audio == nil || r.Audio.Seconds != 0.25 || r.OutputLen != 3 || r.Prompt != "" {
		t.Errorf("request 1: %+v", r)
	}
	if a, err := wav.Decode(reqs[0].Audio.WAV); err != nil || a.Rate != 16000 || a.Seconds() != 1.5 {
		t.Errorf("the clip: %v %v", a, err)
	}
	spec.EnableMultimodalChat, spec.OutputLen = true, 5
	reqs, err = CustomAudio(context.Background(), spec, 1, 0, toyTokenizer{}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[0]
	if r.Audio != nil || r.OutputLen != 5 || len(r.Messages) != 1 || len(r.Messages[0].Parts) != 2 || r.Messages[0].Parts[0].Text != "Transcribe." {
		t.Fatalf("multimodal chat: %+v", r)
	}
	data, ok := strings.CutPrefix(r.Messages[0].Parts[1].URL, "data:audio/wav;base64,")
	raw, err := base64.StdEncoding.DecodeString(data)
	if !ok || err != nil {
		t.Fatalf("audio part %.40s", r.Messages[0].Parts[1].URL)
	}
	if a, err := wav.Decode(raw); err != nil || a.Seconds() != 1.5 {
		t.Errorf("the inline clip: %v %v", a, err)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"prompt": "x"}`, `no "audio" string`},
		{`{"audio": "` + filepath.Join(dir, "c.mp3") + `"}`, "WAV files only"},
		{`{"audio": "` + filepath.Join(dir, "none.wav") + `"}`, "no such file"},
	} {
		bad := filepath.Join(dir, "bad.jsonl")
		os.WriteFile(bad, []byte(tc.line+"\n"), 0o644)
		_, err := CustomAudio(context.Background(), CustomSpec{FileOptions: FileOptions{Path: bad}, OutputLen: 4}, 1, 0, toyTokenizer{}, "", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
}
