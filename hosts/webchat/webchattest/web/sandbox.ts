// The sandbox proxy of the imitations (test only): on its own origin, it
// renders the View's HTML in an inner srcdoc iframe (an opaque origin that
// inherits this document's CSP) and relays JSON-RPC, checking who speaks.

declare global {
  interface Window {
    __sandboxConfig: { hostOrigin: string };
  }
}

const hostOrigin = window.__sandboxConfig.hostOrigin;
let inner: HTMLIFrameElement | null = null;

window.addEventListener("message", (ev: MessageEvent) => {
  const msg = ev.data;
  if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
  if (ev.source === window.parent) {
    if (ev.origin !== hostOrigin) return;
    if (msg.method === "ui/notifications/sandbox-resource-ready") {
      render(msg.params ?? {});
      return;
    }
    inner?.contentWindow?.postMessage(msg, "*");
    return;
  }
  if (inner && ev.source === inner.contentWindow) {
    if (typeof msg.method === "string" && msg.method.startsWith("ui/notifications/sandbox-")) return;
    window.parent.postMessage(msg, hostOrigin);
  }
});

function render(p: { html?: string; sandbox?: string }): void {
  inner?.remove();
  inner = document.createElement("iframe");
  inner.setAttribute("sandbox", p.sandbox ?? "allow-scripts allow-forms");
  inner.style.cssText = "border:0;width:100%;height:100%;display:block";
  inner.srcdoc = p.html ?? "";
  document.documentElement.style.height = "100%";
  document.body.style.cssText = "margin:0;height:100%;overflow:hidden";
  document.body.appendChild(inner);
}

window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, hostOrigin);

export {};
