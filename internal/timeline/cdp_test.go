package timeline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// devtools is a minimal Chrome DevTools Protocol client over
// --remote-debugging-pipe (file descriptors 3 and 4 of the browser,
// messages are JSON ended by a NUL byte): enough to drive the page with
// real mouse events and read its state back.
type devtools struct {
	t       *testing.T
	w       *os.File
	r       *bufio.Reader
	id      int
	session string
}

// call sends method with params and returns its result, skipping the
// events that arrive meanwhile.
func (d *devtools) call(method string, params any) json.RawMessage {
	d.t.Helper()
	d.id++
	msg := map[string]any{"id": d.id, "method": method, "params": params}
	if d.session != "" {
		msg["sessionId"] = d.session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.w.Write(append(data, 0)); err != nil {
		d.t.Fatalf("%s: %v", method, err)
	}
	for {
		line, err := d.r.ReadBytes(0)
		if err != nil {
			d.t.Fatalf("%s: reading the answer: %v", method, err)
		}
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line[:len(line)-1], &resp); err != nil {
			d.t.Fatalf("%s: %v in %q", method, err, line)
		}
		if resp.ID != d.id {
			continue // an event, or an answer to no one
		}
		if resp.Error != nil {
			d.t.Fatalf("%s: %s", method, resp.Error.Message)
		}
		return resp.Result
	}
}

// eval evaluates a JavaScript expression in the page and returns its value
// as JSON text.
func (d *devtools) eval(expr string) string {
	d.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(d.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &res); err != nil {
		d.t.Fatal(err)
	}
	if res.Exception != nil {
		d.t.Fatalf("%s: %s", expr, res.Exception.Text)
	}
	return string(res.Result.Value)
}

// mouse sends one mouse event at (x, y) in CSS pixels of the viewport.
func (d *devtools) mouse(typ string, x, y float64, clicks int) {
	d.t.Helper()
	p := map[string]any{"type": typ, "x": x, "y": y}
	if typ != "mouseMoved" {
		p["button"], p["clickCount"] = "left", clicks
	}
	d.call("Input.dispatchMouseEvent", p)
}

// openDevtools starts headless chromium on the page at path with a pipe
// to drive it, attached to the page once it has rendered.
func openDevtools(t *testing.T, path string) *devtools {
	t.Helper()
	bin := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard only
	toBrowser, browserIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	browserOut, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	args := append(headlessFlags(t), "--remote-debugging-pipe", "--window-size=1280,1000", "file://"+path)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fds 3 (commands) and 4 (answers)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	d := &devtools{t: t, w: browserIn, r: bufio.NewReader(browserOut)}
	t.Cleanup(func() {
		d.session = ""
		msg, _ := json.Marshal(map[string]any{"id": 1 << 30, "method": "Browser.close"})
		_, _ = browserIn.Write(append(msg, 0))
		browserIn.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
		}
		browserOut.Close()
		cancel()
	})
	// The page's target appears once the browser has opened it.
	var target string
	for range 600 {
		var res struct {
			TargetInfos []struct {
				TargetID string `json:"targetId"`
				Type     string `json:"type"`
				URL      string `json:"url"`
			} `json:"targetInfos"`
		}
		if err := json.Unmarshal(d.call("Target.getTargets", map[string]any{}), &res); err != nil {
			t.Fatal(err)
		}
		for _, ti := range res.TargetInfos {
			if ti.Type == "page" && strings.HasSuffix(ti.URL, "timeline.html") {
				target = ti.TargetID
			}
		}
		if target != "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if target == "" {
		t.Fatal("the browser never opened the page")
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(d.call("Target.attachToTarget", map[string]any{"targetId": target, "flatten": true}), &att); err != nil {
		t.Fatal(err)
	}
	d.session = att.SessionID
	for range 600 {
		if d.eval(`document.body ? document.body.getAttribute("data-rendered") : ""`) == `"1"` {
			return d
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the page never finished rendering")
	return nil
}

// rect is a DOMRect's position in the viewport.
type rect struct{ Left, Top, Width, Height float64 }

func (d *devtools) rect(id string) rect {
	d.t.Helper()
	var r rect
	js := fmt.Sprintf(`(function () { var b = document.getElementById(%q).getBoundingClientRect(); return {Left: b.left, Top: b.top, Width: b.width, Height: b.height}; })()`, id)
	if err := json.Unmarshal([]byte(d.eval(js)), &r); err != nil {
		d.t.Fatal(err)
	}
	return r
}

// Real mouse events: hovering a bar shows that request, hovering the
// gauges shows the nearest sample, dragging zooms (the address keeps the
// view) and a double click zooms out; nothing throws.
func TestChromiumInteraction(t *testing.T) {
	recs := fakeRecords(40, 10, 8, 9)
	path := renderTo(t, Input{Records: recs, Samples: fakeSamples(3 * time.Second), Thresholds: [2]float64{25, 50}})
	d := openDevtools(t, path)

	bars := d.rect("bars")
	const rowH, top, left = 14, 3, 70 // the page's layout for 40 requests
	y := bars.Top + top + 5*rowH + rowH/2
	d.mouse("mouseMoved", bars.Left+left+5, y, 0)
	tip := d.eval(`document.getElementById("tip").hidden ? "" : document.getElementById("tip").textContent`)
	if !strings.HasPrefix(tip, `"Req 5\n`) || !strings.Contains(tip, "TTFT") || !strings.Contains(tip, "ITLs: ") {
		t.Errorf("hovering row 5: tooltip %s", tip)
	}
	d.mouse("mouseMoved", bars.Left+left+5, bars.Top+top+6*rowH+rowH/2, 0)
	if tip := d.eval(`document.getElementById("tip").hidden ? "" : document.getElementById("tip").textContent`); !strings.Contains(tip, "Req 6 (failed)") || !strings.Contains(tip, "error: Internal Server Error") {
		t.Errorf("hovering row 6 (a failure): tooltip %s", tip)
	}

	d.eval(`document.getElementById("gauges").scrollIntoView(), 0`)
	g := d.rect("gauges")
	d.mouse("mouseMoved", g.Left+left+10, g.Top+g.Height/2, 0)
	if tip := d.eval(`document.getElementById("tip").hidden ? "" : document.getElementById("tip").textContent`); !strings.HasPrefix(tip, `"at 0.`) || !strings.Contains(tip, "KV-cache usage") {
		t.Errorf("hovering the gauges: tooltip %s", tip)
	}

	// Drag across the first tenth of the time axis.
	d.eval(`window.scrollTo(0, 0), 0`)
	x0, x1 := bars.Left+left+2, bars.Left+left+(bars.Width-left-60)/10
	d.mouse("mousePressed", x0, y, 1)
	d.mouse("mouseMoved", (x0+x1)/2, y, 0)
	d.mouse("mouseMoved", x1, y, 0)
	d.mouse("mouseReleased", x1, y, 1)
	hash := d.eval(`location.hash`)
	zoomed := d.eval(`document.body.getAttribute("data-bars")`)
	if !strings.HasPrefix(hash, `"#view=`) || zoomed == `"40"` || zoomed == `"0"` {
		t.Errorf("after a drag: location.hash %s, %s bars drawn", hash, zoomed)
	}
	d.mouse("mousePressed", x1, y, 1)
	d.mouse("mouseReleased", x1, y, 1)
	d.mouse("mousePressed", x1, y, 2)
	d.mouse("mouseReleased", x1, y, 2)
	if got := d.eval(`document.body.getAttribute("data-bars")`); got != `"40"` {
		t.Errorf("after a double click: %s bars drawn, want 40", got)
	}
	if errs := d.eval(`window.vbenchErrors`); errs != "[]" {
		t.Errorf("page errors: %s", errs)
	}
}
