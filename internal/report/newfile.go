package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteNewFile writes data to path atomically, as WriteResultFile does, but
// never replaces a file: when path exists it returns an error wrapping
// fs.ErrExist and leaves that file alone. The content goes to a temporary
// file in the same directory, which is synced and then hard-linked to path
// (link fails when path exists, so two writers racing for one name cannot
// both win). Where hard links are not supported the temporary file is
// renamed to path after checking that path does not exist. The parent
// directory is created if missing; the new file gets mode 0644.
func WriteNewFile(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create result directory: %w", err)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary result file: %w", err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // after a link, the name at path stays
	if _, err = tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write result file: %w", err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("set result file mode: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync result file: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close result file: %w", err)
	}
	if lerr := os.Link(tmpName, path); lerr != nil {
		if errors.Is(lerr, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		// No hard links here (some network and FAT file systems): check,
		// then rename.
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
		if err = os.Rename(tmpName, path); err != nil {
			return fmt.Errorf("rename result file: %w", err)
		}
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// NumberedPath is the k-th candidate name for a result at path: path itself
// for k ≤ 1, else the name with "-k" before its extension
// ("x.json" → "x-2.json").
func NumberedPath(path string, k int) string {
	if k <= 1 {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + strconv.Itoa(k) + ext
}
