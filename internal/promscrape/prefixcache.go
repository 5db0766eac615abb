package promscrape

// vLLM's prefix-cache counter families, as exposed (with "_total"): the
// prompt tokens looked up in the prefix cache and those found cached.
const (
	FamPrefixCacheQueries = "vllm:prefix_cache_queries_total"
	FamPrefixCacheHits    = "vllm:prefix_cache_hits_total"
)

// PrefixCacheStats is the prefix-cache hit rate of a run, from vLLM's
// counters (beyond vLLM's client, which does not report it).
type PrefixCacheStats struct {
	// QueriedTokens and HitTokens are the counter deltas over the run,
	// summed over engines and models.
	QueriedTokens, HitTokens int64
	// HitRate is 100 · HitTokens / QueriedTokens.
	HitRate float64
}

// PrefixCache computes the prefix-cache hit rate between the scrapes
// before and after the timed phase: Δhits / Δqueries over every label set
// (engines, models), the families read by exact name. It returns nil
// unless both scrapes have both counter families and tokens were queried
// during the run. A series that reset counts from 0; one gone after the
// run is taken as unchanged.
func PrefixCache(before, after *Snapshot) *PrefixCacheStats {
	for _, s := range []*Snapshot{before, after} {
		if s.Family(FamPrefixCacheQueries, Counter) == nil || s.Family(FamPrefixCacheHits, Counter) == nil {
			return nil
		}
	}
	d := Diff(before, after)
	st := &PrefixCacheStats{QueriedTokens: sumInt(d, FamPrefixCacheQueries), HitTokens: sumInt(d, FamPrefixCacheHits)}
	if st.QueriedTokens <= 0 || st.HitTokens < 0 {
		return nil
	}
	st.HitRate = 100 * float64(st.HitTokens) / float64(st.QueriedTokens)
	return st
}
