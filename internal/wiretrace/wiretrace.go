// Package wiretrace logs the MCP HTTP traffic through our own servers and
// reverse proxies, for diagnosing a host whose requests go unanswered: per
// request its method, Mcp-Session-Id, the JSON-RPC ids and methods it
// carried, the status and bytes of its response, the JSON-RPC ids the
// response carried, write errors, whether the client went away and when
// the handler returned; and each connection's state changes. It is off
// unless MCPCONFORM_WIRE_TRACE names a file to append to.
package wiretrace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// EnvVar names the file the trace is appended to; unset or empty, no trace.
const EnvVar = "MCPCONFORM_WIRE_TRACE"

var (
	once sync.Once
	out  *log.Logger // nil: tracing off
	seq  atomic.Int64
)

func logger() *log.Logger {
	once.Do(func() {
		p := os.Getenv(EnvVar)
		if p == "" {
			return
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "wiretrace: %v\n", err)
			return
		}
		out = log.New(f, "", log.Ltime|log.Lmicroseconds)
	})
	return out
}

// On reports whether tracing is on.
func On() bool { return logger() != nil }

// Logf writes one line to the trace (nothing when off).
func Logf(format string, args ...any) {
	if l := logger(); l != nil {
		l.Printf(format, args...)
	}
}

// ErrorLog is a logger for an http.Server's or a ReverseProxy's ErrorLog
// writing into the trace, or fallback when tracing is off.
func ErrorLog(fallback *log.Logger) *log.Logger {
	if l := logger(); l != nil {
		return log.New(l.Writer(), "", log.Ltime|log.Lmicroseconds|log.Lmsgprefix)
	}
	return fallback
}

// ConnState logs the state changes of the server's connections under name
// (nil when off).
func ConnState(name string) func(net.Conn, http.ConnState) {
	if !On() {
		return nil
	}
	return func(c net.Conn, s http.ConnState) {
		Logf("%s conn %s->%s %s", name, c.RemoteAddr(), c.LocalAddr(), s)
	}
}

// Handler wraps h so that each request is traced under name; h itself
// when tracing is off.
func Handler(name string, h http.Handler) http.Handler {
	if !On() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := seq.Add(1)
		t0 := time.Now()
		Logf("%s #%d %s %s from %s length=%d session=%q accept=%q lastEventID=%q", name, n, r.Method, r.URL.Path, r.RemoteAddr,
			r.ContentLength, r.Header.Get("Mcp-Session-Id"), r.Header.Get("Accept"), r.Header.Get("Last-Event-Id"))
		if r.Body != nil && r.Body != http.NoBody {
			// Not read ahead: whoever reads the body reads it as before,
			// through this recorder, so the timing of the reads is theirs.
			r.Body = &body{ReadCloser: r.Body, name: name, n: n}
		}
		tw := &writer{ResponseWriter: w, name: name, n: n}
		defer func() {
			p := recover()
			Logf("%s #%d returned after %s: status=%d bytes=%d flushes=%d writeErr=%v clientGone=%v panic=%v",
				name, n, time.Since(t0).Round(time.Millisecond), tw.status, tw.bytes, tw.flushes.Load(), tw.err, r.Context().Err(), p)
			if p != nil {
				panic(p)
			}
		}()
		h.ServeHTTP(tw, r)
	})
}

// body records a request body as it is read and logs its JSON-RPC
// summary at EOF, and every other read error and the close.
type body struct {
	io.ReadCloser
	name string
	n    int64
	buf  bytes.Buffer
	eof  bool
}

func (b *body) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.buf.Write(p[:k])
	switch {
	case err == io.EOF && !b.eof:
		b.eof = true
		Logf("%s #%d body read to EOF (%d bytes): rpc=%s", b.name, b.n, b.buf.Len(), summary(b.buf.Bytes()))
	case err != nil && err != io.EOF:
		Logf("%s #%d body read after %d bytes: %v", b.name, b.n, b.buf.Len(), err)
	}
	return k, err
}

func (b *body) Close() error {
	err := b.ReadCloser.Close()
	Logf("%s #%d body closed (err=%v)", b.name, b.n, err)
	return err
}

// summary is the JSON-RPC ids and methods of a message or batch.
func summary(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "-"
	}
	msgs := []json.RawMessage{body}
	if body[0] == '[' {
		_ = json.Unmarshal(body, &msgs)
	}
	var b bytes.Buffer
	for i, m := range msgs {
		var x struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(m, &x) != nil {
			return fmt.Sprintf("unparsed(%d bytes)", len(body))
		}
		if i > 0 {
			b.WriteByte(',')
		}
		kind := x.Method
		switch {
		case kind != "":
		case x.Error != nil:
			kind = "error"
		default:
			kind = "result"
		}
		fmt.Fprintf(&b, "%s[%s]", kind, x.ID)
	}
	return b.String()
}

// writer records what the handler wrote: status, bytes, flushes, the
// first write error, and each SSE event's JSON-RPC summary.
type writer struct {
	http.ResponseWriter
	name    string
	n       int64
	status  int
	bytes   int
	flushes atomic.Int64 // ReverseProxy may flush from a timer goroutine
	err     error
}

func (w *writer) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		Logf("%s #%d header %d %s", w.name, w.n, code, w.Header().Get("Content-Type"))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *writer) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += n
	if err != nil && w.err == nil {
		w.err = err
	}
	Logf("%s #%d wrote %d bytes err=%v: %s", w.name, w.n, n, err, events(p))
	return n, err
}

func (w *writer) Flush() {
	w.flushes.Add(1)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *writer) FlushError() error {
	w.flushes.Add(1)
	err := http.NewResponseController(w.ResponseWriter).Flush()
	if err != nil {
		Logf("%s #%d flush err=%v", w.name, w.n, err)
	}
	return err
}

func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// events summarises the data lines of SSE text (or a JSON body).
func events(p []byte) string {
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(p))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			fmt.Fprintf(&b, "data %s; ", summary(bytes.TrimPrefix(line, []byte("data:"))))
		case bytes.HasPrefix(line, []byte("{")), bytes.HasPrefix(line, []byte("[")):
			fmt.Fprintf(&b, "json %s; ", summary(line))
		case len(line) > 0:
			fmt.Fprintf(&b, "%q; ", truncate(line, 40))
		}
	}
	return b.String()
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// Transport is a clone of http.DefaultTransport that logs each connection
// it dials under name, or nil (the default transport) when tracing is off.
func Transport(name string) http.RoundTripper {
	if !On() {
		return nil
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			Logf("%s dial %s: %v", name, addr, err)
			return nil, err
		}
		Logf("%s dial %s->%s", name, c.LocalAddr(), c.RemoteAddr())
		return &tracedConn{Conn: c, name: name}, nil
	}
	return t
}

// tracedConn logs its close and its read errors other than EOF.
type tracedConn struct {
	net.Conn
	name string
}

func (c *tracedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		Logf("%s conn %s->%s read: %v", c.name, c.LocalAddr(), c.RemoteAddr(), err)
	}
	return n, err
}

func (c *tracedConn) Close() error {
	Logf("%s conn %s->%s closed by the transport", c.name, c.LocalAddr(), c.RemoteAddr())
	return c.Conn.Close()
}
