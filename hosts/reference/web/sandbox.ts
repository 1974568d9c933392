// The sandbox proxy (S L472-487). It runs on its own origin, receives the
// View's HTML from the host, renders it in an inner iframe with an opaque
// origin, and relays JSON-RPC both ways, checking who is speaking. Its own
// document carries the CSP built from _meta.ui.csp, which the srcdoc View
// inherits.

import { withMetaCSP } from "./metacsp";

const config = JSON.parse(document.getElementById("config")!.textContent!) as { hostOrigin: string; metaCSP?: string; defects?: string[] };
const hostOrigin = config.hostOrigin;
const defect = (name: string): boolean => (config.defects ?? []).includes(name);
let inner: HTMLIFrameElement | null = null;

const PROXY_READY = { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} };
// The resource-before-proxy-ready defect: the proxy announces itself only
// once it has forwarded the View's first message (and the host, which
// sends the HTML when the proxy's frame has loaded, never waited for it).
let announced = false;
// The proxy-synthesises-ping defect: the id of the proxy's own ping to the
// View, whose answer it keeps to itself (S L486: "The Sandbox SHOULD NOT
// create/send any requests to the Host or to the View").
const OWN_PING_ID = "mcpconform-proxy-ping";

document.documentElement.style.height = "100%";
document.body.style.cssText = "margin:0;height:100%;overflow:hidden";

window.addEventListener("message", (ev: MessageEvent) => {
  const msg = ev.data;
  if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
  if (ev.source === window.parent) {
    if (ev.origin !== hostOrigin) return; // only our host may drive the proxy
    if (msg.method === "ui/notifications/sandbox-resource-ready") {
      render(msg.params ?? {});
      return;
    }
    // Everything else goes to the View untouched.
    inner?.contentWindow?.postMessage(msg, "*");
    return;
  }
  if (inner && ev.source === inner.contentWindow) {
    // sandbox-* methods are reserved between host and proxy (S L485).
    if (typeof msg.method === "string" && msg.method.startsWith("ui/notifications/sandbox-")) return;
    if (defect("proxy-synthesises-ping")) {
      if (msg.id === OWN_PING_ID && !("method" in msg)) return;
      // Before the View's initialized reaches the host, so the ping is
      // at the View before anything the host sends afterwards.
      if (msg.method === "ui/notifications/initialized") inner.contentWindow?.postMessage({ jsonrpc: "2.0", id: OWN_PING_ID, method: "ping", params: {} }, "*");
    }
    window.parent.postMessage(msg, hostOrigin);
    if (!announced && defect("resource-before-proxy-ready")) announce();
  }
});

// _meta.ui.permissions → the inner iframe's allow attribute (S L484: the
// Sandbox MAY set it; the draft's sandbox-resource-ready carries them).
const FEATURES: Record<string, string> = { camera: "camera", microphone: "microphone", geolocation: "geolocation", clipboardWrite: "clipboard-write" };

function render(p: { html?: string; sandbox?: string | null; permissions?: Record<string, unknown> }): void {
  inner?.remove();
  inner = document.createElement("iframe");
  // No allow-same-origin: the View gets an opaque origin and cannot reach
  // into this proxy's DOM to escape its CSP (the choice MCP Inspector v2
  // also makes; the spec's MUST covers only the proxy's own sandbox).
  // null is the host asking for no sandbox attribute on this frame: the
  // View is then sandboxed only by the flags it inherits from this proxy's
  // own iframe (the view-sandbox-inherited variation), or not at all when
  // the host also left the proxy bare (the view-not-sandboxed defect).
  if (p.sandbox !== null) inner.setAttribute("sandbox", p.sandbox ?? "allow-scripts allow-forms");
  const allow = Object.keys(p.permissions ?? {})
    .filter((k) => k in FEATURES)
    .map((k) => FEATURES[k])
    .join("; ");
  if (allow) inner.setAttribute("allow", allow);
  inner.style.cssText = "border:0;width:100%;height:100%;display:block";
  // The csp-meta variation: the View's policy travels in its own document,
  // first in <head>, instead of in this proxy's response header.
  inner.srcdoc = withMetaCSP(p.html ?? "", config.metaCSP);
  document.body.appendChild(inner);
}

function announce(): void {
  announced = true;
  window.parent.postMessage(PROXY_READY, hostOrigin);
}

// The no-proxy-ready defect: the proxy never announces itself (S L476).
if (!defect("no-proxy-ready") && !defect("resource-before-proxy-ready")) announce();

export {};
