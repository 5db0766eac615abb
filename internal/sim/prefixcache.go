package sim

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// PrefixBlockSize is the number of tokens in one block of the simulator's
// prefix cache (vLLM's default KV block size).
const PrefixBlockSize = 16

// DefaultPrefixCacheBlocks is the prefix cache's capacity in blocks when
// `vbench sim` and DefaultConfig are not told otherwise: 65536 blocks of
// 16 tokens, a 1M-token KV cache.
const DefaultPrefixCacheBlocks = 65536

// prefixCache is the simulator's prefix cache: vLLM's automatic prefix
// caching reduced to its bookkeeping. A prompt's full blocks of
// PrefixBlockSize tokens are keyed by a chained hash (each block's hash
// covers its tokens and its parent's hash, so a block matches only after
// the same whole prefix); a prompt hits its longest run of cached leading
// blocks, as vLLM's find_longest_cache_hit does, at most its length less
// one token rounded down to a block, then its blocks become the most
// recently used, and the least recently used are evicted beyond capacity.
// It counts vLLM's prefix-cache queries (prompt tokens looked up) and hits
// (tokens found cached), and the KV blocks that running requests hold,
// for vllm:kv_cache_usage_perc. Work is per request, never per token.
type prefixCache struct {
	capacity int
	created  string // the counters' _created timestamp, as written

	mu    sync.Mutex
	index map[uint64]int32 // block hash → node
	nodes []lruNode        // nodes[0] is the list head (a sentinel)
	free  []int32

	queries, hits atomic.Uint64
	inUse         atomic.Int64 // KV blocks held by running requests
}

// lruNode is one cached block in the recency list.
type lruNode struct {
	hash       uint64
	prev, next int32
}

// newPrefixCache returns a cache of capacity blocks, nil when capacity is
// 0 (no prefix caching, no counters).
func newPrefixCache(capacity int, start time.Time) *prefixCache {
	if capacity <= 0 {
		return nil
	}
	c := &prefixCache{
		capacity: capacity,
		created:  strconv.FormatFloat(float64(start.UnixNano())/1e9, 'e', -1, 64),
		index:    map[uint64]int32{},
		nodes:    make([]lruNode, 1, min(capacity, 1<<16)+1),
	}
	return c
}

// blockHash chains one block's tokens onto its parent's hash (FNV-1a over
// the parent hash and the token ids, then a final mix).
func blockHash(parent uint64, block []int) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037) ^ parent
	h *= prime
	for _, id := range block {
		h ^= uint64(id)
		h *= prime
	}
	return mix64(h)
}

// lookup counts a prompt's query and hit, makes its full blocks the most
// recently used (inserting those not cached) and returns the tokens hit.
func (c *prefixCache) lookup(ids []int) int {
	if c == nil {
		return 0
	}
	n := len(ids)
	maxHit := max(n-1, 0) / PrefixBlockSize // blocks a hit may cover
	hit, matching := 0, true
	var h uint64
	c.mu.Lock()
	for b := 0; b+PrefixBlockSize <= n; b += PrefixBlockSize {
		h = blockHash(h, ids[b:b+PrefixBlockSize])
		i, ok := c.index[h]
		if ok {
			c.unlink(i)
		} else {
			matching = false
			i = c.alloc(h)
		}
		c.pushFront(i)
		if matching && hit < maxHit {
			hit++
		}
	}
	c.mu.Unlock()
	c.queries.Add(uint64(n))
	c.hits.Add(uint64(hit * PrefixBlockSize))
	return hit * PrefixBlockSize
}

// alloc returns a node for a new block h, evicting the least recently
// used block when the cache is full. Called with mu held.
func (c *prefixCache) alloc(h uint64) int32 {
	var i int32
	switch {
	case len(c.free) > 0:
		i = c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
	case len(c.nodes)-1 < c.capacity:
		c.nodes = append(c.nodes, lruNode{})
		i = int32(len(c.nodes) - 1)
	default:
		i = c.nodes[0].prev // the least recently used
		c.unlink(i)
		delete(c.index, c.nodes[i].hash)
	}
	c.nodes[i].hash = h
	c.index[h] = i
	return i
}

// unlink takes node i out of the list. Called with mu held.
func (c *prefixCache) unlink(i int32) {
	n := &c.nodes[i]
	c.nodes[n.prev].next = n.next
	c.nodes[n.next].prev = n.prev
}

// pushFront makes node i the most recently used. Called with mu held.
func (c *prefixCache) pushFront(i int32) {
	head := &c.nodes[0]
	c.nodes[i].prev, c.nodes[i].next = 0, head.next
	c.nodes[head.next].prev = i
	head.next = i
}

// reset empties the cache (vLLM's /reset_prefix_cache); the counters
// keep counting.
func (c *prefixCache) reset() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.index)
	c.nodes = c.nodes[:1]
	c.nodes[0] = lruNode{}
	c.free = c.free[:0]
}

// cached returns the number of cached blocks.
func (c *prefixCache) cached() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.index)
}

// hold counts the KV blocks a request holds while it runs: those of its
// prompts and planned outputs; release with -blocks.
func (c *prefixCache) hold(blocks int) {
	if c != nil {
		c.inUse.Add(int64(blocks))
	}
}

// usage is vllm:kv_cache_usage_perc: the share of the cache's blocks that
// running requests hold, at most 1.
func (c *prefixCache) usage() float64 {
	return min(float64(c.inUse.Load())/float64(c.capacity), 1)
}

// kvBlocks is the number of KV blocks a sequence of n tokens fills.
func kvBlocks(n int) int { return (n + PrefixBlockSize - 1) / PrefixBlockSize }

// PrefixCacheStats are the simulator's prefix-cache counters.
type PrefixCacheStats struct {
	// Queries is vllm:prefix_cache_queries: prompt tokens looked up.
	Queries uint64
	// Hits is vllm:prefix_cache_hits: prompt tokens found cached.
	Hits uint64
	// CachedBlocks is the number of blocks in the cache now.
	CachedBlocks int
}

// stats returns the counters (zero without a cache).
func (c *prefixCache) stats() PrefixCacheStats {
	if c == nil {
		return PrefixCacheStats{}
	}
	return PrefixCacheStats{Queries: c.queries.Load(), Hits: c.hits.Load(), CachedBlocks: c.cached()}
}

// write writes vLLM's KV-cache usage gauge and prefix-cache counters as
// Python's prometheus_client does (each counter's _total sample followed
// by its _created timestamp).
func (c *prefixCache) write(b *bytes.Buffer, labels string) {
	if c == nil {
		return
	}
	b.WriteString("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n# TYPE vllm:kv_cache_usage_perc gauge\n")
	b.WriteString("vllm:kv_cache_usage_perc{" + labels + "} " + formatPyFloat(c.usage()) + "\n")
	counter := func(name, help string, v uint64) {
		b.WriteString("# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n")
		b.WriteString(name + "_total{" + labels + "} " + strconv.FormatUint(v, 10) + ".0\n")
		b.WriteString(name + "_created{" + labels + "} " + c.created + "\n")
	}
	counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", c.queries.Load())
	counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", c.hits.Load())
}
