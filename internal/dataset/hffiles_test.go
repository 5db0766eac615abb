package dataset

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestGlobRegexp(t *testing.T) {
	for _, tc := range []struct {
		glob  string
		match []string
		not   []string
	}{
		{"**", []string{"a", "a/b.json"}, nil},
		{"**/train/**", []string{"train/a.json", "x/train/y/a.json"}, []string{"train.json", "xtrain/a.json"}},
		{"**/train[-._ 0-9]*", []string{"train.json", "d/train-0.parquet", "train_x.jsonl"}, []string{"trainer.json", "d/train/a.json"}},
		{"**/*[-._ 0-9]test[-._ 0-9]*", []string{"my_test.json", "d/x-test.parquet"}, []string{"test.json", "latest.json"}},
		{"data/train-*", []string{"data/train-00000-of-00001.parquet"}, []string{"data/x/train-0.parquet", "train-0.parquet"}},
		{"a/**/b.json", []string{"a/b.json", "a/x/y/b.json"}, []string{"b.json"}},
		{"f?.json", []string{"f1.json"}, []string{"f12.json"}},
		{"[!x]*.json", []string{"a.json"}, []string{"xa.json"}},
	} {
		re, err := globRegexp(tc.glob)
		if err != nil {
			t.Fatalf("%s: %v", tc.glob, err)
		}
		for _, m := range tc.match {
			if !re.MatchString(m) {
				t.Errorf("%s does not match %s", tc.glob, m)
			}
		}
		for _, m := range tc.not {
			if re.MatchString(m) {
				t.Errorf("%s matches %s", tc.glob, m)
			}
		}
	}
	if _, err := globRegexp("a[b"); err == nil {
		t.Error("an unclosed [ compiles")
	}
}

const twoConfigsCard = `---
license: mit
configs:
- config_name: main
  data_files:
  - split: train
    path: main/train-*
  - split: test
    path: main/test-*
- config_name: socratic
  data_files:
  - split: train
    path: socratic/train-*
---
# GSM8K-like
`

func TestResolveHFSplit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		files         map[string]string
		subset, split string
		want          hfSplit
		err           string
	}{
		{name: "sharded", files: map[string]string{"data/train-00001-of-00002.parquet": "", "data/train-00000-of-00002.parquet": "", "data/test-00000-of-00001.parquet": "", "README.md": "# no header\n"},
			want: hfSplit{Split: "train", Format: "parquet", Files: []string{"data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet"}}},
		{name: "sharded test", files: map[string]string{"data/train-00000-of-00001.parquet": "", "data/test-00000-of-00001.parquet": ""}, split: "test",
			want: hfSplit{Split: "test", Format: "parquet", Files: []string{"data/test-00000-of-00001.parquet"}}},
		{name: "sharded unknown split", files: map[string]string{"data/train-00000-of-00001.parquet": "", "data/test-00000-of-00001.parquet": ""}, split: "validation",
			err: `has no split "validation" (splits: train, test)`},
		{name: "file names", files: map[string]string{"train.jsonl": "", "test.jsonl": "", "LICENSE": "", ".hidden/train.json": ""}, split: "test",
			want: hfSplit{Split: "test", Format: "json", Files: []string{"test.jsonl"}}},
		{name: "dir names", files: map[string]string{"train/a.json": "", "train/b.json": "", "validation/a.json": ""}, split: "",
			want: hfSplit{Split: "train", Format: "json", Files: []string{"train/a.json", "train/b.json"}}},
		{name: "all files", files: map[string]string{"prompts.json": "", "more/p2.jsonl": ""},
			want: hfSplit{Split: "train", Format: "json", Files: []string{"more/p2.jsonl", "prompts.json"}}},
		{name: "test only", files: map[string]string{"test.parquet": ""},
			want: hfSplit{Split: "test", Format: "parquet", Files: []string{"test.parquet"}}},
		{name: "card configs", files: map[string]string{"README.md": twoConfigsCard, "main/train-00000-of-00001.parquet": "", "main/test-00000-of-00001.parquet": "", "socratic/train-00000-of-00001.parquet": ""},
			subset: "main", split: "test", want: hfSplit{Subset: "main", Split: "test", Format: "parquet", Files: []string{"main/test-00000-of-00001.parquet"}}},
		{name: "card configs without a subset", files: map[string]string{"README.md": twoConfigsCard, "main/train-00000-of-00001.parquet": ""},
			err: "the dataset has several subsets and no default: choose one with --hf-subset (main, socratic)"},
		{name: "card configs unknown subset", files: map[string]string{"README.md": twoConfigsCard}, subset: "x",
			err: `no subset "x" (--hf-subset): its subsets are main, socratic`},
		{name: "card default", files: map[string]string{"README.md": "---\nconfigs:\n- config_name: a\n  data_files: a/*.jsonl\n- config_name: b\n  default: true\n  data_files:\n  - split: eval\n    path: [b/x.jsonl, b/y.jsonl]\n---\n", "a/1.jsonl": "", "b/x.jsonl": "", "b/y.jsonl": ""},
			want: hfSplit{Subset: "b", Split: "eval", Format: "json", Files: []string{"b/x.jsonl", "b/y.jsonl"}}},
		{name: "parquet export", files: map[string]string{"sub/train/0000.parquet": "", "sub/train/0001.parquet": "", "sub/test_prefs/0000.parquet": "", "other/train/0000.parquet": ""},
			subset: "sub", split: "test_prefs", want: hfSplit{Subset: "sub", Split: "test_prefs", Format: "parquet", Files: []string{"sub/test_prefs/0000.parquet"}}},
		{name: "push_to_hub subset", files: map[string]string{"sub/train-00000-of-00001.parquet": "", "train-00000-of-00001.parquet": ""},
			subset: "sub", want: hfSplit{Subset: "sub", Split: "train", Format: "parquet", Files: []string{"sub/train-00000-of-00001.parquet"}}},
		{name: "no such subset dir", files: map[string]string{"train.json": ""}, subset: "sub", err: `has no subset "sub"`},
		{name: "csv", files: map[string]string{"train.csv": "", "test.csv": ""}, err: `split "train" is in csv files (.csv), which vbench cannot read: it reads parquet, JSON and JSON Lines`},
		{name: "parquet wins a tie", files: map[string]string{"train/a.parquet": "", "train/b.json": ""},
			want: hfSplit{Split: "train", Format: "parquet", Files: []string{"train/a.parquet"}}},
		{name: "no data", files: map[string]string{"README.md": "hi", "LICENSE": ""}, err: "has no data files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, err := openDirRepo(writeFiles(t, t.TempDir(), tc.files))
			if err != nil {
				t.Fatal(err)
			}
			got, err := resolveHFSplit(context.Background(), repo, tc.subset, tc.split)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Subset != tc.want.Subset || got.Split != tc.want.Split || got.Format != tc.want.Format || !slices.Equal(got.Files, tc.want.Files) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
