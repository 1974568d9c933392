// The reference host page: a small chat product that renders MCP Apps the
// way the spec describes (S 2026-01-26 plus draft). It talks JSON-RPC with
// each View through the sandbox proxy, proxies server requests to the Go
// backend (which enforces visibility), and keeps a log of every message.

interface Config {
  defects: string[];
  sandboxURL: string;
  hostName: string;
  version: string;
}
const config = JSON.parse(document.getElementById("config")!.textContent!) as Config;
const sandboxOrigin = new URL(config.sandboxURL).origin;
// Switchable defects (mcpconform run --host-defect NAME) break exactly one
// requirement each, so the suite's self-test can prove its checks fail.
const defect = (name: string): boolean => config.defects.includes(name);
// Without a proxy the View is a srcdoc frame of this page with an opaque origin.
const direct = defect("no-sandbox-proxy");
// A proxy without allow-same-origin has an opaque origin too.
const opaqueProxy = direct || defect("proxy-without-same-origin");
const viewOrigin = opaqueProxy ? "null" : sandboxOrigin;
const SUPPORTED_VERSIONS = ["2026-01-26"];
const DISPLAY_MODES = ["inline", "fullscreen", "pip"];

type Theme = "light" | "dark";
let theme: Theme = "light";

// ---------------------------------------------------------------- layout
function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

const themeBtn = el("button", { "data-testid": "theme-toggle", class: "icon-btn", title: "Toggle theme" }, "Dark mode");
const header = el("header", { class: "topbar" }, el("div", { class: "brand" }, el("span", { class: "logo" }, "◆"), "Reference Host"), el("div", { class: "spacer" }), themeBtn);
const conversation = el("div", { class: "conversation", "data-testid": "conversation", role: "log" });
const input = el("textarea", { "data-testid": "composer", rows: "1", placeholder: "Message the agent — try “Run the conformance suite”" });
const sendBtn = el("button", { "data-testid": "send", class: "send", type: "submit" }, "Send");
const composer = el("form", { class: "composer" }, input, sendBtn);
const chat = el("main", { class: "chat" }, conversation, composer);
const logList = el("ol", { class: "log", "data-testid": "rpc-log" });
const side = el("aside", { class: "side" }, el("h2", {}, "Protocol log"), logList);
const dialogs = el("div", { class: "dialogs" });
document.body.append(header, el("div", { class: "layout" }, chat, side), dialogs);

// ---------------------------------------------------------------- log
function log(dir: "→ view" | "← view" | "host", msg: unknown): void {
  const t = new Date();
  const ts = t.toISOString().slice(11, 23);
  const text = typeof msg === "string" ? msg : JSON.stringify(msg);
  const li = el("li", {}, el("time", {}, ts), el("span", { class: "dir" }, dir), el("code", {}, text.length > 400 ? text.slice(0, 400) + "…" : text));
  logList.append(li);
  while (logList.children.length > 500) logList.firstElementChild!.remove();
  logList.scrollTop = logList.scrollHeight;
  console.debug(`[rpc ${dir}] ${text}`);
}

// ---------------------------------------------------------------- conversation
function addTurn(role: "user" | "assistant", text: string): HTMLElement {
  const turn = el("div", { class: `turn ${role}`, "data-role": role }, el("div", { class: "bubble" }, text));
  conversation.append(turn);
  conversation.scrollTop = conversation.scrollHeight;
  return turn;
}

async function api<T = any>(path: string, body: unknown): Promise<T> {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json();
}

async function userMessage(text: string): Promise<void> {
  addTurn("user", text);
  const r = await api<{ reply: string; launch?: Launch | null }>("/api/chat", { text });
  const turn = addTurn("assistant", r.reply);
  if (r.launch) new AppView(r.launch, turn);
}

composer.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  void userMessage(text);
});
input.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey) {
    ev.preventDefault();
    composer.requestSubmit();
  }
});

// ---------------------------------------------------------------- dialogs
function confirmDialog(kind: string, title: string, detail: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ok = el("button", { "data-testid": "dialog-confirm", class: "primary" }, "Allow");
    const no = el("button", { "data-testid": "dialog-cancel" }, "Cancel");
    const box = el("div", { class: "dialog", role: "dialog", "aria-modal": "true", "data-testid": `dialog-${kind}` }, el("h3", {}, title), el("p", { class: "detail" }, detail), el("div", { class: "actions" }, no, ok));
    const backdrop = el("div", { class: "backdrop" }, box);
    const done = (v: boolean) => {
      backdrop.remove();
      document.removeEventListener("keydown", esc);
      resolve(v);
    };
    const esc = (ev: KeyboardEvent) => {
      if (ev.key === "Escape") done(false);
    };
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    document.addEventListener("keydown", esc);
    dialogs.append(backdrop);
  });
}

// ---------------------------------------------------------------- theme
const palette: Record<Theme, Record<string, string>> = {
  light: { "--color-background-primary": "#ffffff", "--color-text-primary": "#111827", "--color-border-primary": "#e5e7eb" },
  dark: { "--color-background-primary": "#111827", "--color-text-primary": "#f9fafb", "--color-border-primary": "#374151" },
};
function styles(): Record<string, unknown> {
  return { variables: { ...palette[theme], "--font-sans": "system-ui, sans-serif", "--border-radius-md": "8px" } };
}
function setTheme(t: Theme): void {
  if (t === theme) return;
  theme = t;
  document.body.className = `theme-${t}`;
  themeBtn.textContent = t === "dark" ? "Light mode" : "Dark mode";
  if (defect("no-context-changed-on-theme")) return;
  for (const v of views) v.contextChanged({ theme, styles: styles() });
}
themeBtn.addEventListener("click", () => setTheme(theme === "light" ? "dark" : "light"));

// ---------------------------------------------------------------- views
interface Launch {
  serverId: string;
  tool: { name: string; title?: string; inputSchema?: unknown; _meta?: Record<string, unknown> };
  callId: string;
  arguments: Record<string, unknown>;
  result: unknown;
  resource: { uri: string; html: string; ui: { csp?: Record<string, string[]>; permissions?: Record<string, unknown> } } | null;
}

const views: AppView[] = [];

class AppView {
  readonly frame: HTMLIFrameElement;
  readonly card: HTMLElement;
  private initialized = false;
  private appCapabilities: any = {};
  private broken = false;
  private displayMode = "inline";
  private nextId = 1;
  private pending = new Map<number, (msg: any) => void>();

  constructor(
    readonly launch: Launch,
    after: HTMLElement,
  ) {
    const csp = launch.resource?.ui?.csp;
    const src = config.sandboxURL + (csp ? `?csp=${encodeURIComponent(JSON.stringify(csp))}` : "");
    this.frame = direct
      ? el("iframe", { "data-testid": "app-frame", title: launch.tool.title ?? launch.tool.name, sandbox: "allow-scripts allow-forms", srcdoc: launch.resource?.html ?? "" })
      : el("iframe", {
          "data-testid": "app-frame",
          title: launch.tool.title ?? launch.tool.name,
          // The proxy's permissions as the spec requires (S L475).
          sandbox: defect("proxy-without-same-origin") ? "allow-scripts allow-forms" : "allow-scripts allow-same-origin allow-forms",
          src,
        });
    this.card = el("div", { class: "app-card", "data-testid": "app-card", "data-mode": "inline" }, el("div", { class: "app-title" }, `App · ${launch.tool.name}`), this.frame);
    after.after(this.card);
    views.push(this);
    window.addEventListener("message", this.onMessage);
  }

  private post(msg: unknown): void {
    this.frame.contentWindow?.postMessage(msg, opaqueProxy ? "*" : sandboxOrigin);
  }

  send(msg: any): void {
    log("→ view", msg);
    this.post(msg);
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  contextChanged(partial: Record<string, unknown>): void {
    if (this.initialized) this.notify("ui/notifications/host-context-changed", partial);
  }

  private hostContext(): Record<string, unknown> {
    return {
      theme,
      styles: styles(),
      displayMode: defect("display-mode-unavailable") ? "maximized" : this.displayMode,
      availableDisplayModes: DISPLAY_MODES,
      containerDimensions: defect("container-dimensions-both")
        ? { height: 420, maxHeight: 6000, width: 640 }
        : { maxHeight: 6000, width: Math.round(this.frame.getBoundingClientRect().width) || 640 },
      locale: navigator.language || "en-US",
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `${config.hostName}/${config.version}`,
      platform: "web",
      deviceCapabilities: { touch: false, hover: true },
      safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
      toolInfo: { id: this.launch.callId, tool: this.launch.tool },
    };
  }

  private hostCapabilities(): Record<string, unknown> {
    const csp = this.launch.resource?.ui?.csp;
    return {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      message: { text: {} },
      updateModelContext: { text: {}, structuredContent: {} },
      sampling: {},
      sandbox: csp ? { csp } : {},
    };
  }

  private onMessage = (ev: MessageEvent): void => {
    if (ev.source !== this.frame.contentWindow || ev.origin !== viewOrigin) return;
    const msg = ev.data;
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
    if (msg.method === "ui/notifications/sandbox-proxy-ready") {
      this.post({
        jsonrpc: "2.0",
        method: "ui/notifications/sandbox-resource-ready",
        params: {
          html: this.launch.resource?.html ?? "",
          csp: this.launch.resource?.ui?.csp,
          sandbox: defect("view-not-sandboxed") ? null : "allow-scripts allow-forms",
        },
      });
      return;
    }
    log("← view", msg);
    if (this.broken) return;
    const malformed = ("method" in msg && typeof msg.method !== "string") || ("id" in msg && !["string", "number"].includes(typeof msg.id));
    if (malformed) {
      // Invalid frames are dropped; the session goes on (S §Security).
      log("host", "dropped a malformed JSON-RPC frame from the View");
      if (defect("malformed-breaks-session")) this.broken = true;
      return;
    }
    if (typeof msg.method === "string" && "id" in msg) {
      void this.onRequest(msg);
    } else if (typeof msg.method === "string") {
      this.onNotification(msg);
    } else if ("id" in msg) {
      this.pending.get(msg.id)?.(msg);
      this.pending.delete(msg.id);
    }
  };

  private reply(id: unknown, result: unknown): void {
    this.send({ jsonrpc: "2.0", id, result });
  }

  private error(id: unknown, code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private async onRequest(msg: any): Promise<void> {
    const p = msg.params ?? {};
    try {
      switch (msg.method) {
        case "ui/initialize": {
          this.appCapabilities = p.appCapabilities ?? {};
          let v = SUPPORTED_VERSIONS.includes(p.protocolVersion) ? p.protocolVersion : SUPPORTED_VERSIONS[0];
          if (defect("protocol-version-wrong")) v = "0.1";
          const info = { name: config.hostName, version: config.version };
          const ctx = this.hostContext();
          if (defect("host-context-mistyped")) ctx.theme = "blue";
          this.reply(msg.id, {
            protocolVersion: v,
            ...(defect("hostinfo-missing") ? { host: info } : { hostInfo: info }),
            hostCapabilities: this.hostCapabilities(),
            hostContext: ctx,
          });
          if (defect("talks-before-initialized")) this.sendToolData();
          return;
        }
        case "ping":
          if (defect("ping-unanswered")) return this.error(msg.id, -32601, "Method not found: ping");
          return this.reply(msg.id, {});
        case "tools/call":
        case "resources/read":
        case "resources/list": {
          if (msg.method !== "tools/call" && defect("resources-not-proxied")) return this.error(msg.id, -32601, `Method not found: ${msg.method}`);
          const r = await api<{ result?: any; error?: { code: number; message: string } }>("/api/app", { serverId: this.launch.serverId, method: msg.method, params: p });
          if (r.error) return this.error(msg.id, r.error.code, r.error.message);
          if (msg.method === "tools/call" && r.result?.isError && defect("tool-error-as-rpc-error")) return this.error(msg.id, -32603, "tool failed");
          return this.reply(msg.id, r.result);
        }
        case "ui/message": {
          if (p.role !== "user") return this.error(msg.id, -32602, "ui/message: role must be user");
          const blocks = Array.isArray(p.content) ? p.content : p.content ? [p.content] : [];
          const text = blocks.filter((b: any) => b?.type === "text").map((b: any) => b.text).join("\n");
          if (!text) return this.error(msg.id, -32602, "ui/message: no text content");
          this.reply(msg.id, {});
          if (defect("message-dropped")) return;
          await userMessage(text);
          return;
        }
        case "ui/open-link": {
          let url: URL;
          try {
            url = new URL(String(p.url));
          } catch {
            return this.error(msg.id, -32602, "Invalid URL");
          }
          if (url.protocol !== "http:" && url.protocol !== "https:" && !defect("open-link-unvalidated")) return this.error(msg.id, -32602, "Invalid URL: only http and https links open");
          const ok = await confirmDialog("open-link", "Open external link?", url.href);
          if (!ok) return this.error(msg.id, -32000, "The user declined to open the link");
          if (!defect("link-not-opened")) window.open(url.href, "_blank", "noopener");
          return this.reply(msg.id, {});
        }
        case "ui/update-model-context":
          if (defect("update-model-context-unimplemented")) return this.error(msg.id, -32601, "Method not found: ui/update-model-context");
          await api("/api/model-context", p);
          return this.reply(msg.id, {});
        case "sampling/createMessage": {
          if (!Array.isArray(p.messages) || p.messages.length === 0) return this.error(msg.id, -32602, "sampling/createMessage needs messages");
          const ok = await confirmDialog("sampling", "Let the app use the model?", "The app asks for a model completion.");
          if (!ok) return this.error(msg.id, -32000, "The user declined the sampling request");
          const r = await api<{ result: unknown }>("/api/sample", p);
          return this.reply(msg.id, r.result);
        }
        case "ui/request-display-mode": {
          // Never switch to a mode the app did not declare (S L786); answer
          // with the resulting mode, the current one when refused (L787-788).
          const declared: string[] | undefined = this.appCapabilities?.availableDisplayModes;
          const want = String(p.mode);
          const allowed = DISPLAY_MODES.includes(want) && (!declared || declared.includes(want) || defect("undeclared-display-mode-granted"));
          if (allowed && want !== this.displayMode) {
            this.displayMode = want;
            this.card.dataset.mode = want;
            if (!defect("no-context-changed-on-display-mode")) this.contextChanged({ displayMode: want });
          }
          if (defect("display-mode-invalid-result")) return this.reply(msg.id, { mode: "maximized" });
          return this.reply(msg.id, { mode: this.displayMode });
        }
        default:
          if (defect("unknown-method-silent")) return;
          return this.error(msg.id, -32601, `Method not found: ${msg.method}`);
      }
    } catch (e) {
      this.error(msg.id, -32603, e instanceof Error ? e.message : String(e));
    }
  }

  private sendToolData(): void {
    let args = this.launch.arguments;
    if (defect("tool-input-extra-args")) args = { ...args, injected: "by-host" };
    let result: any = this.launch.result;
    if (defect("structured-content-stripped")) {
      const { structuredContent: _s, _meta: _m, ...rest } = result;
      result = rest;
    }
    // The agent streams its arguments: partial (healed) snapshots first, then
    // the complete ones once; never a partial after that (S L1120-1136).
    const keys = Object.keys(args);
    const partials = keys.map((_, i) => Object.fromEntries(keys.slice(0, i).map((k) => [k, args[k]])));
    const partial = (a: Record<string, unknown>) => this.notify("ui/notifications/tool-input-partial", { arguments: a });
    const input = () => this.notify("ui/notifications/tool-input", { arguments: args });
    if (!defect("partial-after-input")) partials.forEach(partial);
    const output = () => {
      if (!defect("tool-result-missing")) this.notify("ui/notifications/tool-result", result);
    };
    if (defect("tool-result-before-input")) {
      output();
      input();
      return;
    }
    input();
    if (defect("partial-after-input")) partials.forEach(partial);
    if (defect("tool-input-twice")) input();
    output();
  }

  private onNotification(msg: any): void {
    switch (msg.method) {
      case "ui/notifications/initialized":
        if (this.initialized) return;
        this.initialized = true;
        // Tool data only after initialized (S L485, L1106).
        if (!defect("talks-before-initialized")) this.sendToolData();
        return;
      case "ui/notifications/size-changed": {
        // Flexible height: the View drives it, up to maxHeight (S L718).
        const h = Number(msg.params?.height);
        if (defect("size-changed-ignored")) return;
        if (Number.isFinite(h) && h > 0 && this.displayMode === "inline") this.frame.style.height = `${Math.min(Math.ceil(h), 6000)}px`;
        return;
      }
      case "notifications/message":
        log("host", `app log [${msg.params?.level ?? "info"}]: ${JSON.stringify(msg.params?.data)}`);
        return;
    }
  }
}

log("host", `reference host ${config.version} ready; sandbox at ${sandboxOrigin}`);

export {};
