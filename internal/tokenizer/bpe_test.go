package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// referenceMerge is tiktoken's byte_pair_merge written plainly over a list
// of parts: merge the adjacent pair whose join has the lowest rank, the
// leftmost among equals, until no join is a token.
func referenceMerge(b *bpe, piece string) []int {
	parts := make([]string, len(piece))
	for i := 0; i < len(piece); i++ {
		parts[i] = piece[i : i+1]
	}
	for {
		best, at := uint32(noRank), -1
		for i := 0; i+1 < len(parts); i++ {
			if r := b.rank(parts[i] + parts[i+1]); r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		parts = slices.Replace(parts, at, at+2, parts[at]+parts[at+1])
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		out[i] = int(b.rank(p))
	}
	return out
}

func TestMergeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	alphabets := []string{"ab", "aab ", "abcdefghij", "ing tion the", "\xe6\xbc\xa2\xe5\xad\x97 "}
	for _, name := range []string{"o200k_base", "r50k_base"} {
		b := &mustBuiltin(t, name).bpe
		for range 2000 {
			alpha := alphabets[r.IntN(len(alphabets))]
			var sb strings.Builder
			for range 2 + r.IntN(150) {
				sb.WriteByte(alpha[r.IntN(len(alpha))])
			}
			piece := sb.String()
			want := referenceMerge(b, piece)
			if got := b.mergeHeap(piece, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: mergeHeap(%q) = %v, want %v", name, piece, got, want)
			}
			if len(piece) <= smallPiece {
				if got := b.mergeSmall(piece, nil); !slices.Equal(got, want) {
					t.Fatalf("%s: mergeSmall(%q) = %v, want %v", name, piece, got, want)
				}
			}
		}
	}
}

func TestPieceCacheBounded(t *testing.T) {
	c := newPieceCache()
	// Far more distinct pieces than slots hashing to one window: every get
	// returns either nothing or the right tokens.
	for i := range 10 * cacheProbe {
		key := strings.Repeat("x", i+1)
		c.put(key, 42, []int{i})
	}
	for i := range 10 * cacheProbe {
		key := strings.Repeat("x", i+1)
		if toks, ok := c.get(key, 42); ok && !slices.Equal(toks, []int{i}) {
			t.Fatalf("cache returned %v for piece %d", toks, i)
		}
	}
}

func TestEncodeMemoBounded(t *testing.T) {
	m := newEncodeMemo()
	text := strings.Repeat("x", 200_000)
	for i := range 2000 {
		key := strings.Repeat(string(rune('a'+i%26)), 1+i%200) + text
		m.put(key, make([]int, 1000), make([]memoPiece, 1000))
		if m.bytes > memoMaxBytes || len(m.entries) > memoMaxTexts {
			t.Fatalf("after %d texts the memo holds %d bytes in %d keys", i+1, m.bytes, len(m.entries))
		}
	}
}
