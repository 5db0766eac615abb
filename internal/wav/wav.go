// Package wav reads and writes RIFF WAVE audio in pure Go: PCM (8, 16, 24
// and 32 bits) and IEEE float (32 and 64 bits) in, 16-bit PCM out, which
// is what vLLM's audio request function uploads (soundfile writes float
// audio to WAV as PCM_16).
package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Audio is decoded audio: mono samples in [-1, 1] at Rate samples a
// second (multi-channel audio is averaged to mono, as librosa.load does
// by default).
type Audio struct {
	// Rate is the sample rate in Hz.
	Rate int
	// Samples are the mono samples.
	Samples []float64
}

// Seconds is the audio's duration.
func (a *Audio) Seconds() float64 {
	if a.Rate <= 0 {
		return 0
	}
	return float64(len(a.Samples)) / float64(a.Rate)
}

// Format codes of the fmt chunk.
const (
	formatPCM        = 1
	formatFloat      = 3
	formatExtensible = 0xFFFE
)

// Decode reads a WAV file.
func Decode(data []byte) (*Audio, error) {
	if len(data) < 12 || string(data[:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return nil, errors.New("not a RIFF WAVE file")
	}
	var format, channels, bits int
	var rate int
	var pcm []byte
	haveFmt := false
	for off := 12; off+8 <= len(data); {
		id, size := string(data[off:off+4]), int(binary.LittleEndian.Uint32(data[off+4:]))
		body := data[off+8 : min(len(data), off+8+size)]
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return nil, errors.New("a fmt chunk shorter than 16 bytes")
			}
			format = int(binary.LittleEndian.Uint16(body[0:]))
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
			if format == formatExtensible && len(body) >= 26 {
				format = int(binary.LittleEndian.Uint16(body[24:])) // the sub-format GUID's first two bytes
			}
			haveFmt = true
		case "data":
			pcm = body
		}
		off += 8 + size + size&1
	}
	switch {
	case !haveFmt:
		return nil, errors.New("no fmt chunk")
	case pcm == nil:
		return nil, errors.New("no data chunk")
	case channels < 1 || rate < 1:
		return nil, fmt.Errorf("%d channels at %d Hz", channels, rate)
	}
	width := bits / 8
	sample, err := sampleReader(format, bits)
	if err != nil {
		return nil, err
	}
	frames := len(pcm) / (width * channels)
	a := &Audio{Rate: rate, Samples: make([]float64, frames)}
	for f := range frames {
		sum := 0.0
		for c := range channels {
			i := (f*channels + c) * width
			sum += sample(pcm[i : i+width])
		}
		a.Samples[f] = sum / float64(channels)
	}
	return a, nil
}

// sampleReader returns the decoder of one sample of the format.
func sampleReader(format, bits int) (func([]byte) float64, error) {
	switch {
	case format == formatPCM && bits == 8:
		return func(b []byte) float64 { return (float64(b[0]) - 128) / 128 }, nil
	case format == formatPCM && bits == 16:
		return func(b []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(b))) / 32768 }, nil
	case format == formatPCM && bits == 24:
		return func(b []byte) float64 {
			return float64(int32(uint32(b[0])<<8|uint32(b[1])<<16|uint32(b[2])<<24)>>8) / (1 << 23)
		}, nil
	case format == formatPCM && bits == 32:
		return func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) / (1 << 31) }, nil
	case format == formatFloat && bits == 32:
		return func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }, nil
	case format == formatFloat && bits == 64:
		return func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }, nil
	}
	return nil, fmt.Errorf("unsupported WAV sample format %d with %d bits (want PCM 8/16/24/32 or float 32/64)", format, bits)
}

// Encode16 writes a as mono 16-bit PCM WAV, each sample clipped to
// [-1, 1] and scaled by 32768 then truncated toward zero, as libsndfile
// converts doubles to PCM_16 (with clipping on).
func Encode16(w io.Writer, a *Audio) error {
	n := len(a.Samples)
	var b bytes.Buffer
	b.Grow(44 + 2*n)
	b.WriteString("RIFF")
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(formatPCM))
	le(uint16(1))
	le(uint32(a.Rate))
	le(uint32(2 * a.Rate))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(2 * n))
	for _, s := range a.Samples {
		v := s * 32768
		switch {
		case v >= 32767:
			v = 32767
		case v <= -32768:
			v = -32768
		}
		le(int16(v))
	}
	_, err := w.Write(b.Bytes())
	return err
}
