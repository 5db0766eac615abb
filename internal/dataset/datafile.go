package dataset

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// openDataFile opens the file of a dataset kind that dataset.KIND.path
// (--dataset-path) names. A file that is missing, a directory or
// unreadable is an error naming the field, the file and what it should
// hold (want, e.g. "a CSV with BurstGPT's header"), rather than the
// system call that failed.
func openDataFile(kind, path, want string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("dataset.%s.path (--dataset-path) %s: %v: expected %s", kind, path, err, want)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		_ = f.Close()
		return nil, fmt.Errorf("dataset.%s.path (--dataset-path) %s is a directory: expected %s", kind, path, want)
	}
	return f, nil
}

// readDataFile reads the whole file openDataFile opens.
func readDataFile(kind, path, want string) ([]byte, error) {
	f, err := openDataFile(kind, path, want)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
