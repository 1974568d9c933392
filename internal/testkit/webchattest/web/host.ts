// The MCP Apps host inside the local imitations of hosted chat products
// (test only). The product page's glue (window.__mockProduct, from the
// product package's testdata) owns the product's DOM: turns, composer,
// dialogs, theme. This file owns the MCP Apps side: it asks the backend's
// scripted model, renders a View through the sandbox proxy on the other
// origin, and answers the View's JSON-RPC the way the spec asks.

interface ToolCall {
  id: string;
  tool: string;
  app: string;
}

interface Launch {
  serverId: string;
  tool: { name: string; title?: string; _meta?: Record<string, unknown> };
  callId: string;
  arguments: Record<string, unknown>;
  result: unknown;
  resource?: { uri: string; html: string; ui: { csp?: Record<string, string[]> } | null } | null;
}

type Theme = "light" | "dark";

export interface MockProduct {
  // addTurn renders one conversation turn and returns its element.
  addTurn(role: "user" | "assistant", text: string): HTMLElement;
  // mountApp puts an app card into the conversation, inside turn.
  mountApp(card: HTMLElement, turn: HTMLElement): void;
  // approveToolCall asks the user to let the model call a tool.
  approveToolCall(call: ToolCall, turn: HTMLElement): Promise<boolean>;
  // message handles a ui/message: send it, or draft it in the composer.
  message(text: string): Promise<void>;
  // confirmOpenLink resolves true when the link may open.
  confirmOpenLink(url: string): Promise<boolean>;
  // applyTheme shows the theme on the page the way the product does (its
  // mark on <html>); this file follows the system colour scheme and calls
  // it at load and on every change.
  applyTheme(t: Theme): void;
}

interface Config {
  sandboxURL: string;
  appName: string;
}

interface MockHost {
  submit(text: string, mentions: string[]): Promise<void>;
}

declare global {
  interface Window {
    __mockProduct: MockProduct;
    __mockConfig: Config;
    __mockHost: MockHost;
  }
}

const product = window.__mockProduct;
const config = window.__mockConfig;
const sandboxOrigin = new URL(config.sandboxURL).origin;
const MODES = ["inline", "fullscreen"];

async function api<T>(path: string, body: unknown): Promise<T> {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

async function submit(text: string, mentions: string[]): Promise<void> {
  product.addTurn("user", text);
  const r = await api<{ reply: string; call?: ToolCall }>("/api/chat", { text, mentions });
  const turn = product.addTurn("assistant", r.reply);
  if (!r.call) return;
  if (!(await product.approveToolCall(r.call, turn))) {
    product.addTurn("assistant", `You declined ${r.call.tool}.`);
    return;
  }
  const launch = await api<Launch>("/api/call", { id: r.call.id });
  new AppView(launch, turn);
}

window.__mockHost = { submit };

const views: AppView[] = [];
const media = matchMedia("(prefers-color-scheme: dark)");
const theme = (): Theme => (media.matches ? "dark" : "light");
product.applyTheme(theme());
media.addEventListener("change", () => {
  product.applyTheme(theme());
  for (const v of views) v.contextChanged({ theme: theme() });
});

class AppView {
  readonly frame: HTMLIFrameElement;
  readonly card: HTMLElement;
  private initialized = false;
  private mode = "inline";
  private declaredModes: string[] | null = null;

  constructor(
    readonly launch: Launch,
    turn: HTMLElement,
  ) {
    const csp = launch.resource?.ui?.csp;
    this.frame = document.createElement("iframe");
    this.frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    this.frame.title = launch.tool.title ?? launch.tool.name;
    this.frame.src = config.sandboxURL + (csp ? `?csp=${encodeURIComponent(JSON.stringify(csp))}` : "");
    this.frame.style.cssText = "border:0;width:100%;height:320px;display:block";
    this.card = document.createElement("div");
    this.card.className = "app-card";
    this.card.dataset.mode = "inline";
    this.card.append(this.frame);
    product.mountApp(this.card, turn);
    views.push(this);
    window.addEventListener("message", this.onMessage);
  }

  private post(msg: unknown): void {
    this.frame.contentWindow?.postMessage(msg, sandboxOrigin);
  }

  private reply(id: unknown, result: unknown): void {
    this.post({ jsonrpc: "2.0", id, result });
  }

  private error(id: unknown, code: number, message: string): void {
    this.post({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private notify(method: string, params: unknown): void {
    this.post({ jsonrpc: "2.0", method, params });
  }

  contextChanged(partial: Record<string, unknown>): void {
    if (this.initialized) this.notify("ui/notifications/host-context-changed", partial);
  }

  private hostContext(): Record<string, unknown> {
    return {
      theme: theme(),
      displayMode: this.mode,
      availableDisplayModes: MODES,
      containerDimensions: { maxHeight: 6000, width: Math.round(this.frame.getBoundingClientRect().width) || 640 },
      locale: navigator.language || "en-US",
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: "web",
      toolInfo: { id: this.launch.callId, tool: this.launch.tool },
    };
  }

  private onMessage = (ev: MessageEvent): void => {
    if (ev.source !== this.frame.contentWindow || ev.origin !== sandboxOrigin) return;
    const msg = ev.data;
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
    if (msg.method === "ui/notifications/sandbox-proxy-ready") {
      this.post({
        jsonrpc: "2.0",
        method: "ui/notifications/sandbox-resource-ready",
        params: { html: this.launch.resource?.html ?? "", sandbox: "allow-scripts allow-forms" },
      });
      return;
    }
    const malformed = ("method" in msg && typeof msg.method !== "string") || ("id" in msg && !["string", "number"].includes(typeof msg.id));
    if (malformed) return; // dropped; the session goes on
    if (typeof msg.method === "string" && "id" in msg) void this.onRequest(msg);
    else if (typeof msg.method === "string") this.onNotification(msg);
  };

  private async onRequest(msg: { id: unknown; method: string; params?: any }): Promise<void> {
    const p = msg.params ?? {};
    try {
      switch (msg.method) {
        case "ui/initialize":
          this.declaredModes = Array.isArray(p.appCapabilities?.availableDisplayModes) ? p.appCapabilities.availableDisplayModes : null;
          return this.reply(msg.id, {
            protocolVersion: "2026-01-26",
            hostInfo: { name: "webchattest", version: "0.0.1" },
            hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} } },
            hostContext: this.hostContext(),
          });
        case "ping":
          return this.reply(msg.id, {});
        case "tools/call":
        case "resources/read":
        case "resources/list": {
          const r = await api<{ result?: unknown; error?: { code: number; message: string } }>("/api/app", { serverId: this.launch.serverId, method: msg.method, params: p });
          if (r.error) return this.error(msg.id, r.error.code, r.error.message);
          return this.reply(msg.id, r.result);
        }
        case "ui/message": {
          if (p.role !== "user") return this.error(msg.id, -32602, "ui/message: role must be user");
          const blocks: unknown[] = Array.isArray(p.content) ? p.content : p.content ? [p.content] : [];
          const text = blocks
            .filter((b): b is { type: string; text: string } => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "text")
            .map((b) => b.text)
            .join("\n");
          if (!text) return this.error(msg.id, -32602, "ui/message: no text content");
          await product.message(text);
          return this.reply(msg.id, {});
        }
        case "ui/open-link": {
          let url: URL;
          try {
            url = new URL(String(p.url));
          } catch {
            return this.error(msg.id, -32602, "Invalid URL");
          }
          if (url.protocol !== "http:" && url.protocol !== "https:") return this.error(msg.id, -32602, "Invalid URL: only http and https links open");
          if (!(await product.confirmOpenLink(url.href))) return this.error(msg.id, -32000, "The user declined to open the link");
          window.open(url.href, "_blank", "noopener");
          return this.reply(msg.id, {});
        }
        case "ui/request-display-mode": {
          if (typeof p.mode !== "string" || !["inline", "fullscreen", "pip"].includes(p.mode)) return this.error(msg.id, -32602, "ui/request-display-mode: mode must be inline, fullscreen or pip");
          const want = p.mode;
          const ok = MODES.includes(want) && (!this.declaredModes || this.declaredModes.includes(want));
          if (ok && want !== this.mode) {
            this.mode = want;
            this.card.dataset.mode = want;
            this.contextChanged({ displayMode: want });
          }
          return this.reply(msg.id, { mode: this.mode });
        }
        default:
          return this.error(msg.id, -32601, `Method not found: ${msg.method}`);
      }
    } catch (e) {
      this.error(msg.id, -32603, e instanceof Error ? e.message : String(e));
    }
  }

  private onNotification(msg: { method: string; params?: any }): void {
    switch (msg.method) {
      case "ui/notifications/initialized":
        if (this.initialized) return;
        this.initialized = true;
        this.notify("ui/notifications/tool-input", { arguments: this.launch.arguments });
        this.notify("ui/notifications/tool-result", this.launch.result);
        return;
      case "ui/notifications/size-changed": {
        const h = Number(msg.params?.height);
        if (Number.isFinite(h) && h > 0 && this.mode === "inline") this.frame.style.height = `${Math.min(Math.ceil(h), 6000)}px`;
        return;
      }
      case "notifications/message":
        console.debug(`app log [${msg.params?.level ?? "info"}]: ${JSON.stringify(msg.params?.data)}`);
        return;
    }
  }
}

export {};
