package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestProfileEndpoints(t *testing.T) {
	s := mustNew(t, testConfig())
	for _, path := range []string{"/start_profile", "/stop_profile", "/start_profile"} {
		if rec := call(t, s, "POST", path, ""); rec.status != 200 || rec.body.Len() != 0 {
			t.Errorf("POST %s: status %d, body %q", path, rec.status, rec.body.String())
		}
	}
	if rec := call(t, s, "GET", "/start_profile", ""); rec.status != 405 {
		t.Errorf("GET /start_profile: status %d, want 405", rec.status)
	}
	if starts, stops := s.ProfileCalls(); starts != 2 || stops != 1 {
		t.Errorf("calls %d, %d; want 2, 1", starts, stops)
	}

	cfg := testConfig()
	cfg.NoProfiler = true
	off := mustNew(t, cfg)
	if rec := call(t, off, "POST", "/start_profile", ""); rec.status != 404 {
		t.Errorf("without a profiler: status %d, want 404", rec.status)
	}
	if starts, stops := off.ProfileCalls(); starts != 0 || stops != 0 {
		t.Errorf("without a profiler: calls %d, %d", starts, stops)
	}
}

func TestLoRAModules(t *testing.T) {
	cfg := testConfig()
	cfg.LoRAModules = []string{"sql-lora", "chat-lora"}
	s := mustNew(t, cfg)
	rec := call(t, s, "GET", "/v1/models", "")
	var list struct {
		Data []struct {
			ID, Root string
			Parent   *string
		}
	}
	if err := json.Unmarshal(rec.body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 3 || list.Data[0].ID != "sim-model" || list.Data[0].Parent != nil ||
		list.Data[1].ID != "sql-lora" || list.Data[2].ID != "chat-lora" ||
		list.Data[1].Parent == nil || *list.Data[1].Parent != "sim-model" || list.Data[2].Root != "chat-lora" {
		t.Fatalf("models %s", rec.body.String())
	}
	for _, model := range []string{"sim-model", "sql-lora", "chat-lora"} {
		rec := call(t, s, "POST", "/v1/completions", `{"model": "`+model+`", "prompt": "hi", "max_tokens": 2}`)
		if rec.status != 200 || !strings.Contains(rec.body.String(), `"model":"`+model+`"`) {
			t.Errorf("model %s: status %d %s", model, rec.status, rec.body.String())
		}
		rec = call(t, s, "POST", "/v1/completions", `{"model": "`+model+`", "prompt": "hi", "max_tokens": 2, "stream": true}`)
		if rec.status != 200 || !strings.Contains(rec.body.String(), `"model":"`+model+`"`) {
			t.Errorf("model %s, streamed: status %d %s", model, rec.status, rec.body.String())
		}
	}
	if rec := call(t, s, "POST", "/v1/completions", `{"model": "other", "prompt": "hi", "max_tokens": 2}`); rec.status != 404 {
		t.Errorf("unknown model: status %d", rec.status)
	}
	call(t, s, "POST", "/v1/chat/completions", `{"model": "chat-lora", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}`)
	if got := s.LoRARequests(); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("requests per LoRA module %v, want [2 3]", got)
	}

	for _, bad := range [][]string{{""}, {"sim-model"}, {"a", "a"}} {
		cfg.LoRAModules = bad
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "LoRA module names") {
			t.Errorf("LoRA modules %q: err = %v", bad, err)
		}
	}
}
