package wav

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
)

// DecodeAudio reads a WAV or a FLAC file, told apart by their magic
// bytes, the two containers the Hugging Face speech datasets store clips
// in (LibriSpeech's are FLAC). Other formats are an error that names them.
func DecodeAudio(data []byte) (*Audio, error) {
	switch {
	case bytes.HasPrefix(data, []byte("RIFF")):
		return Decode(data)
	case bytes.HasPrefix(data, []byte("fLaC")):
		return DecodeFLAC(data)
	case bytes.HasPrefix(data, []byte("ID3")), len(data) > 1 && data[0] == 0xff && data[1]&0xe0 == 0xe0:
		return nil, errors.New("the audio is MP3, which vbench does not decode (WAV and FLAC are read)")
	case bytes.HasPrefix(data, []byte("OggS")):
		return nil, errors.New("the audio is Ogg, which vbench does not decode (WAV and FLAC are read)")
	}
	return nil, errors.New("the audio is neither WAV nor FLAC, the formats vbench reads")
}

// DecodeFLAC reads a FLAC file (pure Go, github.com/mewkiz/flac); channels
// are averaged to mono as Decode does. A corrupt file is an error, even
// where the decoder would panic.
func DecodeFLAC(data []byte) (a *Audio, err error) {
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("FLAC: corrupt stream (%v)", p)
		}
	}()
	s, err := flac.New(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("FLAC: %w", err)
	}
	info := s.Info
	if info.SampleRate == 0 || info.NChannels == 0 || info.BitsPerSample == 0 {
		return nil, errors.New("FLAC: no sample rate, channels or sample size in STREAMINFO")
	}
	scale := float64(int64(1) << (info.BitsPerSample - 1))
	a = &Audio{Rate: int(info.SampleRate), Samples: make([]float64, 0, min(info.NSamples, 1<<24))}
	for {
		f, err := s.ParseNext()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("FLAC frame: %w", err)
		}
		n := len(f.Subframes[0].Samples)
		for _, sf := range f.Subframes {
			if len(sf.Samples) != n {
				return nil, errors.New("FLAC frame: channels of different lengths")
			}
		}
		for i := range n {
			sum := 0.0
			for _, sf := range f.Subframes {
				sum += float64(sf.Samples[i])
			}
			a.Samples = append(a.Samples, sum/float64(len(f.Subframes))/scale)
		}
	}
	return a, nil
}
