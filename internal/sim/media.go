package sim

import (
	"encoding/base64"
	"encoding/binary"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG images
	_ "image/png"  // and PNG ones
	"math"
	"strings"
)

// mediaKind is the kind of a chat content part that is not text.
type mediaKind uint8

// The media kinds.
const (
	mediaImage mediaKind = iota
	mediaVideo
	mediaAudio
)

// mediaRef is one media part of a chat request: its kind and URL.
type mediaRef struct {
	kind mediaKind
	url  string
}

// Token accounting of media, after Qwen2-VL-style vision encoders and
// Whisper-style audio encoders, so that usage counts and latency grow with
// the media a request carries.
const (
	mediaPatch          = 28  // pixels per image token side (14-pixel patches merged 2×2)
	defaultMediaTokens  = 256 // an image or frame whose size cannot be read (an http URL)
	audioTokensPerSec   = 25
	defaultAudioTokens  = 64
	maxMediaHeaderBytes = 64 << 10
)

// mediaCost returns the placeholder token ids the media of a request add
// to its prompt (deterministic ids drawn from each item's URL, so that
// different media hash differently in the prefix cache) and its media
// units: an image counts 1, a video one per frame, audio 1; each unit
// costs Config.PrefillPerMediaItem of prefill.
func (s *Server) mediaCost(refs []mediaRef) (ids []int, units int) {
	for _, m := range refs {
		tokens, u := mediaTokens(m)
		units += u
		key := promptKeyString(m.url)
		for k := range tokens {
			ids = append(ids, int(hash3(s.cfg.Seed, saltMedia, key, uint64(k))%uint64(WordVocabSize)))
		}
	}
	return ids, units
}

// promptKeyString is a 64-bit hash of s (FNV-1a, mixed).
func promptKeyString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h)
}

// mediaTokens returns the tokens and media units of one part: an image
// ⌈h/28⌉·⌈w/28⌉ tokens (defaultMediaTokens when its size cannot be read
// from a data URL); a video/jpeg data URL (vLLM's frame list) its frames'
// tokens halved (frames merged in pairs), one unit per frame; another
// video 4 frames' worth; audio 25 tokens a second of a WAV data URL.
func mediaTokens(m mediaRef) (tokens, units int) {
	switch m.kind {
	case mediaImage:
		return imageTokens(dataPayload(m.url, "data:image/")), 1
	case mediaVideo:
		if frames, ok := strings.CutPrefix(m.url, "data:video/jpeg;base64,"); ok {
			n, t := 0, 0
			for f := range strings.SplitSeq(frames, ",") {
				n++
				t += imageTokens(f)
			}
			return (t + 1) / 2, n
		}
		return 2 * defaultMediaTokens, 4
	}
	if secs, ok := wavSeconds(dataPayload(m.url, "data:audio/")); ok {
		return max(1, int(math.Ceil(secs*audioTokensPerSec))), 1
	}
	return defaultAudioTokens, 1
}

// dataPayload returns the base64 payload of a data URL of the given
// media prefix, "" for anything else.
func dataPayload(url, prefix string) string {
	if !strings.HasPrefix(url, prefix) {
		return ""
	}
	_, data, ok := strings.Cut(url, ";base64,")
	if !ok {
		return ""
	}
	return data
}

// headBytes decodes the start of a base64 payload: enough for a header.
func headBytes(b64 string) []byte {
	n := min(len(b64), maxMediaHeaderBytes) &^ 3
	raw, err := base64.StdEncoding.DecodeString(b64[:n])
	if err != nil {
		return nil
	}
	return raw
}

// imageTokens is an image's token count from its base64 payload.
func imageTokens(b64 string) int {
	if b64 == "" {
		return defaultMediaTokens
	}
	cfg, _, err := image.DecodeConfig(strings.NewReader(string(headBytes(b64))))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return defaultMediaTokens
	}
	return ((cfg.Height + mediaPatch - 1) / mediaPatch) * ((cfg.Width + mediaPatch - 1) / mediaPatch)
}

// wavSeconds reads a WAV payload's duration from its fmt and data chunks.
func wavSeconds(b64 string) (float64, bool) {
	b := headBytes(b64)
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, false
	}
	var byteRate uint32
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), binary.LittleEndian.Uint32(b[off+4:])
		switch {
		case id == "fmt " && off+16 <= len(b):
			byteRate = binary.LittleEndian.Uint32(b[off+16:])
		case id == "data" && byteRate > 0:
			return float64(size) / float64(byteRate), true
		}
		off += 8 + int(size) + int(size&1)
	}
	return 0, false
}

// withMedia appends the media's placeholder tokens to a prompt's ids and
// notes its media units in req, for the prefill.
func (s *Server) withMedia(req *genRequest, ids []int, media []mediaRef) []int {
	if len(media) == 0 {
		return ids
	}
	extra, units := s.mediaCost(media)
	req.mediaUnits += units
	return append(ids, extra...)
}
