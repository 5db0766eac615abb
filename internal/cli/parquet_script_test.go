package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/rogpeppe/go-internal/testscript"
)

// chatMessage and chatRow are the parquet schema chatparquet writes: a
// chat dataset as the Hub's parquet files hold one.
type chatMessage struct {
	Role    string `parquet:"role" json:"role"`
	Content string `parquet:"content" json:"content"`
}

type chatRow struct {
	ID       string        `parquet:"id" json:"id"`
	Messages []chatMessage `parquet:"messages,list" json:"messages"`
}

// chatparquet IN.jsonl OUT.parquet writes the JSON lines of IN, each
// {"id": ..., "messages": [{"role": ..., "content": ...}, ...]}, as a
// snappy-compressed parquet file, in row groups of 4 rows.
func chatparquet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: chatparquet IN.jsonl OUT.parquet")
	}
	in, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var rows []chatRow
	sc := bufio.NewScanner(bytes.NewReader(in))
	for sc.Scan() {
		var r chatRow
		ts.Check(json.Unmarshal(sc.Bytes(), &r))
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[chatRow](&buf, parquet.Compression(&parquet.Snappy))
	for start := 0; start < len(rows); start += 4 {
		_, err := w.Write(rows[start:min(start+4, len(rows))])
		ts.Check(err)
		ts.Check(w.Flush())
	}
	ts.Check(w.Close())
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), buf.Bytes(), 0o644))
}
