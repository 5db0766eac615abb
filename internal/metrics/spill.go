package metrics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// blob is the storage of one spilled column: a file (unlinked as soon as
// it is made, so that a killed run leaves nothing behind) or, for small
// folds and tests, memory. Both give the same figures.
type blob interface {
	io.ReaderAt
	io.WriterAt
	Close() error
}

// memBlob is a blob in memory.
type memBlob struct {
	mu sync.RWMutex
	b  []byte
}

func (m *memBlob) ReadAt(p []byte, off int64) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memBlob) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if end := off + int64(len(p)); end > int64(len(m.b)) {
		if end > int64(cap(m.b)) {
			nb := make([]byte, end, max(end, 2*int64(cap(m.b))))
			copy(nb, m.b)
			m.b = nb
		}
		m.b = m.b[:end]
	}
	return copy(m.b[off:], p), nil
}

func (m *memBlob) Close() error { m.b = nil; return nil }

// newBlob returns a blob in a new unlinked file in dir, or in memory when
// dir is "".
func newBlob(dir string) (blob, error) {
	if dir == "" {
		return &memBlob{}, nil
	}
	f, err := os.CreateTemp(dir, ".vbench-fold-*")
	if err != nil {
		return nil, fmt.Errorf("the metrics fold's spill file: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("the metrics fold's spill file: %w", err)
	}
	return f, nil
}

// appender writes a blob from its start, through a buffer.
type appender struct {
	b   blob
	w   *bufio.Writer
	off int64 // bytes appended
}

func newAppender(b blob) *appender {
	a := &appender{b: b}
	a.w = bufio.NewWriterSize(&blobWriter{b: b}, 64<<10)
	return a
}

// blobWriter writes a blob sequentially.
type blobWriter struct {
	b   blob
	off int64
}

func (w *blobWriter) Write(p []byte) (int, error) {
	n, err := w.b.WriteAt(p, w.off)
	w.off += int64(n)
	return n, err
}

func (a *appender) write(p []byte) {
	a.w.Write(p) // its error is kept by the buffer and returned by flush
	a.off += int64(len(p))
}

func (a *appender) flush() error { return a.w.Flush() }

// reader reads a blob sequentially from off, through a buffer.
func reader(b blob, off, n int64) *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(b, off, n), 64<<10)
}

// windowReader serves ReadAt from a buffered window of a blob, for reads
// that go mostly forward with small jumps back (a request's inter-token
// latencies, appended in completion order, read in request order).
type windowReader struct {
	b    blob
	size int64 // the blob's length
	buf  []byte
	off  int64 // buf holds [off, off+len(buf))
}

func newWindowReader(b blob, size int64) *windowReader {
	return &windowReader{b: b, size: size, buf: make([]byte, 0, 256<<10)}
}

// at returns the n bytes at off; the slice is valid until the next call.
func (r *windowReader) at(off int64, n int) ([]byte, error) {
	if off >= r.off && off+int64(n) <= r.off+int64(len(r.buf)) {
		return r.buf[off-r.off : off-r.off+int64(n)], nil
	}
	if n > cap(r.buf) {
		r.buf = make([]byte, 0, n)
	}
	l := min(int64(cap(r.buf)), r.size-off)
	if l < int64(n) {
		return nil, fmt.Errorf("the metrics fold's spill file is short: %d bytes at %d, %d there", n, off, l)
	}
	r.buf = r.buf[:l]
	if _, err := r.b.ReadAt(r.buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	r.off = off
	return r.buf[:n], nil
}
