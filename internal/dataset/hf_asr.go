package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/vbench/vbench/internal/wav"
)

// asrIDs are the ids ASRDataset serves.
var asrIDs = []string{"openslr/librispeech_asr", "facebook/voxpopuli", "LIUM/tedlium", "edinburghcstr/ami",
	"speechcolab/gigaspeech", "kensho/spgispeech", "ArtificialAnalysis/Earnings22-Cleaned-AA",
	"D4nt3/esb-datasets-earnings22-validation-tiny-filtered"}

// asrOutputLen is ASRDataset.DEFAULT_OUTPUT_LEN.
const asrOutputLen = 1024

// asrPrompt is ASRDataset's decoder prompt for a tokenizer: Whisper's
// control tokens when its name has "openai", Cohere ASR's when it has
// "cohere" (any case), else none.
func asrPrompt(name string) string {
	switch {
	case strings.Contains(name, "openai"):
		return "<|startoftranscript|><|en|><|transcribe|><|notimestamps|>"
	case strings.Contains(strings.ToLower(name), "cohere"):
		return "<|startofcontext|><|startoftranscript|><|emo:undefined|><|en|><|en|><|pnc|><|noitn|><|notimestamp|><|nodiarize|>"
	}
	return ""
}

// asrSample is ASRDataset.sample: each row's audio (decoded samples, WAV
// or FLAC bytes, or a local file) becomes a request whose clip the
// openai-audio backend uploads as 16-bit WAV, with the tokenizer's
// decoder prompt, unless its duration is outside [--asr-min-audio-len-sec,
// --asr-max-audio-len-sec]. Ids count the kept rows. vLLM's warning on
// the discarded rows and its duration statistics go to the log.
func asrSample(ctx context.Context, rows iter.Seq2[hfRow, error], repo hfRepo, spec *HFSpec, env Env) iter.Seq2[Request, error] {
	return eager(func() ([]Request, error) {
		if env.Tokenizer == nil {
			return nil, errors.New("the hf datasets need a client tokenizer: unset tokenizer.skip_init")
		}
		prompt := asrPrompt(env.Tokenizer.Name())
		promptLen := len(env.Tokenizer.Encode(prompt, true))
		lo, hi := spec.ASRMinAudioLenSec, float64(spec.ASRMaxAudioLenSec)
		if hi == 0 {
			hi = math.Inf(1) // vLLM: float(asr_max_audio_len_sec or inf)
		}
		var durations []float64
		skipped := 0
		row := func(row hfRow, s *hfSampling) (Request, bool, error) {
			a, err := asrAudio(row)
			if err != nil {
				return Request{}, false, err
			}
			d := a.Seconds()
			if d < lo || d > hi {
				skipped++
				return Request{}, false, nil
			}
			var b bytes.Buffer
			if err := wav.Encode16(&b, a); err != nil {
				return Request{}, false, err
			}
			durations = append(durations, d)
			return Request{Prompt: prompt, PromptLen: promptLen, OutputLen: s.outputLen,
				Audio: &AudioClip{WAV: b.Bytes(), Seconds: d}}, true, nil
		}
		reqs, err := hfSample(ctx, rows, repo, spec, env, hfRules{outputLen: asrOutputLen, filters: true}, row)
		logw := env.Stderr
		if logw == nil {
			logw = io.Discard
		}
		if skipped > 0 {
			fmt.Fprintf(logw, "WARNING: %d samples discarded from dataset due to their length being greater than what Whisper supports.\n", skipped)
		}
		fmt.Fprintf(logw, "Number of audio samples: %d\n", len(durations))
		fmt.Fprintf(logw, "Audio duration statistics (s): avg=%.2f, min=%.2f, max=%.2f, median=%.2f\n", durationStats(durations)...)
		return reqs, err
	})
}

// durationStats returns the mean, min, max and median (numpy's: the mean
// of the middle two for an even count) of d, zeros when it is empty.
func durationStats(d []float64) []any {
	if len(d) == 0 {
		return []any{0.0, 0.0, 0.0, 0.0}
	}
	s := slices.Sorted(slices.Values(d))
	sum := 0.0
	for _, x := range d {
		sum += x
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return []any{sum / float64(len(d)), s[0], s[len(s)-1], med}
}

// asrAudio decodes a row's "audio" as ASRDataset reads it: decoded samples
// ({"array", "sampling_rate"}), a local file path, embedded bytes
// ({"bytes"}: WAV or FLAC) or an object's local "path".
func asrAudio(row hfRow) (*wav.Audio, error) {
	v, ok := row["audio"]
	if !ok {
		return nil, errors.New(`the row has no "audio"`)
	}
	errForm := errors.New(`"audio": ASR samples must provide decoded audio arrays, embedded audio bytes, or a local audio path`)
	switch x := v.(type) {
	case string:
		return audioFile(x)
	case map[string]any:
		if arr, ok := x["array"].([]any); ok {
			rate, ok := x["sampling_rate"].(float64)
			if !ok || rate <= 0 || rate != math.Trunc(rate) {
				return nil, fmt.Errorf(`"audio": "sampling_rate" is %s, expected a positive integer`, hfKind(x["sampling_rate"]))
			}
			a := &wav.Audio{Rate: int(rate), Samples: make([]float64, len(arr))}
			for i, e := range arr {
				f, ok := e.(float64)
				if !ok {
					return nil, fmt.Errorf(`"audio": "array"[%d] is %s, expected a number (a mono clip)`, i, hfKind(e))
				}
				a.Samples[i] = f
			}
			return a, nil
		}
		if b, ok := x["bytes"].(string); ok && b != "" {
			a, err := wav.DecodeAudio([]byte(b))
			if err != nil {
				return nil, fmt.Errorf(`"audio": %w`, err)
			}
			return a, nil
		}
		if p, ok := x["path"].(string); ok && p != "" {
			return audioFile(p)
		}
	}
	return nil, errForm
}

// audioFile decodes a local WAV or FLAC file.
func audioFile(path string) (*wav.Audio, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf(`"audio": %w`, err)
	}
	a, err := wav.DecodeAudio(data)
	if err != nil {
		return nil, fmt.Errorf(`"audio" %s: %w`, path, err)
	}
	return a, nil
}
