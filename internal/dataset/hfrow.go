package dataset

// hfRow is one dataset row: column name to value, decoded as encoding/json decodes into any
// (string, float64, bool, nil, []any, map[string]any); parquet int columns become float64.
type hfRow map[string]any
