// Package suggest finds the known name closest to a misspelt one, for
// "did you mean" hints in error messages.
package suggest

// Distance is the Levenshtein distance of a and b (bytes).
func Distance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Near is the limit below which a distance counts as a likely typo of
// word: a third of its length, plus one.
func Near(word string) int { return len(word)/3 + 1 }

// Nearest is the candidate closest to word, if it is near enough to be a
// likely typo of it (Near); the first of equally close ones wins.
func Nearest(word string, candidates []string) (string, bool) {
	best, bestD := "", Near(word)
	for _, c := range candidates {
		if d := Distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}
