package browserhost

import "github.com/mxschmitt/playwright-go"

// renderedExpr resolves after the page has rendered two frames (the
// second starts after the first's work, a framework's re-render included),
// or after 200 ms where no frames come (a page the browser does not paint:
// hidden, or behind another window).
const renderedExpr = `() => new Promise((done) => {
	const timer = setTimeout(done, 200);
	requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); done(); }));
})`

// Rendered waits until page has re-rendered after what the driver just
// did (a form's fields set): the page's own frames, not a fixed sleep.
func Rendered(page playwright.Page) error {
	_, err := page.Evaluate(renderedExpr)
	return err
}
