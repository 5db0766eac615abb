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
