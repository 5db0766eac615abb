// Package hostmem says how much memory this machine leaves a process: the
// kernel's MemAvailable (read with github.com/prometheus/procfs) or, when
// it is less, what is left under the process's cgroup memory limit.
package hostmem

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// Available returns the memory a process may use and where the figure
// comes from: MemAvailable of procDir's meminfo, or what is left under the
// cgroup at cgroupRoot (v2 memory.max − memory.current, or v1
// memory/memory.limit_in_bytes − memory.usage_in_bytes) when that is
// less. ok is false when neither can be read (not Linux).
func Available(procDir, cgroupRoot string) (avail uint64, source string, ok bool) {
	if fs, err := procfs.NewFS(procDir); err == nil {
		if mi, err := fs.Meminfo(); err == nil && mi.MemAvailable != nil {
			avail, source, ok = *mi.MemAvailable*1024, "MemAvailable in "+filepath.Join(procDir, "meminfo"), true
		}
	}
	limit, used, cgFile, cgOK := cgroupMemory(cgroupRoot)
	if cgOK {
		left := uint64(0)
		if limit > used {
			left = limit - used
		}
		if !ok || left < avail {
			avail, source, ok = left, fmt.Sprintf("the cgroup limit of %s (%s) less %s in use", FormatBytes(float64(limit)), cgFile, FormatBytes(float64(used))), true
		}
	}
	return avail, source, ok
}

// cgroupMemory returns the memory limit and use of the process's cgroup:
// cgroup v2 at root, else v1 under root/memory. ok is false when there is
// no limit ("max", or v1's huge sentinel) or no cgroup file.
func cgroupMemory(root string) (limit, used uint64, file string, ok bool) {
	read := func(name string) (uint64, bool) {
		b, err := os.ReadFile(root + "/" + name)
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return n, err == nil
	}
	for _, files := range [][2]string{
		{"memory.max", "memory.current"},
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"},
	} {
		l, lok := read(files[0])
		if !lok {
			continue
		}
		// cgroup v1 reports "no limit" as a page-rounded MaxInt64.
		if l >= math.MaxInt64/2 {
			return 0, 0, "", false
		}
		u, _ := read(files[1])
		return l, u, root + "/" + files[0], true
	}
	return 0, 0, "", false
}

// FormatBytes writes n in binary units: "512 B", "3.2 GiB".
func FormatBytes(n float64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%.0f B", n)
	}
	exp := 0
	for n >= unit && exp < 6 {
		n /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", n, "KMGTPE"[exp-1])
}
