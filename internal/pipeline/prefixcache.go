package pipeline

import (
	"fmt"

	"github.com/vbench/vbench/internal/promscrape"
	"github.com/vbench/vbench/internal/py"
)

// prefixCacheJSON is the "prefix_cache" member of the result's "vbench"
// object: the hit rate in percent (metrics.KeyPrefixCacheHitRate's path)
// and the token counts it comes from; nil (no key) without statistics.
func prefixCacheJSON(st *promscrape.PrefixCacheStats) any {
	if st == nil {
		return nil
	}
	o := py.NewObject()
	o.Set("hit_rate", st.HitRate)
	o.Set("queried_tokens", st.QueriedTokens)
	o.Set("hit_tokens", st.HitTokens)
	return o
}

// prefixCacheLine is vbench's line after the result block about the
// server's prefix cache; "" without statistics.
func prefixCacheLine(st *promscrape.PrefixCacheStats) string {
	if st == nil {
		return ""
	}
	return fmt.Sprintf("Prefix cache: %s %% hit rate (%d of %d prompt tokens found cached, from the server's /metrics)\n",
		py.Fixed(st.HitRate, 2), st.HitTokens, st.QueriedTokens)
}
