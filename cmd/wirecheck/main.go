// Command wirecheck measures vbench's client timing error on the wire: it
// reads a packet capture of a run (tcpdump -w, with nanosecond timestamps)
// and the run's records file, and compares each request's time to first
// token as the client recorded it with the one the capture shows.
//
// Usage:
//
//	tcpdump -i lo -w run.pcap --time-stamp-precision=nano -s 0 tcp port 9000 &
//	vbench serve --base-url http://127.0.0.1:9000 ... --result-dir out
//	wirecheck -port 9000 run.pcap out/<result>.records.jsonl
//
// It prints the error distribution (client minus wire, in milliseconds) and
// the requests with the largest errors. The time to first token needs only
// the start of each packet; comparing every token needs whole packets
// (-s 0): tokens past a packet the capture cut short are left out, and
// counted.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/vbench/vbench/internal/record"
	"github.com/vbench/vbench/internal/wire"
)

func main() {
	port := flag.Uint("port", 8000, "the server's TCP port")
	worst := flag.Int("worst", 10, "how many of the largest errors to list")
	verbose = flag.Bool("v", false, "with each listed request, its first data packets and chunks")
	flag.Parse()
	if flag.NArg() != 2 || *port == 0 || *port > 65535 {
		fmt.Fprintln(os.Stderr, "usage: wirecheck -port PORT CAPTURE.pcap RECORDS.jsonl")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), uint16(*port), *worst); err != nil {
		fmt.Fprintln(os.Stderr, "wirecheck:", err)
		os.Exit(1)
	}
}

// verbose lists the data packets and chunks of the requests shown.
var verbose *bool

func run(capture, records string, port uint16, worst int) error {
	f, err := os.Open(capture)
	if err != nil {
		return err
	}
	defer f.Close()
	reqs, err := wire.Read(f, port)
	if err != nil {
		return fmt.Errorf("%s: %w", capture, err)
	}
	rf, err := os.Open(records)
	if err != nil {
		return err
	}
	defer rf.Close()
	recs, err := record.ReadJSONL(rf)
	if err != nil {
		return fmt.Errorf("%s: %w", records, err)
	}
	byID := make(map[string]*record.Record, len(recs))
	for _, r := range recs {
		byID[r.RequestID] = r
	}
	matches, unmatched := wire.MatchRecords(reqs, func(id string) (time.Duration, bool) {
		r := byID[id]
		if r == nil || !r.Success || len(r.Chunks) == 0 {
			return 0, false
		}
		return r.Chunks[0] - r.Start, true
	})
	if len(matches) == 0 {
		return fmt.Errorf("no request is in both the capture (%d requests) and the records (%d)", len(reqs), len(recs))
	}
	errs := make([]float64, len(matches))
	for i, m := range matches {
		errs[i] = float64(m.Error()) / 1e6
	}
	e := summarize(errs)
	fmt.Printf("%d requests matched (%d in the capture, %d records, %d unmatched)\n", len(matches), len(reqs), len(recs), unmatched)
	fmt.Printf("client TTFT minus wire TTFT (ms): mean %+.3f, min %+.3f, p50 %+.3f, p90 %+.3f, p99 %+.3f, max %+.3f\n",
		e.mean, errs[0], e.q(0.5), e.q(0.9), e.q(0.99), errs[len(errs)-1])
	// Every token's time: chunk k against the wire's event k, both from
	// the request's start (the trailing usage and [DONE] events have no
	// chunk), as far as the capture kept the response's packets whole.
	var tokens []float64
	left := 0
	for _, w := range reqs {
		r := byID[w.ID]
		if r == nil || !r.Success {
			continue
		}
		n := min(len(r.Chunks), len(w.Events))
		for k := range min(n, w.Aligned) {
			tokens = append(tokens, float64((r.Chunks[k]-r.Start)-w.Events[k].Sub(w.Sent))/1e6)
		}
		left += len(r.Chunks) - min(n, w.Aligned)
	}
	if len(tokens) > 0 {
		t := summarize(tokens)
		fmt.Printf("every token's time, client minus wire (ms, %d tokens): mean %+.3f, p50 %+.3f, p99 %+.3f, max %+.3f; %.1f %% within 0.1 ms\n",
			len(tokens), t.mean, t.q(0.5), t.q(0.99), tokens[len(tokens)-1], 100*t.within)
	}
	if left > 0 {
		fmt.Printf("%d tokens left out: the capture cut their packets short (capture with -s 0) or lost some (tcpdump counts the packets it dropped; -B raises its buffer)\n", left)
	}
	bounds := []float64{-5, -1, -0.1, 0.1, 1, 5, 15, 25}
	counts := make([]int, len(bounds)+1)
	for _, e := range errs {
		k, _ := slices.BinarySearch(bounds, e)
		counts[k]++
	}
	fmt.Print("errors by range (ms):")
	for k, n := range counts {
		lo, hi := "", ""
		if k > 0 {
			lo = fmt.Sprint(bounds[k-1])
		}
		if k < len(bounds) {
			hi = fmt.Sprint(bounds[k])
		}
		fmt.Printf(" [%s, %s) %d;", lo, hi, n)
	}
	fmt.Println()
	slices.SortFunc(matches, func(a, b wire.Match) int { return cmp.Compare(b.Error(), a.Error()) })
	sent := make(map[string]wire.Request, len(reqs))
	for _, r := range reqs {
		sent[r.ID] = r
	}
	show := func(m wire.Match) {
		r := byID[m.ID]
		fmt.Printf("  %s: client %.3f ms, wire %.3f ms, error %+.3f ms, read lag %.3f ms\n",
			m.ID, float64(m.Client)/1e6, float64(m.Wire)/1e6, float64(m.Error())/1e6, float64(r.ReadLag)/1e6)
		if *verbose {
			w := sent[m.ID]
			k := min(len(w.Events), len(r.Chunks), 8)
			fmt.Print("    wire events (ms after the request):")
			for _, d := range w.Events[:k] {
				fmt.Printf(" %.3f", float64(d.Sub(w.Sent))/1e6)
			}
			fmt.Print("\n    client chunks (ms after start):")
			for _, c := range r.Chunks[:k] {
				fmt.Printf(" %.3f", float64(c-r.Start)/1e6)
			}
			fmt.Println()
		}
	}
	fmt.Println("largest errors:")
	for _, m := range matches[:min(worst, len(matches))] {
		show(m)
	}
	fmt.Println("most negative errors:")
	for _, m := range matches[max(0, len(matches)-worst):] {
		show(m)
	}
	return nil
}

// summary is the distribution of errors in milliseconds, sorted.
type summary struct {
	sorted []float64
	mean   float64
	within float64 // the share within ±0.1 ms
}

// summarize sorts errs in place and summarizes them; errs is not empty.
func summarize(errs []float64) summary {
	slices.Sort(errs)
	s := summary{sorted: errs}
	n := 0
	for _, e := range errs {
		s.mean += e
		if e > -0.1 && e < 0.1 {
			n++
		}
	}
	s.mean /= float64(len(errs))
	s.within = float64(n) / float64(len(errs))
	return s
}

// q is the p quantile (the element at rank p·n).
func (s summary) q(p float64) float64 {
	return s.sorted[min(len(s.sorted)-1, int(p*float64(len(s.sorted))))]
}
