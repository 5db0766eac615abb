package rxtime

import (
	"encoding/binary"
	"net"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// cmsg builds one control message with the given level, type and data.
func cmsg(level, typ int32, data []byte) []byte {
	l := syscall.SizeofCmsghdr + len(data)
	b := make([]byte, align(l))
	h := (*syscall.Cmsghdr)(unsafe.Pointer(&b[0]))
	h.Level, h.Type = level, typ
	h.SetLen(l)
	copy(b[syscall.SizeofCmsghdr:], data)
	return b
}

func timespec(sec, nsec int64) []byte {
	b := make([]byte, 16)
	binary.NativeEndian.PutUint64(b, uint64(sec))
	binary.NativeEndian.PutUint64(b[8:], uint64(nsec))
	return b
}

func TestTimestamp(t *testing.T) {
	ts := cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1700000000, 123))
	other := cmsg(syscall.SOL_IP, 8, []byte{1, 2, 3, 4})
	tests := []struct {
		name string
		oob  []byte
		want int64
	}{
		{"none", nil, 0},
		{"timestamp", ts, 1700000000_000000123},
		{"after another message", append(append([]byte{}, other...), ts...), 1700000000_000000123},
		{"other only", other, 0},
		{"truncated", ts[:len(ts)-4], 0},
		{"short header", ts[:4], 0},
	}
	for _, tt := range tests {
		if got := Timestamp(tt.oob); got != tt.want {
			t.Errorf("%s: timestamp = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func FuzzTimestamp(f *testing.F) {
	f.Add(cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1, 2)))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0, 35, 0, 0, 0})
	f.Fuzz(func(t *testing.T, oob []byte) {
		_ = Timestamp(oob) // must not panic or loop forever
	})
}

// loopbackPair returns the two ends of a fresh loopback TCP connection.
func loopbackPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server
}

// The first byte a wrapped connection reads carries its receive time even
// when the peer sends it right after Wrap turned timestamps on: KeepOn has
// switched the host's timestamping on before Wrap returns. Without it, a
// process whose first timestamping socket this is loses the race with the
// kernel's worker about one time in six (seen on this project's CI), and
// TCP then reports no time at all.
func TestWrapStampsTheFirstRead(t *testing.T) {
	for i := range 20 {
		c, s := loopbackPair(t)
		rc, ok := Wrap(c).(*Conn)
		if !ok {
			t.Fatalf("Wrap returned %T", Wrap(c))
		}
		if _, err := s.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		var b [8]byte
		if _, err := rc.Read(b[:]); err != nil {
			t.Fatal(err)
		}
		if _, ok := rc.Age(time.Now()); !ok {
			t.Fatalf("connection %d: the first read has no receive time", i)
		}
		_ = c.Close()
		_ = s.Close()
	}
	if err := KeepOn(); err != nil {
		t.Errorf("KeepOn: %v", err)
	}
}
