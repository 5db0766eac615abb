// Package wire reads a packet capture of a benchmark's HTTP/1.1 traffic
// (tcpdump -w, on the loopback or an Ethernet interface) and returns each
// request's time to first token as the wire saw it: from the packet that
// carried the request line to the first server packet on the same
// connection that carries an SSE "data:" line. Compared with the client's
// records, request by request (x-request-id), it gives the client's own
// timing error, independent of the client's clocks.
package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Request is one request as the capture saw it.
type Request struct {
	// ID is the request's x-request-id.
	ID string
	// Sent is the capture time of the packet that carried the request line.
	Sent time.Time
	// FirstData is the capture time of the first server packet after it,
	// on its connection, that carries an SSE "data:" line; zero when none.
	FirstData time.Time
	// Events are the capture times of the response's SSE "data:" lines,
	// in order: a packet that carries several gives each its time. A
	// capture whose snapshot length cuts a packet short misses the lines
	// past the cut, so only the first Aligned events are known to be the
	// response's first events (see Aligned).
	Events []time.Time
	// Aligned is how many of Events are the response's first events in
	// order: all of them, unless a packet of the response was cut short
	// by the capture's snapshot length (then those up to that packet's
	// last "data:" line seen) or the capture lost some of its packets
	// (then those before the gap).
	Aligned int
	// Lost reports that the capture lost packets of the response before
	// its first "data:" packet: its FirstData may be a later packet's, so
	// MatchRecords leaves it out.
	Lost bool
	cut  bool // a packet of the response was cut short or lost
}

// TTFT is the time to first token on the wire, or 0 when there was no data.
func (r Request) TTFT() time.Duration {
	if r.FirstData.IsZero() {
		return 0
	}
	return r.FirstData.Sub(r.Sent)
}

// Link types of the capture formats read.
const (
	linkEthernet = 1   // LINKTYPE_ETHERNET (Linux loopback too)
	linkLinuxSLL = 113 // LINKTYPE_LINUX_SLL (-i any)
)

// Read reads a classic pcap capture (microsecond or nanosecond timestamps)
// of TCP traffic to and from serverPort and returns its requests in the
// order their request lines were captured. Packets of other ports,
// protocols or IP versions than IPv4 are skipped.
func Read(r io.Reader, serverPort uint16) ([]Request, error) {
	var hdr [24]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("pcap header: %w", err)
	}
	var order binary.ByteOrder
	nano := false
	switch magic := binary.LittleEndian.Uint32(hdr[:4]); magic {
	case 0xa1b2c3d4:
		order = binary.LittleEndian
	case 0xa1b23c4d:
		order, nano = binary.LittleEndian, true
	case 0xd4c3b2a1:
		order = binary.BigEndian
	case 0x4d3cb2a1:
		order, nano = binary.BigEndian, true
	default:
		return nil, fmt.Errorf("not a pcap file (magic %#x; pcapng is not read: capture with tcpdump -w)", magic)
	}
	link := order.Uint32(hdr[20:24])
	if link != linkEthernet && link != linkLinuxSLL {
		return nil, fmt.Errorf("pcap link type %d is not read (want Ethernet or Linux cooked)", link)
	}
	conns := map[[12]byte]*conn{}
	var reqs []Request
	var rec [16]byte
	var data []byte
	for {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return reqs, nil
			}
			return reqs, fmt.Errorf("pcap record: %w", err)
		}
		sec, frac := order.Uint32(rec[0:4]), order.Uint32(rec[4:8])
		incl, orig := order.Uint32(rec[8:12]), order.Uint32(rec[12:16])
		if incl > 1<<26 {
			return reqs, fmt.Errorf("pcap record of %d bytes: corrupt capture", incl)
		}
		if cap(data) < int(incl) {
			data = make([]byte, incl)
		}
		data = data[:incl]
		if _, err := io.ReadFull(r, data); err != nil {
			return reqs, fmt.Errorf("pcap record: %w", err)
		}
		ns := int64(frac) * 1000
		if nano {
			ns = int64(frac)
		}
		ts := time.Unix(int64(sec), ns)
		key, toServer, payload, seq, size, ok := tcpPayload(data, link, serverPort)
		if !ok || len(payload) == 0 {
			continue
		}
		c := conns[key]
		if c == nil {
			c = &conn{cur: -1}
			conns[key] = c
		}
		gap := false
		if !toServer {
			// The server's bytes in sequence: a segment seen again (a
			// retransmission) adds nothing, one past the next byte
			// expected follows packets the capture lost.
			if c.seen {
				d := int32(seq - c.next)
				if d < 0 {
					continue
				}
				gap = d > 0
			}
			c.next, c.seen = seq+uint32(size), true
		}
		if toServer {
			if id, ok := requestID(payload); ok {
				c.cur = len(reqs)
				reqs = append(reqs, Request{ID: id, Sent: ts})
			}
			continue
		}
		if c.cur < 0 {
			continue
		}
		r := &reqs[c.cur]
		if gap && !r.cut {
			r.Aligned, r.cut = len(r.Events), true
			r.Lost = r.FirstData.IsZero()
		}
		if n := bytes.Count(payload, []byte("data:")); n > 0 {
			if r.FirstData.IsZero() {
				r.FirstData = ts
			}
			for range n {
				r.Events = append(r.Events, ts)
			}
		}
		if !r.cut {
			r.Aligned = len(r.Events)
			r.cut = orig > incl
		}
	}
}

// conn is one TCP connection's state: the request it carries now, and
// the sequence number of the server's next byte.
type conn struct {
	cur  int    // index in the requests of the last request sent, -1 before
	next uint32 // the server's next sequence number expected
	seen bool   // next is set: a server packet with data was seen
}

// tcpPayload returns the TCP payload of an IPv4 packet to or from
// serverPort as captured, the connection's key (client address and port,
// then the server's), its direction, its sequence number and the
// payload's size on the wire (more than len(payload) when the capture cut
// the packet short).
func tcpPayload(pkt []byte, link uint32, serverPort uint16) (key [12]byte, toServer bool, payload []byte, seq uint32, size int, ok bool) {
	var proto uint16
	switch link {
	case linkEthernet:
		if len(pkt) < 14 {
			return key, false, nil, 0, 0, false
		}
		proto, pkt = binary.BigEndian.Uint16(pkt[12:14]), pkt[14:]
	case linkLinuxSLL:
		if len(pkt) < 16 {
			return key, false, nil, 0, 0, false
		}
		proto, pkt = binary.BigEndian.Uint16(pkt[14:16]), pkt[16:]
	}
	if proto != 0x0800 || len(pkt) < 20 || pkt[0]>>4 != 4 || pkt[9] != 6 {
		return key, false, nil, 0, 0, false
	}
	ihl := int(pkt[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(pkt[2:4]))
	if ihl < 20 || total < ihl || ihl > len(pkt) {
		return key, false, nil, 0, 0, false
	}
	// A capture with a snapshot length keeps only the start of a long
	// packet (and a segmentation-offloaded one may say 0): its headers are
	// enough.
	wire := total // the IP packet's length on the wire
	if total > len(pkt) || total == 0 {
		total = len(pkt)
	}
	src, dst := pkt[12:16], pkt[16:20]
	tcp := pkt[ihl:total]
	if len(tcp) < 20 {
		return key, false, nil, 0, 0, false
	}
	sport, dport := binary.BigEndian.Uint16(tcp[0:2]), binary.BigEndian.Uint16(tcp[2:4])
	off := int(tcp[12]>>4) * 4
	if off < 20 || off > len(tcp) {
		return key, false, nil, 0, 0, false
	}
	switch serverPort {
	case dport:
		toServer = true
		copy(key[0:4], src)
		binary.BigEndian.PutUint16(key[4:6], sport)
		copy(key[6:10], dst)
		binary.BigEndian.PutUint16(key[10:12], dport)
	case sport:
		copy(key[0:4], dst)
		binary.BigEndian.PutUint16(key[4:6], dport)
		copy(key[6:10], src)
		binary.BigEndian.PutUint16(key[10:12], sport)
	default:
		return key, false, nil, 0, 0, false
	}
	size = len(tcp) - off
	if wire > total {
		size += wire - total
	}
	return key, toServer, tcp[off:], binary.BigEndian.Uint32(tcp[4:8]), size, true
}

// requestID returns the x-request-id of the request whose request line
// starts payload.
func requestID(payload []byte) (string, bool) {
	if !bytes.HasPrefix(payload, []byte("POST ")) && !bytes.HasPrefix(payload, []byte("GET ")) {
		return "", false
	}
	head, _, _ := bytes.Cut(payload, []byte("\r\n\r\n"))
	for line := range bytes.SplitSeq(head, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("x-request-id")) {
			return string(bytes.TrimSpace(value)), true
		}
	}
	return "", false
}

// Match is one request seen by both the client and the wire.
type Match struct {
	// ID is the request's x-request-id.
	ID string
	// Client is the client's TTFT: its first chunk's receive time minus
	// the time it started writing the request.
	Client time.Duration
	// Wire is the TTFT on the wire (Request.TTFT).
	Wire time.Duration
}

// Error is the client's TTFT error against the wire.
func (m Match) Error() time.Duration { return m.Client - m.Wire }

// MatchRecords pairs the wire's requests with the client's, by request id:
// clientTTFT gives a client request's TTFT by id (false when it has none,
// as for a failed request). Requests seen by only one side, or without a
// first token on either, or whose first packets the capture lost, are
// counted in unmatched.
func MatchRecords(reqs []Request, clientTTFT func(id string) (time.Duration, bool)) (matches []Match, unmatched int) {
	for _, r := range reqs {
		c, ok := clientTTFT(r.ID)
		if !ok || r.FirstData.IsZero() || r.Lost {
			unmatched++
			continue
		}
		matches = append(matches, Match{ID: r.ID, Client: c, Wire: r.TTFT()})
	}
	return matches, unmatched
}
