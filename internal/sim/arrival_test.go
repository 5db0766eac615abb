package sim

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/vbench/vbench/internal/rxtime"
)

// A request read late still counts from when it arrived.
func TestArrival(t *testing.T) {
	if _, ok := arrival(context.Background(), time.Now()); ok {
		t.Error("an arrival without a connection")
	}
	if runtime.GOOS != "linux" {
		t.Skip("receive timestamps are read on Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rl := rxtime.Listen(ln)
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := rl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	ctx := connContext(context.Background(), server)
	if _, ok := arrival(ctx, time.Now()); ok {
		t.Error("an arrival before anything was read")
	}
	// The kernel turns timestamping on a moment after the first socket
	// asks for it.
	for i := 0; ; i++ {
		if _, err := client.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Read(make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
		if _, ok := arrival(ctx, time.Now()); ok {
			break
		}
		if i == 200 {
			t.Fatal("reads never carried a receive timestamp")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := client.Write([]byte("POST")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	if _, err := server.Read(make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	at, ok := arrival(ctx, now)
	if !ok {
		t.Fatal("no arrival after a read")
	}
	if late := now.Sub(at); late < 25*time.Millisecond || late > time.Second {
		t.Errorf("arrival %v before the read's end, want about 30ms", late)
	}
}
