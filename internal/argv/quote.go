package argv

import (
	"errors"
	"fmt"
	"strings"
)

// Quote joins args into a POSIX shell command line: words made only of
// safe characters are written as they are, anything else in single quotes.
// SplitCommandLine(Quote(args)) gives back args.
func Quote(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = quoteWord(a)
	}
	return strings.Join(words, " ")
}

// quoteWord quotes one word for a POSIX shell.
func quoteWord(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// SplitCommandLine splits a shell command line into words as a POSIX shell
// would, for the quoting that command lines in scripts use: blanks separate
// words; single quotes keep everything; double quotes keep everything but
// \" \\ \$ \` and backslash-newline; a backslash outside quotes escapes the
// next character, and backslash-newline joins lines; # at the start of a
// word starts a comment. Expansions ($VAR, `cmd`, globs are not expanded)
// and operators (| ; & < > ( )) are errors: the line must be one plain
// command.
//
// Leading VAR=value words are skipped, and so is the command itself when
// the line starts with one: everything up to and including "bench serve"
// (vllm bench serve, vbench bench serve) or "vbench serve".
func SplitCommandLine(line string) ([]string, error) {
	words, err := splitWords(line)
	if err != nil {
		return nil, err
	}
	return commandArgs(words), nil
}

func splitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			for i+1 < len(line) && line[i+1] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("a backslash ends the command line")
			}
			i++
			if line[i] != '\n' {
				cur.WriteByte(line[i])
				inWord = true
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch d := line[i]; {
				case d == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[i+1]) >= 0:
					i++
					if line[i] != '\n' {
						cur.WriteByte(line[i])
					}
				case d == '$' || d == '`':
					return nil, fmt.Errorf("%c in double quotes: expansions are not supported (use single quotes)", d)
				default:
					cur.WriteByte(d)
				}
			}
			if i >= len(line) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case strings.IndexByte("$`|;&<>()", c) >= 0:
			return nil, fmt.Errorf("%c: shell expansions and operators are not supported (the line must be one plain command; quote the character if it is part of a value)", c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// commandArgs drops leading VAR=value words and the command name, if the
// words start with one.
func commandArgs(words []string) []string {
	rest := words
	for len(rest) > 0 && isAssignment(rest[0]) {
		rest = rest[1:]
	}
	for i, w := range rest {
		if strings.HasPrefix(w, "-") && i == 0 {
			return rest
		}
		if w == "serve" && i > 0 && (rest[i-1] == "bench" || strings.HasSuffix(rest[i-1], "vbench")) {
			return rest[i+1:]
		}
		if i >= 5 {
			break
		}
	}
	return rest
}

// isAssignment reports whether w is a shell variable assignment NAME=value.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
