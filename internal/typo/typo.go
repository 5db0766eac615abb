// Package typo finds what a mistyped name was meant to be: the one home of
// vbench's "did you mean" suggestions (flags, metric keys, tokenizer
// names). It imports nothing from vbench.
package typo

import (
	"slices"
	"sort"
	"strings"
)

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

// Suggest returns the candidate a mistyped name most likely meant, or "":
// the one candidate that is word with a part added or left off after "_"
// or "-" (p99_ttft_ms for p99_ttft, output_throughput for
// output_throughput_tok), else the nearest at most maxDist edits away.
func Suggest(word string, candidates []string, maxDist int) string {
	extends := func(long, short string) bool {
		return len(long) > len(short) && long[:len(short)] == short && (long[len(short)] == '_' || long[len(short)] == '-')
	}
	if len(word) >= 3 {
		found := ""
		for _, c := range candidates {
			if len(c) >= 3 && (extends(c, word) || extends(word, c)) {
				if found != "" {
					found = ""
					break
				}
				found = c
			}
		}
		if found != "" {
			return found
		}
	}
	return Closest(word, candidates, maxDist)
}

// Nearest returns up to n candidates, the most alike first: those sharing
// more of word's parts (split at "_", "-" and ".") first, then by Distance,
// equally alike ones in candidate order.
func Nearest(word string, candidates []string, n int) []string {
	type scored struct {
		c            string
		shared, dist int
	}
	parts := splitParts(word)
	all := make([]scored, len(candidates))
	for i, c := range candidates {
		shared := 0
		for _, p := range splitParts(c) {
			if slices.Contains(parts, p) {
				shared++
			}
		}
		all[i] = scored{c, shared, Distance(word, c)}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].shared != all[j].shared {
			return all[i].shared > all[j].shared
		}
		return all[i].dist < all[j].dist
	})
	out := make([]string, 0, min(n, len(all)))
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.c)
	}
	return out
}

// splitParts splits a name at "_", "-" and ".".
func splitParts(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
}
