package tokenizer

// splitLlama3 implements the Split pattern of Llama-3's tokenizer.json
// (cl100k_base's pattern as it was before tiktoken made it possessive):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)
//	[^\r\n\p{L}\p{N}]?\p{L}+
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func splitLlama3(t *runeText, p int) int { return splitHFCl100k(t, p, 3) }

// splitQwen2 implements the Split pattern of Qwen2's and Qwen3's
// tokenizer.json, which is Llama-3's with \p{N} (one digit per piece)
// instead of \p{N}{1,3}.
func splitQwen2(t *runeText, p int) int { return splitHFCl100k(t, p, 1) }

// splitHFCl100k matches the cl100k-style pattern with numbers of up to
// digits runes, as Oniguruma (Hugging Face's regex engine) does: the
// leftmost alternative that matches wins, and within it the greedy
// quantifiers give back runes only as far as the rest needs.
func splitHFCl100k(t *runeText, p, digits int) int {
	if k := t.contraction(p, true); k > 0 {
		return p + k
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+: giving the optional rune back cannot help,
	// since it is not a letter.
	q := p
	if t.isNRLN(p) {
		q++
	}
	if e := t.run(q, clsL); e > q {
		return e
	}
	if t.is(p, clsN) {
		e := p + 1
		for e < p+digits && t.is(e, clsN) {
			e++
		}
		return e
	}
	// " ?[^\s\p{L}\p{N}]+[\r\n]*": without the space the rest cannot
	// match at a space either.
	q = p
	if t.isByte(p, ' ') && t.isP(p+1) {
		q++
	}
	if t.isP(q) {
		e := q
		for t.isP(e) {
			e++
		}
		for t.isNL(e) {
			e++
		}
		return e
	}
	e := t.run(p, clsS)
	if e == p {
		return p + 1 // unreachable: every rune is L, N, \s or [^\s\p{L}\p{N}]
	}
	if j := lastNL(t, p, e); j >= 0 {
		return j + 1 // \s*[\r\n]+ ends after the run's last newline
	}
	return wsTail(t, p, e)
}
