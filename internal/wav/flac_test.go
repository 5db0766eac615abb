package wav

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A FLAC file decodes to the samples of the WAV it was encoded from (FLAC
// is lossless; both made by testdata/gen_flac.sh with the reference
// encoder), and DecodeAudio tells the formats apart.
func TestDecodeFLAC(t *testing.T) {
	w, err := os.ReadFile("testdata/stereo.wav")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.ReadFile("testdata/stereo.flac")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(w)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeAudio(f)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rate != 8000 || want.Rate != 8000 || len(got.Samples) != 2000 {
		t.Fatalf("rate %d/%d, %d samples", got.Rate, want.Rate, len(got.Samples))
	}
	if !slices.Equal(got.Samples, want.Samples) {
		t.Error("the FLAC's samples differ from the WAV's")
	}
	if fromWAV, err := DecodeAudio(w); err != nil || !slices.Equal(fromWAV.Samples, want.Samples) {
		t.Errorf("DecodeAudio of the WAV: %v", err)
	}
	for _, tt := range []struct {
		data []byte
		want string
	}{
		{[]byte("ID3\x04rest"), "MP3"},
		{[]byte("OggS...."), "Ogg"},
		{[]byte("junk"), "neither WAV nor FLAC"},
		{append([]byte("fLaC"), 0, 0), "FLAC"},
	} {
		if _, err := DecodeAudio(tt.data); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one naming %s", tt.data, err, tt.want)
		}
	}
}

// FuzzDecodeAudio: no input panics DecodeAudio (corrupt FLAC included).
func FuzzDecodeAudio(f *testing.F) {
	if b, err := os.ReadFile("testdata/stereo.flac"); err == nil {
		f.Add(b[:600])
		f.Add(b)
	}
	f.Add([]byte("fLaC\x00\x00\x00\x22"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeAudio(data)
		if err == nil && (a == nil || a.Rate <= 0) {
			t.Fatalf("no error and audio %+v", a)
		}
	})
}
