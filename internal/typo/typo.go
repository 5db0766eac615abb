// Package typo finds what a mistyped name was meant to be: the one home of
// vbench's "did you mean" suggestions (flags, metric keys, tokenizer
// names). It imports nothing from vbench.
package typo

// Distance is the optimal string alignment distance between a and b, by
// bytes: the fewest insertions, deletions, substitutions and transpositions
// of adjacent bytes that turn a into b (no substring edited twice).
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to word by Distance when it is at
// most maxDist edits away (the first of equally near ones), else "".
func Closest(word string, candidates []string, maxDist int) string {
	best, bestDist := "", maxDist+1
	for _, c := range candidates {
		if d := Distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
