package reference

import (
	"encoding/json"
	"net/http"

	"github.com/coder/websocket"
)

// The View's requests that the page forwards to its backend (tools/call,
// resources/read, resources/list: the same appRequest as POST /api/app)
// travel over one WebSocket per page. A fetch from the page costs 1.5–2.5
// ms in Chromium for what the backend answers in 0.2 ms (renderer →
// network service → backend and back, with loader bookkeeping); a message
// on an open socket costs about 0.2 ms. Every tools/call of a View crosses
// this hop, long-polled ones included (docs/performance.md).
// POST /api/app stays for a page whose socket could not open.

// socketRequest is an appRequest with the id its answer carries back.
type socketRequest struct {
	ID int64 `json:"id"`
	appRequest
}

// serveAppSocket answers appRequests on a WebSocket, each as soon as it is
// done: requests are independent (a long-polled tools/call must not hold
// up a resources/read), so they run concurrently and answers may overtake
// each other. The connection lives as long as the page's request context:
// the server's Close cancels it.
func serveAppSocket(w http.ResponseWriter, r *http.Request, conns []*conn, defects DefectSet) {
	// Accept refuses an Origin other than the page's own host.
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the request
	}
	defer c.CloseNow()
	c.SetReadLimit(4 << 20) // as POST /api/app
	ctx := r.Context()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		var req socketRequest
		if err := json.Unmarshal(data, &req); err != nil {
			c.Close(websocket.StatusUnsupportedData, "not an app request")
			return
		}
		go func() {
			// The same answer as POST /api/app's, with the request's id.
			res, rerr := appCall(ctx, conns, defects, req.appRequest)
			a := map[string]any{"id": req.ID, "result": res}
			if rerr != nil {
				a = map[string]any{"id": req.ID, "error": rerr}
			}
			b, err := json.Marshal(a)
			if err != nil {
				b, _ = json.Marshal(map[string]any{"id": req.ID, "error": &rpcError{Code: -32603, Message: err.Error()}})
			}
			c.Write(ctx, websocket.MessageText, b) // safe concurrently; fails only once the socket is gone
		}()
	}
}
