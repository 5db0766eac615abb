package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// fileConv is one conversation read from a ShareGPT-style file: its user
// turns and, for each, the answer the file holds ("" when none follows).
type fileConv struct {
	users, answers []string
}

// convFileWant is what a conversations file holds, for errors.
const convFileWant = `a ShareGPT-style JSON list of {"conversations": [{"from": "human", "value": ...}, {"from": "gpt", "value": ...}, ...]}`

// readConversationFile reads the conversations of a ShareGPT-style JSON
// file: each entry's "conversations" list of {"from", "value"} messages
// ("role"/"content" also read), whose user messages ("human", "user") are
// the turns, each answered by the assistant message ("gpt", "assistant",
// "chatgpt", "bard", "bing", "model") right after it, if any. System
// messages and entries without a user message are skipped.
func readConversationFile(path string) ([]fileConv, error) {
	data, err := readDataFile("conversations", path, convFileWant)
	if err != nil {
		return nil, err
	}
	var entries []struct {
		Conversations []struct {
			From    string  `json:"from"`
			Value   *string `json:"value"`
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &entries); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%s:%s: invalid JSON (%v): expected %s", path, lineCol(data, se.Offset), err, convFileWant)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%s:%s: %s is %s, not %s: expected %s", path, lineCol(data, te.Offset), fieldOr(te.Field, "the file"), te.Value, te.Type, convFileWant)
		}
		return nil, fmt.Errorf("%s: %v: expected %s", path, err, convFileWant)
	}
	var out []fileConv
	for _, e := range entries {
		var c fileConv
		for _, m := range e.Conversations {
			role, text := strings.ToLower(m.From), m.Value
			if role == "" {
				role, text = strings.ToLower(m.Role), m.Content
			}
			if text == nil {
				continue
			}
			switch role {
			case "human", "user":
				c.users = append(c.users, *text)
				c.answers = append(c.answers, "")
			case "gpt", "assistant", "chatgpt", "bard", "bing", "model":
				if n := len(c.answers); n > 0 && c.answers[n-1] == "" {
					c.answers[n-1] = *text
				}
			}
		}
		if len(c.users) > 0 {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no entry has a user message: expected %s", path, convFileWant)
	}
	return out, nil
}

// fieldOr is a JSON field path for an error, or def when it is empty.
func fieldOr(field, def string) string {
	if field == "" {
		return def
	}
	return "field " + field
}
