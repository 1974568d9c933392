package browserhost_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A confirm button whose click starts a navigation that takes its time (a
// host opening the link it was asked to) is clicked, and ClickWhenVisible
// returns without waiting for that page: the click was made. Before, the
// navigation's wait counted against the timeout, and a made click ended in
// a timeout, read as "no dialog appeared".
func TestClickWhenVisibleDoesNotWaitForTheNavigationItStarts(t *testing.T) {
	release := make(chan struct{})
	hit := make(chan struct{}, 1)
	b := openHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case hit <- struct{}{}:
			default:
			}
			holdUntil(release, r)
			fmt.Fprint(w, "<p>slow page</p>")
			return
		}
		fmt.Fprint(w, `<!doctype html><button id="confirm" onclick="location.href='/slow'">Open</button>`)
	}))
	// Before the server's and the page's cleanups (they run last in, first
	// out): the held request then ends, and the server can close.
	t.Cleanup(func() { close(release) })
	if err := b.ClickWhenVisible("#confirm", 2*time.Second); err != nil {
		t.Fatalf("the click was made, but ClickWhenVisible said: %v", err)
	}
	// The navigation the click started reached the server: the click was
	// made. (Nothing is evaluated in the page: it waits for the navigation.)
	select {
	case <-hit:
	case <-time.After(10 * time.Second):
		t.Error("the click started no navigation")
	}
}

// A link the host page opens with window.open(url, "_blank", "noopener")
// is seen from the popup's first navigation request, which Playwright
// reports before it knows the popup (the request's Frame is nil). The
// link's server never answers, so there is no second request (Chromium
// requests an error page's URL again a second later, which hid the
// dropped first one): LinkOpened saw nothing before the fix.
func TestLinkOpenedSeesAPopupsFirstRequest(t *testing.T) {
	release := make(chan struct{})
	b := openHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/link" {
			holdUntil(release, r)
			return
		}
		fmt.Fprint(w, `<!doctype html><button id="open" onclick="window.open('/link?x=1', '_blank', 'noopener')">Open</button>`)
	}))
	t.Cleanup(func() { close(release) })
	link := strings.TrimSuffix(b.Page.URL(), "/") + "/link?x=1"
	if err := b.ClickWhenVisible("#open", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	r, err := b.LinkOpened(context.Background(), link, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK {
		t.Fatalf("the page opened %s in a new tab; LinkOpened: %s", link, r.Error)
	}
}

// holdUntil holds request r until release is closed (by the test's
// cleanup, registered after openHandler's so that it runs first) or r
// ends.
func holdUntil(release <-chan struct{}, r *http.Request) {
	select {
	case <-release:
	case <-r.Context().Done():
	}
}

// Reset dismisses a host page's modal question with Escape although the
// focus is in a View's frame (a click into it made the last request): the
// key goes to the focused frame, so before the fix the question stayed,
// covering the page for every later check (two reference defects together,
// a download made without a question and a javascript: link offered for
// confirmation, turned a dozen checks red).
func TestResetDismissesADialogWhileAFrameHasTheFocus(t *testing.T) {
	b := openHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body>
<iframe id="view" srcdoc="<button id=in onclick=&quot;this.textContent='clicked'&quot;>in the View</button>"></iframe>
<script>
function ask() {
  const d = document.createElement("div");
  d.id = "question";
  d.setAttribute("role", "dialog");
  d.textContent = "Open external link?";
  document.body.append(d);
  const esc = (ev) => { if (ev.key === "Escape") { d.remove(); document.removeEventListener("keydown", esc); } };
  document.addEventListener("keydown", esc);
}
</script></body>`)
	}))
	in := b.Page.FrameLocator("#view").Locator("#in")
	if err := in.Click(); err != nil {
		t.Fatal(err)
	}
	focus, err := b.Page.Evaluate(`() => document.activeElement?.id`)
	if err != nil {
		t.Fatal(err)
	}
	if focus != "view" {
		t.Fatalf("the click into the frame should have left the focus there, the page's activeElement is %v", focus)
	}
	if _, err := b.Page.Evaluate(`() => ask()`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	n, err := b.Page.Locator("#question").Count()
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("Reset left the host page's question open: its Escape went to the focused frame, not to the page")
	}
}
