package promscrape

import "time"

// ServerSample is one reading of the server's load gauges, taken every
// metrics.scrape_interval during the timed phase: vLLM's KV-cache usage and
// its running and waiting request counts, each summed over the server's
// engines (label sets). A gauge the server does not expose is -1.
type ServerSample struct {
	// At is when the scrape's response arrived, on the run's clock (the
	// same zero as record.Record's times).
	At time.Duration `json:"at_ns"`
	// KVCacheUsage is vllm:kv_cache_usage_perc (a fraction in [0, 1]).
	KVCacheUsage float64 `json:"kv_cache_usage"`
	// Running is vllm:num_requests_running.
	Running float64 `json:"running"`
	// Waiting is vllm:num_requests_waiting.
	Waiting float64 `json:"waiting"`
}
