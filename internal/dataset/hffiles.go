package dataset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vbench/vbench/internal/hub"
)

// hfRepo is where an hf dataset's files are: a Hub dataset repository
// (through the Hugging Face cache) or a local directory.
type hfRepo interface {
	// Files returns every file name, '/'-separated and sorted.
	Files() []string
	// Local returns the local path of a file, downloading it if needed.
	Local(ctx context.Context, name string) (string, error)
	// String names the repository in messages.
	String() string
	// Display names one of its files in messages.
	Display(name string) string
}

// hubRepo is a Hub dataset repository at one commit.
type hubRepo struct {
	client  *hub.Client
	id      string
	listing hub.Listing
}

func (r *hubRepo) Files() []string { return r.listing.Files }

func (r *hubRepo) Local(ctx context.Context, name string) (string, error) {
	return r.client.DownloadDataset(ctx, r.id, r.listing.Commit, name)
}

func (r *hubRepo) Display(name string) string { return r.id + "/" + name }

func (r *hubRepo) String() string {
	return "Hub dataset " + r.id + "@" + r.listing.Commit[:min(12, len(r.listing.Commit))]
}

// dirRepo is a local directory laid out as a dataset repository.
type dirRepo struct {
	dir   string
	files []string
}

func (r *dirRepo) Files() []string { return r.files }

func (r *dirRepo) Local(_ context.Context, name string) (string, error) {
	return filepath.Join(r.dir, filepath.FromSlash(name)), nil
}

func (r *dirRepo) String() string { return r.dir }

func (r *dirRepo) Display(name string) string { return filepath.Join(r.dir, filepath.FromSlash(name)) }

// fileRepo is a single data file.
type fileRepo struct{ path string }

func (r *fileRepo) Files() []string { return []string{filepath.Base(r.path)} }

func (r *fileRepo) Local(context.Context, string) (string, error) { return r.path, nil }

func (r *fileRepo) String() string { return r.path }

func (r *fileRepo) Display(string) string { return r.path }

// openDirRepo lists the files under dir.
func openDirRepo(dir string) (*dirRepo, error) {
	r := &dirRepo{dir: dir}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		r.files = append(r.files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(r.files)
	return r, nil
}

// hfSplit is the resolved data of one split.
type hfSplit struct {
	// Subset is the subset (config) read, "" for a dataset without any.
	Subset string
	// Split is the split read.
	Split string
	// Format is the reader: "parquet" or "json" (JSON and JSON Lines).
	Format string
	// Files are the split's data files in the datasets library's order.
	Files []string
}

// describe says how many files of which format the split has.
func (s hfSplit) describe() string {
	format := "parquet"
	if s.Format == "json" {
		format = "JSON"
	}
	if len(s.Files) == 1 {
		return "1 " + format + " file"
	}
	return fmt.Sprintf("%d %s files", len(s.Files), format)
}

// The split names the datasets library finds by keyword in file and
// directory names, in its order (data_files.py's SPLIT_KEYWORDS).
var hfSplitKeywords = []struct {
	split    string
	keywords []string
}{
	{"train", []string{"train", "training"}},
	{"validation", []string{"validation", "valid", "dev", "val"}},
	{"test", []string{"test", "testing", "eval", "evaluation"}},
}

// hfSep is the datasets library's NON_WORDS_CHARS as a glob class.
const hfSep = "[-._ 0-9]"

// hfIgnored are the file names the datasets library never takes as data.
var hfIgnored = []string{"README.md", "config.json", "dataset_info.json", "dataset_infos.json", "dummy_data.zip", "dataset_dict.json"}

// hfDataExts are the file extensions that count when the datasets library
// infers a split's format from its files (a part of its allowed
// extensions; others are not data files to vbench). The formats vbench
// reads are parquet and json.
var hfDataExts = map[string]string{
	"parquet": "parquet", "json": "json", "jsonl": "json",
	"csv": "csv", "tsv": "csv", "txt": "text", "arrow": "arrow", "lance": "lance",
	"png": "imagefolder", "jpg": "imagefolder", "jpeg": "imagefolder", "webp": "imagefolder", "gif": "imagefolder", "bmp": "imagefolder", "tif": "imagefolder", "tiff": "imagefolder",
	"wav": "audiofolder", "mp3": "audiofolder", "flac": "audiofolder", "ogg": "audiofolder", "opus": "audiofolder", "m4a": "audiofolder",
	"mp4": "videofolder", "avi": "videofolder", "mkv": "videofolder", "mov": "videofolder", "webm": "videofolder",
	"pdf": "pdffolder", "h5": "hdf5", "hdf5": "hdf5", "xml": "xml", "eval": "eval", "zip": "zip", "tar": "webdataset",
}

// hfPreferred breaks a tie between extensions as the datasets library
// does (parquet first).
var hfPreferred = []string{"parquet", "lance", "arrow", "jsonl", "json", "csv"}

// hfConfig is one entry of a dataset card's "configs" (README.md's YAML
// header): a subset and its data files by split.
type hfConfig struct {
	Name      string `yaml:"config_name"`
	DataFiles any    `yaml:"data_files"`
	DataDir   string `yaml:"data_dir"`
	Default   bool   `yaml:"default"`
}

// readCardConfigs returns the "configs" of the dataset card at p (nil
// when the card has no YAML header or no configs).
func readCardConfigs(p string) ([]hfConfig, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, nil
	}
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, nil
	}
	var card struct {
		Configs []hfConfig `yaml:"configs"`
	}
	if err := yaml.Unmarshal(rest[:end+1], &card); err != nil {
		return nil, fmt.Errorf("README.md: the YAML header: %w", err)
	}
	for i := range card.Configs {
		if card.Configs[i].Name == "" {
			card.Configs[i].Name = "default"
		}
	}
	return card.Configs, nil
}

// resolveHFSplit finds the data files of the subset and split as the
// datasets library's load_dataset does for a repository without a loading
// script:
//
//  1. The dataset card's "configs" (README.md's YAML header), if any: the
//     subset is the config named so, else the default one (default: true,
//     else "default", else the only one); its data_files give each split's
//     file patterns (data_dir, without data_files, the directory the
//     default patterns look in).
//  2. Otherwise, the default patterns, first matching group wins:
//     data/<split>-NNNNN-of-NNNNN*.*, then a split keyword as a directory
//     name (train/..., test-*/...), then as a file name part (train.jsonl,
//     my_test.parquet), then every file as "train". With a subset, they
//     look in the subset's directory (the Hub's parquet conversion lays
//     out <subset>/<split>/NNNN.parquet, push_to_hub <subset>/<split>-*),
//     and a split named other than train, validation or test is its own
//     keyword.
//
// An empty split picks one: "train" if the dataset has it, else test,
// else validation, else the first found. The split's format is the most
// common data file extension (parquet winning a tie); its files are those
// of that format, each pattern's matches sorted, in pattern order (a file
// two patterns match is read twice, as the library reads it).
func resolveHFSplit(ctx context.Context, r hfRepo, subset, split string) (hfSplit, error) {
	files := r.Files()
	var configs []hfConfig
	if slices.Contains(files, "README.md") {
		p, err := r.Local(ctx, "README.md")
		if err != nil {
			return hfSplit{}, fmt.Errorf("%s: the dataset card: %w", r, err)
		}
		if configs, err = readCardConfigs(p); err != nil {
			return hfSplit{}, fmt.Errorf("%s: %w", r, err)
		}
	}
	var splits map[string][]string // split → patterns
	var order []string             // the splits, in order
	base := ""
	if len(configs) > 0 {
		c, err := pickConfig(configs, subset)
		if err != nil {
			return hfSplit{}, fmt.Errorf("%s: %w", r, err)
		}
		subset = c.Name
		base = strings.Trim(c.DataDir, "/")
		if c.DataFiles != nil {
			if splits, order, err = configPatterns(c.DataFiles); err != nil {
				return hfSplit{}, fmt.Errorf("%s: README.md: config %q: data_files: %w", r, c.Name, err)
			}
		}
	} else if subset != "" && subset != "default" {
		base = subset
		if !slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, subset+"/") }) {
			return hfSplit{}, fmt.Errorf("%s has no subset %q: its card declares no subsets (configs) and it has no %s/ directory", r, subset, subset)
		}
	}
	candidates := dataFiles(files, base)
	if splits == nil {
		splits, order = defaultPatterns(candidates, base, split)
	}
	if len(order) == 0 {
		return hfSplit{}, fmt.Errorf("%s has no data files%s (looked for parquet, JSON, JSON Lines, CSV... files)", r, inDir(base))
	}
	if split == "" {
		split = order[0]
		for _, s := range []string{"train", "test", "validation"} {
			if _, ok := splits[s]; ok {
				split = s
				break
			}
		}
	}
	patterns, ok := splits[split]
	if !ok {
		return hfSplit{}, fmt.Errorf("%s has no split %q%s (splits: %s)", r, split, inSubset(subset), strings.Join(order, ", "))
	}
	var matched []string
	for _, p := range patterns {
		re, err := globRegexp(path.Join(base, p))
		if err != nil {
			return hfSplit{}, fmt.Errorf("%s: split %q: pattern %q: %w", r, split, p, err)
		}
		for _, f := range candidates {
			if re.MatchString(f) {
				matched = append(matched, f)
			}
		}
	}
	if len(matched) == 0 {
		return hfSplit{}, fmt.Errorf("%s: split %q%s: no data file matches %s", r, split, inSubset(subset), strings.Join(patterns, ", "))
	}
	format, exts := inferFormat(matched)
	switch format {
	case "parquet", "json":
	default:
		return hfSplit{}, fmt.Errorf("%s: split %q%s is in %s files (.%s), which vbench cannot read: it reads parquet, JSON and JSON Lines", r, split, inSubset(subset), format, exts)
	}
	var out []string
	for _, f := range matched {
		if fileFormat(f) == format {
			out = append(out, f)
		}
	}
	return hfSplit{Subset: subset, Split: split, Format: format, Files: out}, nil
}

func inSubset(subset string) string {
	if subset == "" {
		return ""
	}
	return fmt.Sprintf(" in subset %q", subset)
}

func inDir(dir string) string {
	if dir == "" {
		return ""
	}
	return " under " + dir + "/"
}

// pickConfig chooses the config for subset ("" for the default one).
func pickConfig(configs []hfConfig, subset string) (hfConfig, error) {
	names := make([]string, len(configs))
	for i, c := range configs {
		names[i] = c.Name
	}
	if subset != "" {
		for _, c := range configs {
			if c.Name == subset {
				return c, nil
			}
		}
		return hfConfig{}, fmt.Errorf("no subset %q (--hf-subset): its subsets are %s", subset, strings.Join(names, ", "))
	}
	for _, c := range configs {
		if c.Default {
			return c, nil
		}
	}
	for _, c := range configs {
		if c.Name == "default" {
			return c, nil
		}
	}
	if len(configs) == 1 {
		return configs[0], nil
	}
	return hfConfig{}, fmt.Errorf("the dataset has several subsets and no default: choose one with --hf-subset (%s)", strings.Join(names, ", "))
}

// configPatterns reads a config's data_files: a pattern or a list of them
// (the train split), a list of {split, path}, or a map of split to
// pattern(s).
func configPatterns(v any) (map[string][]string, []string, error) {
	splits := map[string][]string{}
	var order []string
	add := func(split string, p any) error {
		var ps []string
		switch p := p.(type) {
		case string:
			ps = []string{p}
		case []any:
			for _, e := range p {
				s, ok := e.(string)
				if !ok {
					return fmt.Errorf("split %q: expected a path or a list of paths, found %v", split, e)
				}
				ps = append(ps, s)
			}
		default:
			return fmt.Errorf("split %q: expected a path or a list of paths, found %v", split, p)
		}
		if _, ok := splits[split]; !ok {
			order = append(order, split)
		}
		splits[split] = append(splits[split], ps...)
		return nil
	}
	switch v := v.(type) {
	case string:
		return splits, order, add("train", v)
	case []any:
		for _, e := range v {
			switch e := e.(type) {
			case string:
				if err := add("train", e); err != nil {
					return nil, nil, err
				}
			case map[string]any:
				split, _ := e["split"].(string)
				if split == "" {
					return nil, nil, fmt.Errorf("an entry without a split: %v", e)
				}
				if err := add(split, e["path"]); err != nil {
					return nil, nil, err
				}
			default:
				return nil, nil, fmt.Errorf("expected paths or {split, path} entries, found %v", e)
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := add(k, v[k]); err != nil {
				return nil, nil, err
			}
		}
	default:
		return nil, nil, fmt.Errorf("expected a path, a list or a map, found %v", v)
	}
	return splits, order, nil
}

// dataFiles returns the files under base ("" for all) that can be data
// files: not ignored, hidden or under a "__" directory, with a data
// extension.
func dataFiles(files []string, base string) []string {
	var out []string
	for _, f := range files {
		if base != "" && !strings.HasPrefix(f, base+"/") {
			continue
		}
		parts := strings.Split(f, "/")
		if slices.Contains(hfIgnored, parts[len(parts)-1]) {
			continue
		}
		if slices.ContainsFunc(parts, func(p string) bool { return strings.HasPrefix(p, ".") }) ||
			slices.ContainsFunc(parts[:len(parts)-1], func(p string) bool { return strings.HasPrefix(p, "__") }) {
			continue
		}
		if len(exts(f)) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// exts returns the data extensions among a file name's suffixes.
func exts(name string) []string {
	suffixes := strings.Split(path.Base(name), ".")[1:]
	var out []string
	for _, s := range suffixes {
		if _, ok := hfDataExts[strings.ToLower(s)]; ok {
			out = append(out, strings.ToLower(s))
		}
	}
	return out
}

// fileFormat is the format a file's extensions give (parquet or json win).
func fileFormat(name string) string {
	es := exts(name)
	for _, e := range es {
		if f := hfDataExts[e]; f == "parquet" || f == "json" {
			return f
		}
	}
	if len(es) > 0 {
		return hfDataExts[es[0]]
	}
	return ""
}

// inferFormat is the datasets library's infer_module_for_data_files_list:
// the most common extension's format, parquet winning a tie, then lance,
// arrow, jsonl, json, csv, then the name; it also returns the extension.
func inferFormat(files []string) (format, ext string) {
	count := map[string]int{}
	for _, f := range files {
		for _, e := range exts(f) {
			count[e]++
		}
	}
	keys := make([]string, 0, len(count))
	for e := range count {
		keys = append(keys, e)
	}
	rank := func(e string) int {
		if i := slices.Index(hfPreferred, e); i >= 0 {
			return len(hfPreferred) - i
		}
		return 0
	}
	slices.SortFunc(keys, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		if rank(a) != rank(b) {
			return rank(b) - rank(a)
		}
		return strings.Compare(b, a)
	})
	for _, e := range keys {
		if e == "zip" || e == "tar" {
			continue
		}
		return hfDataExts[e], e
	}
	return "zip", "zip"
}

// defaultPatterns is the datasets library's get_data_patterns over the
// candidate files: the splits of the first pattern group that matches a
// file, with their patterns (relative to the base directory the
// candidates are under, which the caller joins). A split outside the
// keyword lists is its own keyword.
func defaultPatterns(candidates []string, base, split string) (map[string][]string, []string) {
	if len(candidates) == 0 {
		return nil, nil
	}
	rel := make([]string, len(candidates))
	for i, f := range candidates {
		rel[i] = strings.TrimPrefix(f, base+"/")
	}
	// Sharded: data/<split>-NNNNN-of-NNNNN*.*, any split name.
	var found []string
	for _, f := range rel {
		if m := hfSharded.FindStringSubmatch(f); m != nil && !slices.Contains(found, m[1]) {
			found = append(found, m[1])
		}
	}
	if len(found) > 0 {
		splits := map[string][]string{}
		var order []string
		for _, s := range []string{"train", "validation", "test"} {
			if slices.Contains(found, s) {
				order = append(order, s)
			}
		}
		rest := slices.DeleteFunc(slices.Clone(found), func(s string) bool { return slices.Contains(order, s) })
		slices.Sort(rest)
		order = append(order, rest...)
		for _, s := range order {
			splits[s] = []string{"data/" + s + "-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]*.*"}
		}
		return splits, order
	}
	keywords := hfSplitKeywords
	if split != "" && !slices.ContainsFunc(keywords, func(k struct {
		split    string
		keywords []string
	}) bool {
		return k.split == split
	}) {
		keywords = append(slices.Clone(keywords), struct {
			split    string
			keywords []string
		}{split, []string{split}})
	}
	dirPatterns := func(kw string) []string {
		return []string{"**/" + kw + "/**", "**/" + kw + hfSep + "*/**", "**/*" + hfSep + kw + "/**", "**/*" + hfSep + kw + hfSep + "*/**"}
	}
	filePatterns := func(kw string) []string {
		return []string{"**/" + kw + hfSep + "*", "**/*" + hfSep + kw + hfSep + "*"}
	}
	for _, group := range []func(string) []string{dirPatterns, filePatterns} {
		splits := map[string][]string{}
		var order []string
		for _, k := range keywords {
			var ps []string
			for _, kw := range k.keywords {
				ps = append(ps, group(kw)...)
			}
			if anyMatch(rel, ps) {
				splits[k.split] = ps
				order = append(order, k.split)
			}
		}
		if len(order) > 0 {
			return splits, order
		}
	}
	return map[string][]string{"train": {"**"}}, []string{"train"}
}

// hfSharded matches data/<split>-NNNNN-of-NNNNN*.* (the split's name is
// the match's first group).
var hfSharded = regexp.MustCompile(`^data/([^/]+?)-[0-9]{5}-of-[0-9]{5}[^/]*\.[^/]*$`)

// anyMatch reports whether a name matches one of the patterns.
func anyMatch(names []string, patterns []string) bool {
	for _, p := range patterns {
		re, err := globRegexp(p)
		if err != nil {
			continue
		}
		for _, f := range names {
			if re.MatchString(f) {
				return true
			}
		}
	}
	return false
}

// globRegexp compiles a glob as fsspec (2023.12 and later) and Python's
// glob read it against '/'-separated paths: "**" as a whole path part
// matches any number of parts (none included), "*" any run of characters
// but '/', "?" one such character, "[...]" a character class.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	parts := strings.Split(glob, "/")
	for i, p := range parts {
		last := i == len(parts)-1
		if p == "**" {
			switch {
			case last && i == 0:
				b.WriteString(".+")
			case last:
				b.WriteString("/.+")
			case i == 0:
				b.WriteString("(?:.+/)?")
			default:
				b.WriteString("/(?:.+/)?")
			}
			continue
		}
		if i > 0 && parts[i-1] != "**" {
			b.WriteString("/")
		}
		for j := 0; j < len(p); j++ {
			switch c := p[j]; c {
			case '*':
				b.WriteString("[^/]*")
			case '?':
				b.WriteString("[^/]")
			case '[':
				k := strings.IndexByte(p[j+1:], ']')
				if k < 0 {
					return nil, errors.New("unclosed [ in the pattern")
				}
				class := p[j+1 : j+1+k]
				if strings.HasPrefix(class, "!") {
					class = "^" + class[1:]
				}
				b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
				j += k + 1
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
