package sim

import (
	"net/http"
	"sync/atomic"
)

// profileCalls count the calls of vLLM's profiler endpoints.
type profileCalls struct {
	starts, stops atomic.Int64
}

// serveProfile answers POST /start_profile or /stop_profile as vLLM does
// with a profiler configured: 200 with an empty body, counting the call
// in n. With Config.NoProfiler it answers 404, as vLLM does without one
// (the route is not registered), and counts nothing.
func (s *Server) serveProfile(w http.ResponseWriter, n *atomic.Int64) {
	if s.cfg.NoProfiler {
		http.NotFound(w, nil)
		return
	}
	n.Add(1)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// serveCacheReset answers one of vLLM's cache resets (route) with 200 and
// an empty body: /reset_prefix_cache empties the prefix cache; the other
// caches the simulator does not model. Each call is counted.
func (s *Server) serveCacheReset(w http.ResponseWriter, route string) {
	if route == "/reset_prefix_cache" {
		s.metrics.prefix.reset()
	}
	s.resets[route].Add(1)
	if f := s.cfg.OnCacheReset; f != nil {
		f(route)
	}
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// CacheResets returns how many times each cache-reset route was called.
func (s *Server) CacheResets() map[string]int64 {
	m := map[string]int64{}
	for route, n := range s.resets {
		m[route] = n.Load()
	}
	return m
}

// ProfileCalls returns how many times /start_profile and /stop_profile
// were answered with 200.
func (s *Server) ProfileCalls() (starts, stops int64) {
	return s.profile.starts.Load(), s.profile.stops.Load()
}

// countLoRA counts a generation request that named a LoRA module and
// returns the module's index in Config.LoRAModules (-1 for none).
func (s *Server) countLoRA(model string) int {
	for i, name := range s.cfg.LoRAModules {
		if name == model {
			s.lora[i].Add(1)
			return i
		}
	}
	return -1
}

// LoRARequests returns how many generation requests named each of
// Config.LoRAModules, in its order.
func (s *Server) LoRARequests() []int64 {
	out := make([]int64, len(s.lora))
	for i := range s.lora {
		out[i] = s.lora[i].Load()
	}
	return out
}
