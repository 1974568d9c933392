// devhost: a small MCP Apps host of the kind host teams build first, written
// for mcpconform's tests (not the reference host, and sharing no code with
// it): the user types the MCP server's URL (or the host's backend has one
// configured), picks a tool from the list, fills a form with one field per
// argument and calls it; each call with a UI shows its View in a card,
// rendered by a sandbox proxy on another port, with a Stop button while the
// call runs and a Close button. There is no model: ui/message texts go to a
// "Messages from apps" panel. The host asks "Allow download?" in its own
// modal. Its MCP client runs in the page and calls the server directly
// (the server must answer CORS).
"use strict";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const APPS_PROTOCOL = "2026-01-26";
const HOST_INFO = { name: "devhost", version: "0.1.0" };
const DISPLAY_MODES = ["inline", "fullscreen"];

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
};

// ---- the MCP client: Streamable HTTP from the page ----

class Client {
  constructor(url) {
    this.url = url;
    this.sid = null;
    this.protocol = "2025-06-18";
    this.nextId = 1;
  }

  headers() {
    const h = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (this.sid) Object.assign(h, { "Mcp-Session-Id": this.sid, "Mcp-Protocol-Version": this.protocol });
    return h;
  }

  async post(msg, signal) {
    const res = await fetch(this.url, { method: "POST", headers: this.headers(), body: JSON.stringify(msg), signal });
    const sid = res.headers.get("Mcp-Session-Id");
    if (sid) this.sid = sid;
    return res;
  }

  // request sends one request and returns its result; onId learns its id
  // (to cancel it), signal aborts the wait.
  async request(method, params, { signal, onId } = {}) {
    const id = this.nextId++;
    if (onId) onId(id);
    const res = await this.post({ jsonrpc: "2.0", id, method, params }, signal);
    if (!res.ok) throw new Error(`${method}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
    const sse = (res.headers.get("Content-Type") || "").includes("text/event-stream");
    const msg = sse ? await this.readStream(res, id) : await res.json();
    if (msg.error) throw Object.assign(new Error(msg.error.message), { rpc: msg.error });
    return msg.result;
  }

  // readStream reads the server's event stream until the response to id.
  async readStream(res, id) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the server's stream ended without the response");
      buf += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const event = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (!data) continue;
        const msg = JSON.parse(data);
        if (msg.id === id && ("result" in msg || "error" in msg)) {
          reader.cancel().catch(() => {});
          return msg;
        }
      }
    }
  }

  async notify(method, params) {
    const res = await this.post({ jsonrpc: "2.0", method, params });
    await res.text();
  }

  async connect() {
    const init = await this.request("initialize", {
      protocolVersion: this.protocol,
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [MIME] } } },
      clientInfo: HOST_INFO,
    });
    this.protocol = init.protocolVersion;
    await this.notify("notifications/initialized");
    const { tools } = await this.request("tools/list", {});
    const { resources } = await this.request("resources/list", {});
    this.tools = new Map(tools.map((t) => [t.name, t]));
    this.resources = new Map(resources.map((r) => [r.uri, r]));
  }
}

let client = null;
let config = {};

// ---- connecting, the tool list and the form ----

async function connect(url) {
  const status = $("[data-testid=status]");
  status.textContent = "connecting…";
  $("[data-testid=tool-list]").replaceChildren();
  try {
    const c = new Client(url);
    await c.connect();
    client = c;
  } catch (e) {
    status.textContent = "error: " + e.message;
    return;
  }
  status.textContent = "connected";
  for (const t of client.tools.values()) {
    const b = el("button", { type: "button", "data-tool": t.name }, t.name);
    b.onclick = () => selectTool(t);
    $("[data-testid=tool-list]").append(el("li", {}, b));
  }
}

// selectTool shows the tool's form: one field per property of its input
// schema (a checkbox for a boolean, a number field for a number, text for
// the rest, JSON for objects and arrays).
function selectTool(tool) {
  $("[data-testid=selected-tool]").textContent = tool.name;
  const form = $("#tool-form");
  form.dataset.tool = tool.name;
  const props = (tool.inputSchema && tool.inputSchema.properties) || {};
  const fields = Object.entries(props).map(([name, s]) => {
    const type = s.type === "boolean" ? "checkbox" : s.type === "number" || s.type === "integer" ? "number" : "text";
    const input = el(s.type === "object" || s.type === "array" ? "textarea" : "input", { name, "data-type": s.type || "string" });
    if (input.tagName === "INPUT") input.type = type;
    return el("label", {}, name + " ", input);
  });
  $("#fields").replaceChildren(...fields);
  form.hidden = false;
}

// formArguments reads the form: empty fields and unchecked boxes are left
// out (an optional argument not given).
function formArguments(form) {
  const args = {};
  for (const input of form.querySelectorAll("[name]")) {
    const type = input.dataset.type;
    if (type === "boolean") {
      if (input.checked) args[input.name] = true;
      continue;
    }
    if (input.value === "") continue;
    if (type === "number" || type === "integer") args[input.name] = Number(input.value);
    else if (type === "object" || type === "array") args[input.name] = JSON.parse(input.value);
    else args[input.name] = input.value;
  }
  return args;
}

// ---- calls and their Views ----

function uiOf(tool) {
  const meta = tool._meta || {};
  return { uri: (meta.ui && meta.ui.resourceUri) || meta["ui/resourceUri"], visibility: (meta.ui && meta.ui.visibility) || ["model", "app"] };
}

async function callTool(name, args) {
  const tool = client.tools.get(name);
  const card = el("article", { class: "card", "data-tool": name });
  const stop = el("button", { type: "button" }, "Stop");
  const close = el("button", { type: "button" }, "Close");
  const result = el("pre", { "data-testid": "result" });
  card.append(el("header", {}, el("strong", {}, name + " "), stop, close), result);
  $("#views").prepend(card);

  const abort = new AbortController();
  let requestId = null;
  const call = client.request("tools/call", { name, arguments: args }, { signal: abort.signal, onId: (id) => (requestId = id) });
  let view = null;
  // Stopped once the user clicked Stop: whatever the server answers after
  // that (it may answer the cancelled request before the abort below
  // lands, more often on a loaded machine), the call was cancelled.
  let stopped = false;
  const outcome = call.then(
    (r) => (stopped ? { cancelled: "the user stopped the call" } : { result: r }),
    (e) => (stopped || abort.signal.aborted ? { cancelled: "the user stopped the call" } : { error: e.message }),
  );
  stop.onclick = async () => {
    stop.disabled = true;
    stopped = true;
    await client.notify("notifications/cancelled", { requestId, reason: "the user stopped the call" }).catch(() => {});
    abort.abort();
  };
  close.onclick = () => (view ? view.close() : card.remove());
  outcome.then((o) => {
    stop.remove();
    result.textContent = JSON.stringify(o.result || o);
  });

  const ui = uiOf(tool);
  if (!ui.uri) return;
  try {
    const res = await client.request("resources/read", { uri: ui.uri });
    const item = (res.contents || []).find((c) => c.mimeType === MIME);
    if (!item) throw new Error(`${ui.uri} has no ${MIME} content`);
    const listing = client.resources.get(ui.uri) || {};
    const meta = (item._meta && item._meta.ui) || (listing._meta && listing._meta.ui) || {};
    view = new View(card, tool, args, outcome, { html: item.text || atob(item.blob || ""), csp: meta.csp, permissions: meta.permissions || {} });
  } catch (e) {
    result.textContent = "could not show the View: " + e.message;
  }
}

// View is one app's View: the sandbox proxy iframe and the JSON-RPC
// session with the app inside it.
class View {
  constructor(card, tool, args, outcome, resource) {
    this.card = card;
    this.tool = tool;
    this.args = args;
    this.resource = resource;
    this.pending = new Map();
    this.nextId = 1;
    this.displayMode = "inline";
    this.appModes = null;
    const src = new URL(config.sandbox);
    if (resource.csp) src.searchParams.set("csp", JSON.stringify(resource.csp));
    // Logged for security review.
    console.log(`[devhost] ${tool.name}: CSP ${resource.csp ? JSON.stringify(resource.csp) : "none declared (the restrictive default)"}`);
    this.frame = el("iframe", { title: "App: " + tool.name, sandbox: "allow-scripts allow-same-origin allow-forms", src: src.href });
    const allow = Object.keys(resource.permissions).filter((k) => k === "clipboardWrite").map(() => "clipboard-write");
    if (allow.length) this.frame.setAttribute("allow", allow.join("; "));
    card.insertBefore(this.frame, card.querySelector("[data-testid=result]"));
    this.onMessage = (ev) => this.receive(ev);
    window.addEventListener("message", this.onMessage);
    this.initialized = false;
    this.outcome = null;
    this.inputSent = false;
    outcome.then((o) => {
      this.outcome = o;
      this.deliver();
    });
  }

  post(msg) {
    if (this.frame.contentWindow) this.frame.contentWindow.postMessage(msg, new URL(config.sandbox).origin);
  }
  reply(id, result) {
    this.post({ jsonrpc: "2.0", id, result });
  }
  fail(id, code, message) {
    this.post({ jsonrpc: "2.0", id, error: { code, message } });
  }
  notify(method, params) {
    this.post({ jsonrpc: "2.0", method, params });
  }
  request(method, params, ms) {
    const id = "host-" + this.nextId++;
    this.post({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer within ${ms} ms`)), ms);
      this.pending.set(id, (m) => (clearTimeout(timer), resolve(m)));
    });
  }

  receive(ev) {
    if (ev.source !== this.frame.contentWindow || ev.origin !== new URL(config.sandbox).origin) return;
    const msg = ev.data;
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
    if (msg.method === "ui/notifications/sandbox-proxy-ready") {
      const { html, csp, permissions } = this.resource;
      return this.notify("ui/notifications/sandbox-resource-ready", { html, csp, permissions, sandbox: "allow-scripts allow-forms" });
    }
    // A malformed frame is dropped; the session goes on.
    if (("method" in msg && typeof msg.method !== "string") || ("id" in msg && !["string", "number"].includes(typeof msg.id))) return;
    if (typeof msg.method === "string" && "id" in msg) return void this.onRequest(msg);
    if (typeof msg.method === "string") return this.onNotification(msg);
    const settle = this.pending.get(msg.id);
    this.pending.delete(msg.id);
    if (settle) settle(msg);
  }

  context() {
    return {
      theme: "light",
      platform: "web",
      displayMode: this.displayMode,
      availableDisplayModes: DISPLAY_MODES,
      containerDimensions: { width: Math.round(this.frame.getBoundingClientRect().width), maxHeight: 6000 },
      locale: navigator.language,
    };
  }

  async onRequest(msg) {
    const p = msg.params || {};
    try {
      switch (msg.method) {
        case "ui/initialize":
          this.appModes = (p.appCapabilities && p.appCapabilities.availableDisplayModes) || null;
          return this.reply(msg.id, {
            protocolVersion: p.protocolVersion === APPS_PROTOCOL ? p.protocolVersion : APPS_PROTOCOL,
            hostInfo: HOST_INFO,
            hostCapabilities: { openLinks: {}, downloadFile: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} }, sandbox: { csp: this.resource.csp, permissions: this.resource.permissions } },
            hostContext: this.context(),
          });
        case "ping":
          return this.reply(msg.id, {});
        case "tools/call": {
          const tool = client.tools.get(p.name);
          if (!tool) return this.fail(msg.id, -32602, `Unknown tool: ${p.name} (not a tool of this View's server)`);
          if (!uiOf(tool).visibility.includes("app")) return this.fail(msg.id, -32000, `${p.name} is not callable by apps (its visibility has no "app")`);
          return this.reply(msg.id, await client.request("tools/call", p));
        }
        case "resources/read":
        case "resources/list":
        case "resources/templates/list":
          return this.reply(msg.id, await client.request(msg.method, p));
        case "ui/open-link": {
          let url;
          try {
            url = new URL(p.url);
          } catch {
            return this.fail(msg.id, -32602, "Invalid URL");
          }
          if (url.protocol !== "http:" && url.protocol !== "https:") return this.fail(msg.id, -32602, "Invalid URL: only http and https links open");
          window.open(url.href, "_blank", "noopener");
          return this.reply(msg.id, {});
        }
        case "ui/message": {
          const blocks = Array.isArray(p.content) ? p.content : p.content ? [p.content] : [];
          const text = blocks.filter((b) => b && b.type === "text").map((b) => b.text).join("\n");
          if (p.role !== "user" || !text) return this.fail(msg.id, -32602, "ui/message needs role user and text content");
          $("[data-testid=messages]").append(el("p", {}, `${this.tool.name}: ${text}`));
          return this.reply(msg.id, {});
        }
        case "ui/download-file":
          return await this.download(msg.id, p);
        case "ui/request-display-mode": {
          if (typeof p.mode !== "string") return this.fail(msg.id, -32602, "Invalid params: mode must be a string");
          // Only a mode both the host and the app have (S L786).
          const ok = DISPLAY_MODES.includes(p.mode) && (!this.appModes || this.appModes.includes(p.mode));
          if (ok && p.mode !== this.displayMode) {
            this.displayMode = p.mode;
            this.card.dataset.displayMode = p.mode;
            this.notify("ui/notifications/host-context-changed", { displayMode: p.mode });
          }
          return this.reply(msg.id, { mode: this.displayMode });
        }
        default:
          return this.fail(msg.id, -32601, `Method not found: ${msg.method}`);
      }
    } catch (e) {
      this.fail(msg.id, (e.rpc && e.rpc.code) || -32603, e.message);
    }
  }

  // download asks the user in the host's own modal, then saves each file
  // under the last segment of its URI, without path separators.
  async download(id, p) {
    const items = Array.isArray(p.contents) ? p.contents : [];
    const files = [];
    for (const it of items) {
      const r = it && it.type === "resource" ? it.resource : null;
      if (!r || typeof r.uri !== "string" || (typeof r.text !== "string" && typeof r.blob !== "string")) return this.fail(id, -32602, "Invalid params: each content item must be an embedded resource with text or blob");
      let name = r.uri.split("/").pop() || "download";
      try {
        name = decodeURIComponent(name);
      } catch {}
      name = name.replace(/[\\/]/g, "_").replace(/^\.+/, "") || "download";
      const data = typeof r.text === "string" ? r.text : Uint8Array.from(atob(r.blob), (c) => c.charCodeAt(0));
      files.push({ name, blob: new Blob([data], { type: r.mimeType || "application/octet-stream" }) });
    }
    if (!files.length) return this.fail(id, -32602, "Invalid params: contents is empty");
    if (!(await ask(files.map((f) => f.name).join(", ")))) return this.fail(id, -32000, "Download denied by user");
    for (const f of files) {
      const a = el("a", { href: URL.createObjectURL(f.blob), download: f.name });
      document.body.append(a);
      a.click();
      a.remove();
    }
    this.reply(id, {});
  }

  onNotification(msg) {
    const p = msg.params || {};
    switch (msg.method) {
      case "ui/notifications/initialized":
        if (this.initialized) return;
        this.initialized = true;
        return this.deliver();
      case "ui/notifications/size-changed":
        if (Number.isFinite(p.height) && p.height > 0 && this.displayMode === "inline") this.frame.style.height = Math.min(Math.ceil(p.height), 6000) + "px";
        return;
      case "ui/notifications/request-teardown":
        return void this.close();
      case "notifications/message":
        console.log(`[devhost] app log [${p.level}]:`, JSON.stringify(p.data));
        return;
    }
  }

  // deliver sends the tool's input once the View is initialized, then its
  // outcome once the call has one.
  deliver() {
    if (!this.initialized) return;
    if (!this.inputSent) {
      this.inputSent = true;
      this.notify("ui/notifications/tool-input", { arguments: this.args });
    }
    const o = this.outcome;
    if (!o || this.outcomeSent) return;
    this.outcomeSent = true;
    if (o.cancelled) return this.notify("ui/notifications/tool-cancelled", { reason: o.cancelled });
    this.notify("ui/notifications/tool-result", o.result || { content: [{ type: "text", text: o.error }], isError: true });
  }

  // close tears the View down gracefully: ui/resource-teardown, and the
  // card goes once the View has answered (or after 5 s).
  async close() {
    if (this.closing) return;
    this.closing = true;
    try {
      await this.request("ui/resource-teardown", {}, 5000);
    } catch (e) {
      console.warn("[devhost] teardown:", e.message);
    }
    window.removeEventListener("message", this.onMessage);
    this.card.remove();
  }
}

// ask shows the host's "Allow download?" modal and resolves with the
// user's answer.
function ask(files) {
  const modal = $("[data-testid=download-dialog]");
  $("[data-testid=download-files]").textContent = files;
  modal.hidden = false;
  return new Promise((resolve) => {
    modal.onclick = (ev) => {
      const answer = ev.target.dataset && ev.target.dataset.answer;
      if (!answer) return;
      modal.hidden = true;
      resolve(answer === "yes");
    };
  });
}

async function main() {
  config = await (await fetch("/config.json")).json();
  const input = $("[name=server-url]");
  $("#connect").onclick = () => connect(input.value.trim());
  $("#connect").disabled = false;
  $("#tool-form").onsubmit = (ev) => {
    ev.preventDefault();
    callTool(ev.target.dataset.tool, formArguments(ev.target));
  };
  // A server configured on the host's backend: connected at once.
  if (config.server) {
    input.value = config.server;
    connect(config.server);
  }
}

main();
