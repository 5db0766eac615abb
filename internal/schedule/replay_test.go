package schedule

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A self-timed schedule is the trace times as they are: absolute, not
// re-based to the first one.
func TestReplay(t *testing.T) {
	times := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 1200 * time.Millisecond, 2 * time.Second}
	got, err := Replay(times)
	if err != nil || !slices.Equal(got, times) {
		t.Fatalf("Replay = %v, %v, want %v", got, err, times)
	}
	got[0] = 0
	if times[0] != 500*time.Millisecond {
		t.Error("Replay returned its argument, not a copy")
	}
	if got, err := Replay(nil); err != nil || len(got) != 0 {
		t.Errorf("Replay(nil) = %v, %v", got, err)
	}
	for _, tt := range []struct {
		times []time.Duration
		want  string
	}{
		{[]time.Duration{-1}, "request 0 has a negative trace time"},
		{[]time.Duration{2 * time.Second, time.Second}, "request 1's trace time 1s is before request 0's (2s)"},
	} {
		if _, err := Replay(tt.times); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Replay(%v) = %v, want %q", tt.times, err, tt.want)
		}
	}
}
