package scenario

import (
	"encoding/json"
	"math"
	"strings"
)

// dsValue returns the value at path (dotted, from the kind's name: e.g.
// "random.input_len") of the scenario's dataset section as JSON decodes it,
// nil when absent: this package's tests see a kind's settings as the
// scenario writes them, not as package dataset's Go types.
func dsValue(s *Scenario, path string) any {
	data, err := json.Marshal(s.Dataset)
	if err != nil {
		return nil
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	for _, label := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[label]
	}
	return v
}

// dsNum is dsValue's number, NaN when it is not one.
func dsNum(s *Scenario, path string) float64 {
	if f, ok := dsValue(s, path).(float64); ok {
		return f
	}
	return math.NaN()
}

// dsStr is dsValue's string, "" when it is not one.
func dsStr(s *Scenario, path string) string {
	str, _ := dsValue(s, path).(string)
	return str
}
