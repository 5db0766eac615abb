package hostmem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadAvailableMemory(t *testing.T) {
	meminfo := "MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n"
	for _, tc := range []struct {
		name   string
		files  map[string]string
		want   uint64
		source string
		wantOK bool
	}{
		{"meminfo only", map[string]string{"meminfo": meminfo}, 20000000 * 1024, "MemAvailable", true},
		{"cgroup v2 below meminfo", map[string]string{"meminfo": meminfo, "cg/memory.max": "3221225472\n", "cg/memory.current": "1073741824\n"},
			2 << 30, "the cgroup limit of 3.0 GiB", true},
		{"cgroup v2 without limit", map[string]string{"meminfo": meminfo, "cg/memory.max": "max\n", "cg/memory.current": "1073741824\n"},
			20000000 * 1024, "MemAvailable", true},
		{"cgroup v2 above meminfo", map[string]string{"meminfo": meminfo, "cg/memory.max": "64424509440\n", "cg/memory.current": "0\n"},
			20000000 * 1024, "MemAvailable", true},
		{"cgroup v1", map[string]string{"meminfo": meminfo, "cg/memory/memory.limit_in_bytes": "1073741824\n", "cg/memory/memory.usage_in_bytes": "2147483648\n"},
			0, "memory.limit_in_bytes", true},
		{"cgroup v1 without limit", map[string]string{"cg/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0, "", false},
		{"nothing", nil, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, source, ok := Available(dir, filepath.Join(dir, "cg"))
			if ok != tc.wantOK || got != tc.want || !strings.Contains(source, tc.source) {
				t.Errorf("got %d, %q, %v; want %d, %q, %v", got, source, ok, tc.want, tc.source, tc.wantOK)
			}
		})
	}
}
