package wire

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"
)

// capture builds a nanosecond pcap of Ethernet frames. Each direction of
// a connection numbers its bytes from 0.
type capture struct {
	bytes.Buffer
	seq map[[2]uint16]uint32 // the next sequence number by source and destination port
}

func newCapture() *capture {
	c := &capture{seq: map[[2]uint16]uint32{}}
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:4], 0xa1b23c4d)
	binary.LittleEndian.PutUint16(h[4:6], 2)
	binary.LittleEndian.PutUint16(h[6:8], 4)
	binary.LittleEndian.PutUint32(h[16:20], 65535)
	binary.LittleEndian.PutUint32(h[20:24], linkEthernet)
	c.Write(h[:])
	return c
}

// packet adds a TCP segment from port sport to dport carrying payload,
// the direction's next bytes, captured at ms milliseconds.
func (c *capture) packet(ms float64, sport, dport uint16, payload string) {
	c.record(ms, sport, dport, payload, len(payload), 0)
}

// truncated adds a packet as a capture with a snapshot length keeps it:
// only its first keep bytes of payload, its IP length still the whole.
func (c *capture) truncated(ms float64, sport, dport uint16, payload string, keep int) {
	c.record(ms, sport, dport, payload, keep, 0)
}

// lost numbers n bytes from sport to dport as sent, without capturing
// them: a packet the capture lost.
func (c *capture) lost(sport, dport uint16, n int) {
	c.seq[[2]uint16{sport, dport}] += uint32(n)
}

// rewind steps the sequence numbers from sport to dport back by n bytes:
// the next packet sends them again (a retransmission).
func (c *capture) rewind(sport, dport uint16, n int) {
	c.seq[[2]uint16{sport, dport}] -= uint32(n)
}

// syn adds a SYN from sport to dport: a new connection, whose bytes that
// way are numbered from isn+1.
func (c *capture) syn(ms float64, sport, dport uint16, isn uint32) {
	c.seq[[2]uint16{sport, dport}] = isn
	c.record(ms, sport, dport, "", 0, 0x02)
	c.seq[[2]uint16{sport, dport}] = isn + 1
}

// record adds a packet carrying payload, of which it keeps keep bytes,
// with the TCP flags given.
func (c *capture) record(ms float64, sport, dport uint16, payload string, keep int, flags byte) {
	dir := [2]uint16{sport, dport}
	seq := c.seq[dir]
	c.seq[dir] = seq + uint32(len(payload))
	ip := make([]byte, 20+20+len(payload))
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:4], uint16(len(ip)))
	ip[9] = 6
	copy(ip[12:16], []byte{127, 0, 0, 1})
	copy(ip[16:20], []byte{127, 0, 0, 1})
	tcp := ip[20:]
	binary.BigEndian.PutUint16(tcp[0:2], sport)
	binary.BigEndian.PutUint16(tcp[2:4], dport)
	binary.BigEndian.PutUint32(tcp[4:8], seq)
	tcp[12] = 5 << 4
	tcp[13] = flags
	copy(tcp[20:], payload)
	frame := append(make([]byte, 12), 0x08, 0x00)
	frame = append(frame, ip[:40+keep]...)
	ns := int64(ms * 1e6)
	var rec [16]byte
	binary.LittleEndian.PutUint32(rec[0:4], uint32(1700000000+ns/1e9))
	binary.LittleEndian.PutUint32(rec[4:8], uint32(ns%1e9))
	binary.LittleEndian.PutUint32(rec[8:12], uint32(len(frame)))
	binary.LittleEndian.PutUint32(rec[12:16], uint32(14+len(ip)))
	c.Write(rec[:])
	c.Write(frame)
}

func TestRead(t *testing.T) {
	const server = 9000
	c := newCapture()
	// Two requests, one after the other on one keep-alive connection, and
	// one on another connection with no data in its answer.
	c.packet(0, 40000, server, "POST /v1/completions HTTP/1.1\r\nHost: h\r\nX-Request-Id: r-0\r\n\r\n{}")
	c.packet(0.2, server, 40000, "HTTP/1.1 200 OK\r\n\r\n")
	c.packet(50, server, 40000, "2a\r\ndata: {\"a\":1}\r\n")
	c.packet(60, server, 40000, "2a\r\ndata: {\"a\":2}\r\n\r\n2a\r\ndata: [DONE]\r\n")
	c.packet(70, 40000, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-1\r\n\r\n")
	c.packet(71, 40001, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-2\r\n\r\n")
	c.packet(72, 40001, server, "HTTP/1.1 500 Internal Server Error\r\n\r\n")
	c.packet(125.5, server, 40000, "data: {\"b\":1}\n\n")
	c.packet(126, 41000, 9999, "POST / HTTP/1.1\r\nx-request-id: other-port\r\n\r\n")
	c.truncated(127, 40002, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-3\r\n\r\n{\"prompt\": \"long\"}", 52)
	// A response whose second data packet the capture cut after its first
	// data line: the events after the cut are not the response's next.
	c.packet(130, 40003, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-4\r\n\r\n")
	c.packet(140, server, 40003, "data: 1\n\ndata: 2\n\n")
	c.truncated(150, server, 40003, "data: 3\n\ndata: 4\n\ndata: 5\n\n", 12)
	c.packet(160, server, 40003, "data: 6\n\n")
	// A response one of whose data packets the capture lost, and which
	// the server sent one packet of twice (a retransmission).
	c.packet(200, 40004, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-5\r\n\r\n")
	c.packet(210, server, 40004, "data: 1\n\n")
	c.rewind(server, 40004, 9)
	c.packet(210.1, server, 40004, "data: 1\n\n")
	c.lost(server, 40004, 9)
	c.packet(230, server, 40004, "data: 3\n\n")
	// A response whose first data packet the capture lost.
	c.packet(300, 40005, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-6\r\n\r\n")
	c.packet(301, server, 40005, "HTTP/1.1 200 OK\r\n\r\n")
	c.lost(server, 40005, 9)
	c.packet(320, server, 40005, "data: 2\n\n")
	// A response whose first data packet the capture cut before its
	// "data:" line.
	c.packet(400, 40006, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-7\r\n\r\n")
	c.truncated(405, server, 40006, "2a\r\ndata: 1\n\n", 2)
	c.packet(410, server, 40006, "data: 2\n\n")
	// A retransmission that brings new bytes behind old ones: its lines
	// cannot be placed.
	c.packet(500, 40007, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-8\r\n\r\n")
	c.packet(505, server, 40007, "data: 1\n\n")
	c.rewind(server, 40007, 9)
	c.packet(510, server, 40007, "data: 1\n\ndata: 2\n\n")
	c.packet(515, server, 40007, "data: 3\n\n")
	// A new connection from a port an earlier one used, its sequence
	// numbers elsewhere: it starts afresh.
	c.syn(600, 40000, server, 7)
	c.syn(600, server, 40000, 1<<31)
	c.packet(601, 40000, server, "POST /v1/completions HTTP/1.1\r\nx-request-id: r-9\r\n\r\n")
	c.packet(605, server, 40000, "data: 1\n\n")
	c.packet(606, server, 40000, "data: 2\n\n")
	got, err := Read(&c.Buffer, server)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id         string
		ttft       time.Duration
		dataPoints int
		aligned    int
	}{
		{"r-0", 50 * time.Millisecond, 3, 3},
		{"r-1", 55500 * time.Microsecond, 1, 1},
		{"r-2", 0, 0, 0},
		{"r-3", 0, 0, 0},
		{"r-4", 10 * time.Millisecond, 4, 3},
		{"r-5", 10 * time.Millisecond, 2, 1},
		{"r-6", 20 * time.Millisecond, 1, 0},
		{"r-7", 10 * time.Millisecond, 1, 0},
		{"r-8", 5 * time.Millisecond, 4, 1},
		{"r-9", 4 * time.Millisecond, 2, 2},
	}
	if len(got) > 0 && len(got[0].Events) == 3 && !got[0].Events[1].Equal(got[0].Events[2]) {
		t.Errorf("two events in one packet have times %v and %v, want the packet's", got[0].Events[1], got[0].Events[2])
	}
	if len(got) != len(want) {
		t.Fatalf("got %d requests %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].TTFT() != w.ttft || len(got[i].Events) != w.dataPoints || got[i].Aligned != w.aligned {
			t.Errorf("request %d = %s, TTFT %v, %d events, %d aligned; want %s, %v, %d, %d",
				i, got[i].ID, got[i].TTFT(), len(got[i].Events), got[i].Aligned, w.id, w.ttft, w.dataPoints, w.aligned)
		}
	}
	if len(got) == len(want) {
		for i, lost := range []bool{false, false, false, false, false, false, true, true, false, false} {
			if got[i].Lost != lost {
				t.Errorf("%s: Lost %v, want %v", got[i].ID, got[i].Lost, lost)
			}
		}
	}
	matches, unmatched := MatchRecords(got, func(id string) (time.Duration, bool) {
		return 51 * time.Millisecond, id == "r-0" || id == "r-2" || id == "r-6" || id == "r-7"
	})
	if len(matches) != 1 || unmatched != 9 || matches[0].Error() != time.Millisecond {
		t.Errorf("matches %+v, unmatched %d; want r-0 with a +1ms error, 9 unmatched", matches, unmatched)
	}
}

func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "pcap header"},
		{"pcapng", "\x0a\x0d\x0d\x0a" + strings.Repeat("\x00", 20), "not a pcap file"},
	} {
		if _, err := Read(strings.NewReader(tc.data), 80); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	c := newCapture()
	c.packet(0, 1, 80, "x")
	b := c.Bytes()
	if _, err := Read(bytes.NewReader(b[:len(b)-3]), 80); err == nil || !strings.Contains(err.Error(), "pcap record") {
		t.Errorf("truncated record: error %v", err)
	}
}

// FuzzRead checks that no capture makes Read panic or loop.
func FuzzRead(f *testing.F) {
	c := newCapture()
	c.packet(0, 40000, 80, "POST / HTTP/1.1\r\nx-request-id: a\r\n\r\n")
	c.packet(1, 80, 40000, "data: x\n\n")
	f.Add(c.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Read(bytes.NewReader(data), 80)
	})
}
