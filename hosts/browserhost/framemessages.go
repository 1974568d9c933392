package browserhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mxschmitt/playwright-go"

	"github.com/mcpconform/mcpconform/protocol"
)

// The sandbox handshake (the proxy's sandbox-proxy-ready to the host, the
// host's sandbox-resource-ready to the proxy) and whatever the proxy forwards
// happen between the host page and the proxy frame, where the View cannot
// see them. Every frame of a Base's context therefore records the window
// messages it receives, from an init script that runs before the frame's
// own scripts; readFrameMessages collects the records of the three frames
// around the suite's View. Only receipts are recorded: a window's
// postMessage to a cross-origin frame cannot be observed from the sender
// (the method it calls is the browser's, not the page's), while the
// receiver sees every message, in the order it was delivered.

// frameMessagesGlobal is the non-enumerable function the init script
// leaves on every window: called with the window of one child frame (or
// null), it returns the frame's record with each sender named relative to
// this frame.
const frameMessagesGlobal = "__mcpconformFrameMessages"

// frameMessagesScript records, per frame, every message event: its place
// in the frame's order, the sender's origin, and for a JSON-RPC-like
// object its method, id and shape. Of a params.html string only the length
// and a hash are kept: the View's HTML is not copied. It listens in the
// capture phase, first, so a page that stops the event's propagation does
// not hide it, and changes nothing the page does.
const frameMessagesScript = `(() => {
  const name = "` + frameMessagesGlobal + `";
  if (Object.prototype.hasOwnProperty.call(window, name)) return;
  const log = [];
  let seq = 0;
  const fnv = (s) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return (h >>> 0).toString(16).padStart(8, "0");
  };
  const record = (ev) => {
    try {
      if (log.length >= 5000) return;
      const e = { seq: ++seq, at: Date.now(), origin: String(ev.origin), source: ev.source, kind: "other" };
      const d = ev.data;
      if (d && typeof d === "object" && !Array.isArray(d)) {
        if (typeof d.method === "string") e.method = d.method.slice(0, 200);
        if (typeof d.id === "string" || typeof d.id === "number") e.id = d.id;
        e.jsonrpc = d.jsonrpc === "2.0";
        e.kind = typeof d.method === "string" ? ("id" in d ? "request" : "notification") : ("id" in d ? "response" : "other");
        const p = d.params;
        if (p && typeof p === "object" && "html" in p) {
          if (typeof p.html === "string") { e.htmlLength = p.html.length; e.htmlHash = fnv(p.html); }
          else e.htmlType = p.html === null ? "null" : typeof p.html;
        }
      }
      log.push(e);
    } catch {}
  };
  addEventListener("message", record, true);
  // document.open() on a window's own document erases the window's event
  // listeners (HTML, "document open steps") but keeps the window: a proxy
  // that writes the View into an about:blank frame (mcp-ui's, the
  // AppBridge example's) would silence the record. It listens again, before
  // anything written into the document runs.
  try {
    const open = Document.prototype.open;
    Document.prototype.open = function (...args) {
      const r = open.apply(this, args);
      try { if (this === document) addEventListener("message", record, true); } catch {}
      return r;
    };
  } catch {}
  Object.defineProperty(window, name, {
    enumerable: false,
    value: (child) => log.map(({ source, ...e }) => ({
      ...e,
      from: source === null ? "none" : source === window ? "self" : (window.parent !== window && source === window.parent) ? "parent" : (child && source === child) ? "child" : "other",
    })),
  });
})();`

// recordFrameMessages makes every frame of c record the messages it
// receives. It must run before c has pages.
func recordFrameMessages(c playwright.BrowserContext) error {
	return c.AddInitScript(playwright.Script{Content: playwright.String(frameMessagesScript)})
}

// FrameMessage is one message a frame received, as the recorder saw it.
type FrameMessage struct {
	Seq int `json:"seq"`
	// At is the receiver's Date.now(): for reading a record, never for
	// ordering frames (each frame's order is Seq).
	At     int64  `json:"at"`
	Origin string `json:"origin"`
	// From is the sender relative to the receiving frame: "parent",
	// "child" (the frame asked about), "self", "other" or "none".
	From       string          `json:"from"`
	Kind       string          `json:"kind"` // request, notification, response, other
	JSONRPC    bool            `json:"jsonrpc,omitempty"`
	Method     string          `json:"method,omitempty"`
	ID         json.RawMessage `json:"id,omitempty"`
	HTMLLength *int            `json:"htmlLength,omitempty"`
	HTMLHash   string          `json:"htmlHash,omitempty"`
	HTMLType   string          `json:"htmlType,omitempty"`
}

// FrameMessages is readFrameMessages' answer for the suite's View: what
// the host's frame (the page, or the host frame holding the proxy)
// received from the proxy frame, what the proxy received from the host
// and from the View, and what the View received. Without a proxy (the View
// is a child of the top-level page), Proxy is false, Host is what the page
// received from the View and ProxyLog is empty.
type FrameMessages struct {
	Proxy       bool   `json:"proxy"`
	HostOrigin  string `json:"hostOrigin"`
	ProxyOrigin string `json:"proxyOrigin,omitempty"`
	// Host's "child" is the proxy (or the View, without one); ProxyLog's
	// "parent" is the host and "child" the View; View's "parent" is the
	// proxy (or the host).
	Host     []FrameMessage `json:"host"`
	ProxyLog []FrameMessage `json:"proxyLog"`
	View     []FrameMessage `json:"view"`
}

// ReadFrameMessages reports the window messages the frames around the
// suite's View received (FrameMessages), for the checks of the sandbox
// handshake. The records are read View first, then the host, then the
// proxy: what a frame received from another was sent before that frame's
// record is read, so a request the View (or the host) holds was already in
// the proxy's record when it is read.
func (b *Base) ReadFrameMessages(ctx context.Context, req protocol.Request) (protocol.Result, error) {
	m, err := b.FrameMessages()
	if err != nil {
		return protocol.Result{}, err
	}
	return protocol.Result{OK: true, Value: MustJSON(m)}, nil
}

// FrameMessages reads the records around the suite's View
// (FrameMessagesAround).
func (b *Base) FrameMessages() (FrameMessages, error) {
	if b.Suite == nil {
		return FrameMessages{}, errors.New("suite not bound")
	}
	return FrameMessagesAround(b.Suite.Frame())
}

// FrameMessagesAround reads the records of the View frame view, its parent
// frame and, when that parent is a proxy (it has a parent of its own), the
// proxy's parent. Any View of a Base's context has them, the suite's or
// another a driver found.
func FrameMessagesAround(view playwright.Frame) (FrameMessages, error) {
	parent := view.ParentFrame()
	if parent == nil {
		return FrameMessages{}, errors.New("the suite's View is not in an iframe")
	}
	var out FrameMessages
	var err error
	if out.View, err = frameRecord(view, nil); err != nil {
		return FrameMessages{}, fmt.Errorf("the View's record: %w", err)
	}
	viewEl, err := view.FrameElement()
	if err != nil {
		return FrameMessages{}, fmt.Errorf("the View's iframe: %w", err)
	}
	host := parent.ParentFrame()
	if host == nil {
		// No proxy: the page itself holds the View.
		out.HostOrigin = frameOrigin(parent)
		out.Host, err = frameRecord(parent, viewEl)
		if err != nil {
			return FrameMessages{}, fmt.Errorf("the host page's record: %w", err)
		}
		return out, nil
	}
	out.Proxy = true
	out.HostOrigin, out.ProxyOrigin = frameOrigin(host), frameOrigin(parent)
	proxyEl, err := parent.FrameElement()
	if err != nil {
		return FrameMessages{}, fmt.Errorf("the proxy's iframe: %w", err)
	}
	if out.Host, err = frameRecord(host, proxyEl); err != nil {
		return FrameMessages{}, fmt.Errorf("the host frame's record: %w", err)
	}
	if out.ProxyLog, err = frameRecord(parent, viewEl); err != nil {
		return FrameMessages{}, fmt.Errorf("the proxy's record: %w", err)
	}
	return out, nil
}

// frameRecord reads f's record, naming the sender "child" when it is the
// window of child (an iframe element in f), which may be nil.
func frameRecord(f playwright.Frame, child playwright.ElementHandle) ([]FrameMessage, error) {
	const read = `(el) => { const r = window["` + frameMessagesGlobal + `"]; return typeof r === "function" ? JSON.stringify(r(el ? el.contentWindow : null)) : null; }`
	var v any
	var err error
	if child != nil {
		v, err = child.Evaluate(read, nil)
	} else {
		v, err = f.Evaluate(read, nil)
	}
	if err != nil {
		return nil, errors.New(FirstLine(err))
	}
	s, ok := v.(string)
	if !ok {
		// The frame's document ran no init script: a frame without
		// scripts (a sandbox with no allow-scripts) or one the browser
		// did not instrument.
		return nil, errors.New("the frame has no message record (its document ran no init script)")
	}
	var out []FrameMessage
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// frameOrigin is f's origin as its URL gives it ("" for an opaque or
// unparsable one).
func frameOrigin(f playwright.Frame) string {
	v, err := f.Evaluate(`() => location.origin`)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}
