package tokenizer

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// fastDecoder decodes ids with tables computed at load time, giving the
// same text as running the decoder chain on the tokens (the tests compare
// both on random ids). It exists for the two chains almost every
// tokenizer.json uses:
//
//   - ByteLevel alone (GPT-2, Llama-3, Qwen): each token stands for fixed
//     bytes, and the whole is converted with LossyUTF8;
//   - Replace, ByteFallback, Fuse and optionally Strip (Llama-2,
//     Mistral, Gemma): each token
//     stands for fixed text or, for <0xXX>, one byte; a run of bytes that
//     is not valid UTF-8 becomes one U+FFFD per byte, and the joined text
//     loses up to start leading and stop trailing strip characters.
type fastDecoder interface {
	decode(ids []int) string
}

// newFastDecoder returns a fast decoder for chain, or nil when the chain
// has another shape.
func newFastDecoder(chain []decodeStep, tokens []string, has []bool) fastDecoder {
	switch {
	case len(chain) == 1:
		if _, ok := chain[0].(byteLevelStep); !ok {
			return nil
		}
		return &bytesDecoder{table: byteLevelTable(tokens, has)}
	case len(chain) == 3 || len(chain) == 4:
		rep, ok1 := chain[0].(replaceStep)
		_, ok2 := chain[1].(byteFallbackStep)
		_, ok3 := chain[2].(fuseStep)
		var strip stripStep
		ok4 := true
		if len(chain) == 4 {
			strip, ok4 = chain[3].(stripStep)
		}
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil
		}
		texts := make([]string, len(tokens))
		isByte := make([]int16, len(tokens)) // byte value + 1, 0 when not a byte token
		for id, t := range tokens {
			if !has[id] {
				continue
			}
			t = replaceNormalizer(rep).normalize(t)
			if b, ok := fallbackByte(t); ok {
				isByte[id] = int16(b) + 1
			}
			texts[id] = t
		}
		return &spDecoder{table: newTextTable(texts, has), isByte: isByte, strip: strip}
	}
	return nil
}

// textTable holds the text of every id in one string.
type textTable struct {
	arena string
	off   []uint32 // id's text is arena[off[id]:off[id+1]]
	has   []bool
}

func newTextTable(texts []string, has []bool) textTable {
	var sb strings.Builder
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	sb.Grow(size)
	off := make([]uint32, len(texts)+1)
	for id, t := range texts {
		off[id] = uint32(sb.Len())
		sb.WriteString(t)
	}
	off[len(texts)] = uint32(sb.Len())
	return textTable{arena: sb.String(), off: off, has: has}
}

func (t *textTable) ok(id int) bool { return id >= 0 && id < len(t.has) && t.has[id] }

func (t *textTable) text(id int) string { return t.arena[t.off[id]:t.off[id+1]] }

var fastBufPool = sync.Pool{New: func() any { return new([]byte) }}

// bytesDecoder is the ByteLevel chain.
type bytesDecoder struct{ table textTable }

func (d *bytesDecoder) decode(ids []int) string {
	bp := fastBufPool.Get().(*[]byte)
	b := (*bp)[:0]
	for _, id := range ids {
		if d.table.ok(id) {
			b = append(b, d.table.text(id)...)
		}
	}
	s := LossyUTF8(b)
	if cap(b) <= 1<<20 {
		*bp = b
		fastBufPool.Put(bp)
	}
	return s
}

// spDecoder is the Replace, ByteFallback, Fuse, Strip chain.
type spDecoder struct {
	table  textTable
	isByte []int16
	strip  stripStep
}

func (d *spDecoder) decode(ids []int) string {
	bp := fastBufPool.Get().(*[]byte)
	b := (*bp)[:0]
	runStart := -1 // start in b of the current run of byte tokens
	flush := func() {
		if runStart < 0 {
			return
		}
		if run := b[runStart:]; !utf8.Valid(run) {
			n := len(run)
			b = b[:runStart]
			for range n {
				b = append(b, replacement...)
			}
		}
		runStart = -1
	}
	for _, id := range ids {
		if !d.table.ok(id) {
			continue
		}
		if v := d.isByte[id]; v > 0 {
			if runStart < 0 {
				runStart = len(b)
			}
			b = append(b, byte(v-1))
			continue
		}
		flush()
		b = append(b, d.table.text(id)...)
	}
	flush()
	s := d.strip.strip(string(b))
	if cap(b) <= 1<<20 {
		*bp = b
		fastBufPool.Put(bp)
	}
	return s
}
