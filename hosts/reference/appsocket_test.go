package reference

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func appSocketServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveAppSocket(w, r, nil, DefectSet{})
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// Each request on the page's app socket is answered with its own id and
// POST /api/app's answer (here appCall's error for a server the host is
// not connected to); a message that is no request closes the socket.
func TestAppSocketAnswersEachRequestWithItsID(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, appSocketServer(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for _, id := range []int{7, 8} {
		req := map[string]any{"id": id, "serverId": "nope", "method": "tools/call", "params": map[string]any{"name": "x"}}
		b, _ := json.Marshal(req)
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	got := map[int]string{}
	for range 2 {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var a struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
		}
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("answer %s: %v", b, err)
		}
		if a.Error == nil || a.Result != nil {
			t.Fatalf("answer %s: want an error and no result", b)
		}
		got[a.ID] = a.Error.Message
	}
	for _, id := range []int{7, 8} {
		if want := "unknown server connection nope"; got[id] != want {
			t.Errorf("answer to %d: %q, want %q (all: %v)", id, got[id], want, got)
		}
	}
	if err := c.Write(ctx, websocket.MessageText, []byte("not json")); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Read(ctx)
	if s := websocket.CloseStatus(err); s != websocket.StatusUnsupportedData {
		t.Errorf("after a message that is no request: %v (close status %d), want the socket closed with %d", err, s, websocket.StatusUnsupportedData)
	}
}

// Only the host page's own origin may open the socket: another page the
// browser shows must not call the host's servers through it.
func TestAppSocketRefusesAnotherOrigin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{"Origin": {"http://localhost:1"}}
	c, resp, err := websocket.Dial(ctx, appSocketServer(t), &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		c.CloseNow()
		t.Fatal("a page of another origin opened the app socket")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("refusal: %v, response %v, want 403", err, resp)
	}
}
