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
	"cmp"
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
	// last "data:" line seen) or the server's sequence numbers show bytes
	// the capture lost (then those before the gap). Only the server's
	// packets are checked: a lost request packet goes unnoticed.
	Aligned int
	// Lost reports that the capture lost or cut a packet of the response
	// before its first "data:" line: its FirstData may be a later
	// packet's, so MatchRecords leaves it out.
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
		seg, ok := tcpSegment(data, link, serverPort, int(orig)-int(incl))
		if !ok {
			continue
		}
		c := conns[seg.key]
		if c == nil || seg.syn {
			// A new connection, or one that reuses an earlier one's
			// ports: its state starts afresh.
			c = &conn{cur: -1}
			conns[seg.key] = c
		}
		gap := false
		if !seg.toServer && seg.size > 0 {
			// The server's bytes in sequence: a segment seen again (a
			// retransmission) adds nothing, and one that starts past
			// the next byte expected, or brings new bytes behind old
			// ones, follows bytes the capture lost or carries lines
			// that cannot be placed.
			if c.seen {
				d := int32(seg.seq - c.next)
				end := int32(seg.seq + uint32(seg.size) - c.next)
				if end <= 0 {
					continue
				}
				gap = d != 0
			}
			c.next, c.seen = seg.seq+uint32(seg.size), true
		}
		payload := seg.payload
		if seg.toServer {
			if id, ok := requestID(payload); ok {
				c.cur = len(reqs)
				reqs = append(reqs, Request{ID: id, Sent: ts})
			}
			continue
		}
		// A server packet with bytes, even when the capture kept none
		// of them, counts for the response's alignment.
		if c.cur < 0 || seg.size == 0 {
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
			// A packet cut before its first "data:" line may have
			// carried the first token: FirstData may be a later one's.
			r.Lost = r.cut && r.FirstData.IsZero()
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

// segment is what Read needs of one captured TCP packet.
type segment struct {
	key      [12]byte // the connection: client address and port, then the server's
	toServer bool     // from the client
	syn      bool     // a SYN: the connection is new
	seq      uint32   // the sequence number of its first payload byte
	size     int      // its payload's size on the wire
	payload  []byte   // the payload as captured (cut short when the capture cut the packet)
}

// tcpSegment reads an IPv4 TCP packet to or from serverPort; cut is how
// many bytes of it the capture left out (its snapshot length). ok is false
// for other packets and for those cut inside their headers.
func tcpSegment(pkt []byte, link uint32, serverPort uint16, cut int) (seg segment, ok bool) {
	var proto uint16
	switch link {
	case linkEthernet:
		if len(pkt) < 14 {
			return seg, false
		}
		proto, pkt = binary.BigEndian.Uint16(pkt[12:14]), pkt[14:]
	case linkLinuxSLL:
		if len(pkt) < 16 {
			return seg, false
		}
		proto, pkt = binary.BigEndian.Uint16(pkt[14:16]), pkt[16:]
	}
	if proto != 0x0800 || len(pkt) < 20 || pkt[0]>>4 != 4 || pkt[9] != 6 {
		return seg, false
	}
	ihl := int(pkt[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(pkt[2:4]))
	if ihl < 20 || (total != 0 && total < ihl) || ihl > len(pkt) {
		return seg, false
	}
	// A capture with a snapshot length keeps only the start of a long
	// packet (and a segmentation-offloaded one may say 0): the IP length
	// then says its size on the wire, or, when 0, the bytes captured and
	// those the capture left out.
	captured := min(len(pkt), cmp.Or(total, len(pkt)))
	src, dst := pkt[12:16], pkt[16:20]
	tcp := pkt[ihl:captured]
	if len(tcp) < 20 {
		return seg, false
	}
	sport, dport := binary.BigEndian.Uint16(tcp[0:2]), binary.BigEndian.Uint16(tcp[2:4])
	off := int(tcp[12]>>4) * 4
	if off < 20 {
		return seg, false
	}
	switch serverPort {
	case dport:
		seg.toServer = true
		copy(seg.key[0:4], src)
		binary.BigEndian.PutUint16(seg.key[4:6], sport)
		copy(seg.key[6:10], dst)
		binary.BigEndian.PutUint16(seg.key[10:12], dport)
	case sport:
		copy(seg.key[0:4], dst)
		binary.BigEndian.PutUint16(seg.key[4:6], dport)
		copy(seg.key[6:10], src)
		binary.BigEndian.PutUint16(seg.key[10:12], sport)
	default:
		return seg, false
	}
	seg.syn = tcp[13]&0x02 != 0
	seg.seq = binary.BigEndian.Uint32(tcp[4:8])
	if total != 0 {
		seg.size = max(total-ihl-off, 0)
	} else {
		seg.size = max(len(tcp)+cut-off, 0)
	}
	if off <= len(tcp) {
		seg.payload = tcp[off:]
	}
	return seg, true
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
