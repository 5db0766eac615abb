package tokenizer

import (
	"strings"
	"unsafe"
)

// GPT-2's byte-level alphabet: every byte is spelt as one printable
// character. The bytes of '!'..'~', '¡'..'¬' and '®'..'ÿ' stand for the
// code point of the same value; the other 68 bytes, in increasing order,
// stand for U+0100, U+0101, and so on.
var (
	byteLevelChar [256]string // byte -> its character
	// byteLevelByte maps a character below U+0144 (the alphabet's last)
	// to its byte + 1, 0 when the character is not in the alphabet.
	byteLevelByte [0x144]uint16
)

func init() {
	n := 0
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !(b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF) {
			r = rune(256 + n)
			n++
		}
		byteLevelChar[b] = string(r)
		byteLevelByte[r] = uint16(b) + 1
	}
}

// unByteLevel returns the bytes a byte-level token stands for; ok is false
// when a character of tok is outside the alphabet.
func unByteLevel(tok string) (string, bool) {
	var sb strings.Builder
	sb.Grow(len(tok))
	for _, r := range tok {
		if r >= rune(len(byteLevelByte)) || byteLevelByte[r] == 0 {
			return "", false
		}
		sb.WriteByte(byte(byteLevelByte[r] - 1))
	}
	return sb.String(), true
}

// appendUnByteLevel appends the bytes a byte-level token stands for; ok
// is false (and dst unchanged) when a character of tok is outside the
// alphabet.
func appendUnByteLevel(dst []byte, tok string) ([]byte, bool) {
	n := len(dst)
	for _, r := range tok {
		if r >= rune(len(byteLevelByte)) || byteLevelByte[r] == 0 {
			return dst[:n], false
		}
		dst = append(dst, byte(byteLevelByte[r]-1))
	}
	return dst, true
}

// byteLevelTable is the text table of byteLevelDecode of each token whose
// has is set (none for the others), made in one pass.
func byteLevelTable(tokens []string, has []bool) textTable {
	size := 0
	for _, t := range tokens {
		size += len(t)
	}
	arena := make([]byte, 0, size)
	off := make([]uint32, len(tokens)+1)
	for id, t := range tokens {
		off[id] = uint32(len(arena))
		if has[id] {
			var ok bool
			if arena, ok = appendUnByteLevel(arena, t); !ok {
				arena = append(arena, t...)
			}
		}
	}
	off[len(tokens)] = uint32(len(arena))
	return textTable{arena: unsafe.String(unsafe.SliceData(arena), len(arena)), off: off, has: has}
}

// byteLevelDecode is the ByteLevel decoder's treatment of one token: its
// characters mapped back to bytes, or, when one of them is outside the
// alphabet, the token's own UTF-8 bytes.
func byteLevelDecode(tok string) string {
	if raw, ok := unByteLevel(tok); ok {
		return raw
	}
	return tok
}
