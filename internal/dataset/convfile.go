package dataset

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// fileConv is one conversation read from a ShareGPT-style file: its user
// turns and, for each, the answer the file holds ("" when none follows).
type fileConv struct {
	users, answers []string
}

// convFileWant is what a conversations file holds, for errors.
const convFileWant = `ShareGPT-style rows {"conversations": [{"from": "human", "value": ...}, {"from": "gpt", "value": ...}, ...]} in a JSON list, JSON Lines or parquet`

// readConversationFile reads the conversations of a ShareGPT-style file
// (a local path, or a Hub dataset file "org/name/file", or the ShareGPT
// dataset's id alone for its file, as for the sharegpt kind):
// a JSON list or JSON Lines (compressed or not) or a parquet file, as the
// hf dataset readers read them (a local copy of ShareGPT_Vicuna, say),
// whose rows have a "conversations" list of {"from", "value"} messages
// ("role"/"content" also read). The user messages ("human", "user") are
// the turns, each answered by the assistant message ("gpt", "assistant",
// "chatgpt", "bard", "bing", "model") right after it, if any. System
// messages and rows without a user message are skipped.
func readConversationFile(path string) ([]fileConv, error) {
	// A Hub dataset file (org/name/file) is downloaded into the cache.
	path, err := resolveHubFile(context.Background(), "conversations", path)
	if err != nil {
		return nil, err
	}
	f, err := openDataFile("conversations", path, convFileWant)
	if err != nil {
		return nil, err
	}
	_ = f.Close()
	rows := readJSONRows(context.Background(), path, path)
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		rows = readParquetRows(context.Background(), path, path)
	}
	var out []fileConv
	n := 0
	for row, err := range rows {
		if err != nil {
			return nil, fmt.Errorf("%w: expected %s", err, convFileWant)
		}
		n++
		msgs, ok := row["conversations"].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: row %d: \"conversations\" is %s, not a list of messages: expected %s", path, n, describe(row["conversations"]), convFileWant)
		}
		var c fileConv
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			role, _ := mm["from"].(string)
			text, ok := mm["value"].(string)
			if role == "" {
				role, _ = mm["role"].(string)
				text, ok = mm["content"].(string)
			}
			if !ok {
				continue
			}
			switch strings.ToLower(role) {
			case "human", "user":
				c.users = append(c.users, text)
				c.answers = append(c.answers, "")
			case "gpt", "assistant", "chatgpt", "bard", "bing", "model":
				if k := len(c.answers); k > 0 && c.answers[k-1] == "" {
					c.answers[k-1] = text
				}
			}
		}
		if len(c.users) > 0 {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no row has a user message: expected %s", path, convFileWant)
	}
	return out, nil
}

// describe names a JSON value's kind for errors.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "missing"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	}
	return "a number"
}
