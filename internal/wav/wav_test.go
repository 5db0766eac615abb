package wav

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// A 16-bit WAV written by Encode16 reads back to the same samples within
// one step, with its rate and duration.
func TestRoundTrip(t *testing.T) {
	a := &Audio{Rate: 16000, Samples: make([]float64, 8000)}
	for i := range a.Samples {
		a.Samples[i] = 0.8 * math.Sin(2*math.Pi*440*float64(i)/16000)
	}
	var b bytes.Buffer
	if err := Encode16(&b, a); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 44+2*8000 || string(b.Bytes()[:4]) != "RIFF" {
		t.Fatalf("%d bytes", b.Len())
	}
	got, err := Decode(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Rate != 16000 || len(got.Samples) != 8000 || got.Seconds() != 0.5 {
		t.Fatalf("rate %d, %d samples, %v s", got.Rate, len(got.Samples), got.Seconds())
	}
	for i, s := range got.Samples {
		if math.Abs(s-a.Samples[i]) > 1.0/32768 {
			t.Fatalf("sample %d: %v, want %v", i, s, a.Samples[i])
		}
	}
}

// Stereo float and 24-bit PCM decode to mono averages; clipping holds.
func TestFormats(t *testing.T) {
	mk := func(format, channels, bits int, payload []byte) []byte {
		var b bytes.Buffer
		le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
		b.WriteString("RIFF")
		le(uint32(36 + len(payload)))
		b.WriteString("WAVEfmt ")
		le(uint32(16))
		le(uint16(format))
		le(uint16(channels))
		le(uint32(8000))
		le(uint32(8000 * channels * bits / 8))
		le(uint16(channels * bits / 8))
		le(uint16(bits))
		b.WriteString("LIST") // an unknown chunk is skipped
		le(uint32(3))
		b.WriteString("abc\x00")
		b.WriteString("data")
		le(uint32(len(payload)))
		b.Write(payload)
		return b.Bytes()
	}
	var f bytes.Buffer
	for _, v := range []float32{0.5, -0.5, 1, 0} {
		_ = binary.Write(&f, binary.LittleEndian, v)
	}
	a, err := Decode(mk(formatFloat, 2, 32, f.Bytes()))
	if err != nil || len(a.Samples) != 2 || a.Samples[0] != 0 || a.Samples[1] != 0.5 {
		t.Errorf("float stereo: %+v %v", a, err)
	}
	a, err = Decode(mk(formatPCM, 1, 24, []byte{0, 0, 0x40, 0, 0, 0xC0}))
	if err != nil || a.Samples[0] != 0.5 || a.Samples[1] != -0.5 {
		t.Errorf("24-bit: %+v %v", a, err)
	}
	if _, err := Decode([]byte("RIFF....WAVE")); err == nil {
		t.Error("a WAVE without chunks decoded")
	}
	var b bytes.Buffer
	_ = Encode16(&b, &Audio{Rate: 8000, Samples: []float64{2, -2, 0.5}})
	a, _ = Decode(b.Bytes())
	if a.Samples[0] != 32767.0/32768 || a.Samples[1] != -1 || a.Samples[2] != 0.5 {
		t.Errorf("clipped %v", a.Samples)
	}
}

// FuzzDecode checks that no input makes Decode panic.
func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	_ = Encode16(&b, &Audio{Rate: 8000, Samples: []float64{0.1, 0.2}})
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Decode(data)
	})
}
