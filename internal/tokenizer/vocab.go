package tokenizer

import (
	"fmt"
	"math"
	"math/bits"
)

// vocabTable maps token bytes to ranks with open addressing and linear
// probing. Each 16-byte slot holds the first 12 bytes of its key inline,
// so a lookup of a token of up to 12 bytes (nearly all of them) touches
// one slot and nothing else; longer keys compare their remaining bytes
// against the decoder table.
//
// Slot layout: lo = key bytes 0-7 (little-endian, zero-padded); hi bits
// 0-31 = key bytes 8-11, bits 32-39 = key length (0 marks an empty slot),
// bits 40-63 = rank.
type vocabTable struct {
	slots []vslot
	mask  uint64
	dec   decoder           // to compare keys over 12 bytes
	huge  map[string]uint32 // tokens longer than 255 bytes (none in OpenAI's files)
}

type vslot struct{ lo, hi uint64 }

const (
	inlineKey = 12        // key bytes held in a slot
	maxRank24 = 1<<24 - 1 // the largest rank a slot can hold
)

// newVocabTable builds the table of the tokens in dec. It fails if two
// ranks have the same bytes.
func newVocabTable(dec decoder) (*vocabTable, error) {
	count := 0
	for r := 0; r+1 < len(dec.off); r++ {
		if dec.off[r+1] > dec.off[r] {
			count++
		}
	}
	size := 1 << bits.Len(uint(count*5/2))
	t := &vocabTable{slots: make([]vslot, size), mask: uint64(size - 1), dec: dec}
	for r := 0; r+1 < len(dec.off); r++ {
		s := dec.token(r)
		if s == "" {
			continue
		}
		if len(s) > 255 {
			if _, dup := t.huge[s]; dup {
				return nil, fmt.Errorf("token %q has two ranks", s)
			}
			if t.huge == nil {
				t.huge = make(map[string]uint32)
			}
			t.huge[s] = uint32(r)
			continue
		}
		lo, hi := packKey(s)
		want := uint64(uint32(hi)) | uint64(len(s))<<32
		i := vhash(lo, hi, s) & t.mask
		for sl := &t.slots[i]; sl.hi>>32&0xff != 0; sl = &t.slots[i] {
			if sl.lo == lo && sl.hi&(1<<40-1) == want &&
				(len(s) <= inlineKey || dec.token(int(sl.hi >> 40))[inlineKey:] == s[inlineKey:]) {
				return nil, fmt.Errorf("token %q has two ranks", s)
			}
			i = (i + 1) & t.mask
		}
		t.slots[i] = vslot{lo: lo, hi: uint64(uint32(hi)) | uint64(len(s))<<32 | uint64(r)<<40}
	}
	return t, nil
}

// get returns the rank of s.
func (t *vocabTable) get(s string) (uint32, bool) {
	if len(s) == 0 || len(s) > 255 {
		r, ok := t.huge[s]
		return r, ok
	}
	lo, hi := packKey(s)
	want := uint64(uint32(hi)) | uint64(len(s))<<32
	for i := vhash(lo, hi, s) & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.hi>>32&0xff == 0 {
			return 0, false
		}
		if sl.lo == lo && sl.hi&(1<<40-1) == want {
			r := uint32(sl.hi >> 40)
			if len(s) <= inlineKey || t.dec.token(int(r))[inlineKey:] == s[inlineKey:] {
				return r, true
			}
		}
	}
}

// packKey returns the first 8 bytes of s and the next 4 (more for the
// hash), little-endian and zero-padded.
func packKey(s string) (lo, hi uint64) {
	if len(s) >= 16 {
		return le64(s), le64(s[8:])
	}
	if len(s) >= 8 {
		lo = le64(s)
		for k := 8; k < len(s); k++ {
			hi |= uint64(s[k]) << (8 * (k - 8))
		}
		return lo, hi
	}
	for k := 0; k < len(s); k++ {
		lo |= uint64(s[k]) << (8 * k)
	}
	return lo, 0
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// vhash mixes the packed words, the length and, for long keys, the rest
// of the bytes.
func vhash(lo, hi uint64, s string) uint64 {
	h := lo*0x9E3779B97F4A7C15 ^ hi*0xC2B2AE3D27D4EB4F ^ uint64(len(s))
	for k := 16; k+8 <= len(s); k += 8 {
		h = (h ^ le64(s[k:])) * 0x9E3779B97F4A7C15
	}
	if r := len(s) % 8; len(s) > 16 && r != 0 {
		h = (h ^ le64(s[len(s)-8:])) * 0x9E3779B97F4A7C15
	}
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// getAll sets ranks[k] to the rank of piece k of text (noRank if it is not
// a token) and returns the number of pieces that are not tokens. Piece k
// spans pieces[k].start up to the next piece's start (the end of text for
// the last). It works in stages, hashing every piece, then loading every
// first slot, then comparing, so that the loads, which mostly miss the
// CPU caches, overlap instead of waiting on each other.
func (t *vocabTable) getAll(text string, pieces []memoPiece, ranks []uint32) int {
	const batch = 64
	var (
		los, his [batch]uint64
		idx      [batch]uint64
		slot     [batch]vslot
	)
	misses := 0
	for base := 0; base < len(pieces); base += batch {
		n := min(batch, len(pieces)-base)
		for j := range n {
			s := text[pieces[base+j].start:pieceEnd(pieces, base+j, text)]
			if len(s) > 255 {
				idx[j] = math.MaxUint64 // looked up separately below
				continue
			}
			los[j], his[j] = packKey(s)
			idx[j] = vhash(los[j], his[j], s) & t.mask
		}
		for j := range n {
			if idx[j] != math.MaxUint64 {
				slot[j] = t.slots[idx[j]]
			}
		}
		for j := range n {
			k := base + j
			s := text[pieces[k].start:pieceEnd(pieces, k, text)]
			sl := slot[j]
			switch {
			case idx[j] == math.MaxUint64:
			case sl.hi>>32&0xff == 0:
				ranks[k] = noRank
				misses++
				continue
			case sl.lo == los[j] && sl.hi&(1<<40-1) == uint64(uint32(his[j]))|uint64(len(s))<<32 &&
				(len(s) <= inlineKey || t.dec.token(int(sl.hi >> 40))[inlineKey:] == s[inlineKey:]):
				ranks[k] = uint32(sl.hi >> 40)
				continue
			}
			r, ok := t.get(s)
			if !ok {
				r = noRank
				misses++
			}
			ranks[k] = r
		}
	}
	return misses
}
