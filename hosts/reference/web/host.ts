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
// The user's language and region (hostContext.locale); the header's locale
// control changes it.
const LOCALES: [string, string][] = [
  ["en-US", "English (US)"],
  ["fr-FR", "Français (France)"],
  ["de-DE", "Deutsch (Deutschland)"],
  ["ja-JP", "日本語 (日本)"],
];
let locale = navigator.language || "en-US";
const DISPLAY_MODE_LABELS: Record<string, string> = { inline: "Inline", fullscreen: "Fullscreen", pip: "Picture in picture" };

// ---------------------------------------------------------------- layout
function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const themeBtn = el("button", { "data-testid": "theme-toggle", class: "icon-btn", title: "Toggle theme" }, "Dark mode");
const newChatBtn = el("button", { "data-testid": "new-conversation", class: "icon-btn", title: "Start a new conversation" }, "New conversation");
const localeSelect = el("select", { "data-testid": "locale-select", class: "select", title: "Language and region", "aria-label": "Language and region" });
const header = el("header", { class: "topbar" }, el("div", { class: "brand" }, el("span", { class: "logo" }, "◆"), "Reference Host"), el("div", { class: "spacer" }), localeSelect, newChatBtn, themeBtn);
const conversation = el("div", { class: "conversation", "data-testid": "conversation", role: "log" });
const input = el("textarea", { "data-testid": "composer", rows: "1", placeholder: "Message the agent — try “Run the conformance suite”" });
const sendBtn = el("button", { "data-testid": "send", class: "send", type: "submit" }, "Send");
const toolsBtn = el("button", { "data-testid": "tool-picker", class: "tools-btn", type: "button", title: "Call one of the model's tools yourself", "aria-haspopup": "dialog", "aria-expanded": "false" }, "Tools");
const composer = el("form", { class: "composer" }, toolsBtn, input, sendBtn);
// The tool picker's panel opens above the composer (outside the form, so
// Enter in its fields never sends a chat message).
const toolPanel = el("div", { class: "tool-panel", role: "dialog", "aria-label": "Tools", "data-testid": "tool-picker-panel", hidden: "" });
const chat = el("main", { class: "chat" }, conversation, el("div", { class: "composer-wrap" }, toolPanel, composer));
const logList = el("ol", { class: "log", "data-testid": "rpc-log" });
const side = el("aside", { class: "side" }, el("h2", {}, "Protocol log"), logList);
const dialogs = el("div", { class: "dialogs" });
document.body.append(header, el("div", { class: "layout" }, chat, side), dialogs);

// ---------------------------------------------------------------- log
type LogDir = "→ view" | "← view" | "host";
const LOG_DIRS: Record<LogDir, string> = { "→ view": "to-view", "← view": "from-view", host: "host" };
const LOG_SHORT = 400;
const LOG_FULL = 65536;

// One entry per message. The entry shows the first LOG_SHORT characters
// (a click shows the whole message); data-message holds the whole message,
// data-dir its direction and data-call the tool call of the View it was
// exchanged with.
function log(dir: LogDir, msg: unknown, call?: string): void {
  const t = new Date();
  const ts = t.toISOString().slice(11, 23);
  const text = typeof msg === "string" ? msg : JSON.stringify(msg);
  const full = text.length > LOG_FULL ? text.slice(0, LOG_FULL) + "…" : text;
  const short = text.length > LOG_SHORT ? text.slice(0, LOG_SHORT) + "…" : text;
  const code = el("code", {}, short);
  const li = el("li", { "data-dir": LOG_DIRS[dir] }, el("time", {}, ts), el("span", { class: "dir" }, dir), code);
  li.dataset.message = full;
  if (call) li.dataset.call = call;
  if (short !== full) {
    li.classList.add("long");
    li.title = "Click to show the whole message";
    li.addEventListener("click", () => {
      code.textContent = li.classList.toggle("open") ? full : short;
    });
  }
  logList.append(li);
  while (logList.children.length > 500) logList.firstElementChild!.remove();
  logList.scrollTop = logList.scrollHeight;
  console.debug(`[rpc ${dir}] ${text.length > 4000 ? text.slice(0, 4000) + "…" : text}`);
}

// ---------------------------------------------------------------- conversation
// New content follows the conversation only while the user is at its end:
// someone who scrolled up to use an earlier app is not yanked away.
function followConversation(add: () => void): void {
  const atEnd = conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 48;
  add();
  if (atEnd) conversation.scrollTop = conversation.scrollHeight;
}

function addTurn(role: "user" | "assistant", text: string): HTMLElement {
  const turn = el("div", { class: `turn ${role}`, "data-role": role }, el("div", { class: "bubble" }, text));
  followConversation(() => conversation.append(turn));
  return turn;
}

async function api<T = any>(path: string, body: unknown): Promise<T> {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json();
}

// What /api/chat and /api/tools/call answer: the assistant's reply and,
// when the tool called has an app, what the page needs to show it.
interface Reply {
  reply: string;
  launch?: Launch | null;
}

function showReply(r: Reply): void {
  const turn = addTurn("assistant", r.reply);
  if (r.launch) new AppView(r.launch, turn);
}

async function userMessage(text: string): Promise<void> {
  addTurn("user", text);
  showReply(await api<Reply>("/api/chat", { text }));
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

// A new conversation tears every View down gracefully (S L1201: "for any
// reason"), then clears the conversation and the model context.
newChatBtn.addEventListener("click", () => {
  void (async () => {
    newChatBtn.disabled = true;
    try {
      await Promise.all([...views].map((v) => v.close("The user started a new conversation")));
      conversation.replaceChildren();
      await api("/api/new-conversation", {});
      log("host", "new conversation");
    } finally {
      newChatBtn.disabled = false;
    }
  })();
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

// ---------------------------------------------------------------- locale
// A changed locale reaches every initialized View as a partial
// host-context-changed; Views initialized later get it in hostContext.
function localeLabel(tag: string): string {
  try {
    return new Intl.DisplayNames([tag], { type: "language" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}
const localeOptions = LOCALES.some(([tag]) => tag === locale) ? LOCALES : [[locale, localeLabel(locale)] as [string, string], ...LOCALES];
localeSelect.append(...localeOptions.map(([tag, label]) => el("option", { value: tag }, label)));
localeSelect.value = locale;
document.documentElement.lang = locale;

function setLocale(tag: string): void {
  if (tag === locale) return;
  locale = tag;
  document.documentElement.lang = tag;
  log("host", `locale changed to ${tag}`);
  for (const v of views) v.contextChanged({ locale });
}
localeSelect.addEventListener("change", () => setLocale(localeSelect.value));

// ---------------------------------------------------------------- tool picker
// The user can call any tool the model may see, with JSON arguments. The
// call takes the agent's own path (/api/tools/call → Agent.CallTool): a
// tool with a UI resource shows its app like any agent call.
interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  server: string;
  inputSchema?: any;
  hasApp: boolean;
}

const toolFilter = el("input", { type: "search", class: "tool-filter", "data-testid": "tool-filter", placeholder: "Search tools", "aria-label": "Search tools", autocomplete: "off" });
const toolList = el("ul", { class: "tool-list", "data-testid": "tool-list", "aria-label": "Tools the model can call" });
const toolStatus = el("p", { class: "tool-status" });
const toolFormName = el("div", { class: "tool-form-name" });
const toolFormDesc = el("p", { class: "tool-form-desc" });
const toolArgs = el("textarea", { id: "tool-args", "data-testid": "tool-args", class: "tool-args", rows: "6", spellcheck: "false", placeholder: "{}" });
const toolArgsError = el("p", { class: "field-error", "data-testid": "tool-args-error", id: "tool-args-error", role: "alert", hidden: "" });
const toolBack = el("button", { type: "button", "data-testid": "tool-back" }, "Back");
const toolCallBtn = el("button", { type: "button", class: "primary", "data-testid": "tool-call" }, "Call tool");
const toolForm = el(
  "div",
  { class: "tool-form", "data-testid": "tool-form", hidden: "" },
  toolFormName,
  toolFormDesc,
  el("label", { for: "tool-args", class: "field-label" }, "Arguments (JSON object)"),
  toolArgs,
  toolArgsError,
  el("div", { class: "actions" }, toolBack, toolCallBtn),
);
const toolBrowse = el("div", { class: "tool-browse" }, toolFilter, toolList, toolStatus);
toolPanel.append(el("div", { class: "tool-panel-head" }, el("h3", {}, "Tools"), el("span", { class: "muted" }, "Call a tool the model can use")), toolBrowse, toolForm);

let tools: ToolInfo[] = [];
let chosenTool: ToolInfo | null = null;

// A starting point for the arguments: the schema's required properties
// with empty values of their types.
function argumentSkeleton(schema: any): string {
  const props = schema && typeof schema === "object" && schema.properties && typeof schema.properties === "object" ? schema.properties : {};
  const required: string[] = Array.isArray(schema?.required) ? schema.required.filter((k: unknown) => typeof k === "string") : [];
  if (required.length === 0) return "{}";
  const empty: Record<string, unknown> = { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} };
  const skeleton = Object.fromEntries(required.map((k) => [k, empty[props[k]?.type] ?? null]));
  return JSON.stringify(skeleton, null, 2);
}

// The arguments as an object, or what is wrong with them.
function parseArguments(text: string): Record<string, unknown> | string {
  const t = text.trim();
  if (t === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch (e) {
    return `Invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "The arguments must be a JSON object, such as {\"key\": \"value\"}.";
  return v as Record<string, unknown>;
}

function renderTools(): void {
  const q = toolFilter.value.trim().toLowerCase();
  const shown = tools.filter((t) => !q || t.name.toLowerCase().includes(q) || (t.title ?? "").toLowerCase().includes(q) || (t.description ?? "").toLowerCase().includes(q));
  toolList.replaceChildren(
    ...shown.map((t) => {
      const b = el(
        "button",
        { type: "button", class: "tool-option", "data-testid": "tool-option", "data-tool": t.name, "data-server": t.server },
        el("span", { class: "tool-name" }, t.title && t.title !== t.name ? `${t.title} · ${t.name}` : t.name),
        ...(t.hasApp ? [el("span", { class: "badge", title: "Shows an app" }, "App")] : []),
        ...(t.description ? [el("span", { class: "tool-desc" }, t.description)] : []),
      );
      b.addEventListener("click", () => chooseTool(t));
      return el("li", {}, b);
    }),
  );
  toolStatus.textContent = tools.length === 0 ? "No connected server offers the model any tool." : shown.length === 0 ? "No tool matches." : "";
  toolStatus.hidden = toolStatus.textContent === "";
}

function showArgsError(msg: string | null): void {
  toolArgsError.textContent = msg ?? "";
  toolArgsError.hidden = msg === null;
  if (msg === null) toolArgs.removeAttribute("aria-invalid");
  else toolArgs.setAttribute("aria-invalid", "true");
  if (msg !== null) toolArgs.setAttribute("aria-describedby", "tool-args-error");
  else toolArgs.removeAttribute("aria-describedby");
}

function chooseTool(t: ToolInfo | null): void {
  chosenTool = t;
  showArgsError(null);
  toolBrowse.hidden = t !== null;
  toolForm.hidden = t === null;
  if (t) {
    toolFormName.textContent = t.name;
    toolFormDesc.textContent = t.description ?? "";
    toolFormDesc.hidden = !t.description;
    toolArgs.value = argumentSkeleton(t.inputSchema);
    toolArgs.focus();
  } else {
    toolFilter.focus();
  }
}

async function openToolPicker(): Promise<void> {
  toolPanel.hidden = false;
  toolsBtn.setAttribute("aria-expanded", "true");
  chooseTool(null);
  toolStatus.textContent = "Loading tools…";
  toolStatus.hidden = false;
  try {
    const r = await fetch("/api/tools");
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    tools = (await r.json()) as ToolInfo[];
  } catch (e) {
    tools = [];
    toolList.replaceChildren();
    toolStatus.textContent = `Could not load the tools: ${e instanceof Error ? e.message : String(e)}`;
    return;
  }
  renderTools();
}

function closeToolPicker(): void {
  toolPanel.hidden = true;
  toolsBtn.setAttribute("aria-expanded", "false");
  chosenTool = null;
}

async function callToolDirectly(t: ToolInfo, args: Record<string, unknown>): Promise<void> {
  addTurn("user", Object.keys(args).length > 0 ? `Run ${t.name} ${JSON.stringify(args)}` : `Run ${t.name}`).classList.add("tool-run");
  try {
    showReply(await api<Reply>("/api/tools/call", { name: t.name, arguments: args }));
  } catch (e) {
    addTurn("assistant", `Error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function submitToolCall(): void {
  const t = chosenTool;
  if (!t) return;
  const args = parseArguments(toolArgs.value);
  if (typeof args === "string") {
    showArgsError(args);
    toolArgs.focus();
    return;
  }
  closeToolPicker();
  void callToolDirectly(t, args);
}

toolsBtn.addEventListener("click", () => (toolPanel.hidden ? void openToolPicker() : closeToolPicker()));
toolFilter.addEventListener("input", renderTools);
toolBack.addEventListener("click", () => chooseTool(null));
toolCallBtn.addEventListener("click", submitToolCall);
toolArgs.addEventListener("input", () => showArgsError(null));
toolArgs.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
    ev.preventDefault();
    submitToolCall();
  }
});
toolPanel.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") {
    ev.stopPropagation();
    closeToolPicker();
    toolsBtn.focus();
  }
});
document.addEventListener("mousedown", (ev) => {
  if (!toolPanel.hidden && ev.target instanceof Node && !toolPanel.contains(ev.target) && !toolsBtn.contains(ev.target)) closeToolPicker();
});

// ---------------------------------------------------------------- permissions
// _meta.ui.permissions → Permission Policy features for the iframes' allow
// attribute (S L484: the Sandbox MAY set it; the host grants no more than
// the resource asked for, S L286).
const PERMISSION_FEATURES: Record<string, string> = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "geolocation",
  clipboardWrite: "clipboard-write",
};

function grantedPermissions(requested: unknown): Record<string, object> {
  if (defect("permissions-ignored")) return {};
  const keys = defect("permissions-granted-unrequested")
    ? Object.keys(PERMISSION_FEATURES)
    : Object.keys(requested && typeof requested === "object" ? requested : {}).filter((k) => k in PERMISSION_FEATURES);
  return Object.fromEntries(keys.map((k) => [k, {}]));
}

function allowAttribute(granted: Record<string, object>): string {
  return Object.keys(granted)
    .map((k) => PERMISSION_FEATURES[k])
    .join("; ");
}

// ---------------------------------------------------------------- downloads
// ui/download-file (draft): the file name is the last segment of the URI,
// sanitised so that no path can be smuggled in (draft §ui/download-file).
function sanitizeFilename(name: string): string {
  let n = name.replace(/[\u0000-\u001f\u007f]/g, "");
  n = n.split(/[\\/]/).pop() ?? "";
  n = n.replace(/[<>:"|?*]/g, "_").replace(/^[.\s]+/, "").trim();
  if (!n || n === "." || n === "..") n = "download";
  return n.slice(0, 200);
}

function filenameFromURI(uri: string): string {
  let path = uri;
  try {
    path = new URL(uri).pathname;
  } catch {
    // not a URL: use it as it is
  }
  let last = path.slice(path.lastIndexOf("/") + 1);
  try {
    last = decodeURIComponent(last);
  } catch {
    // keep it encoded
  }
  if (defect("download-filename-wrong")) return "download";
  if (defect("download-filename-unsanitised")) return last;
  return sanitizeFilename(last);
}

interface DownloadItem {
  name: string;
  blob?: Blob;
  url?: string;
}

function downloadItem(it: any): DownloadItem | string {
  if (it?.type === "resource" && it.resource && typeof it.resource.uri === "string") {
    const r = it.resource;
    const type = typeof r.mimeType === "string" ? r.mimeType : "application/octet-stream";
    if (typeof r.text === "string") return { name: filenameFromURI(r.uri), blob: new Blob([r.text], { type }) };
    if (typeof r.blob === "string") {
      try {
        const bin = atob(r.blob);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        return { name: filenameFromURI(r.uri), blob: new Blob([bytes], { type }) };
      } catch {
        return "Invalid content: resource.blob is not base64";
      }
    }
    return "Invalid content: an embedded resource needs text or blob";
  }
  if (it?.type === "resource_link" && typeof it.uri === "string") {
    let url: URL;
    try {
      url = new URL(it.uri);
    } catch {
      return "Invalid content: resource_link uri is not a URL";
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return "Invalid content: only http(s) links are fetched";
    return { name: filenameFromURI(it.uri), url: url.href };
  }
  return "Invalid content: contents[] items must be resource or resource_link";
}

function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: name, style: "display:none" });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// ---------------------------------------------------------------- views
interface Launch {
  serverId: string;
  tool: { name: string; title?: string; inputSchema?: unknown; _meta?: Record<string, unknown> };
  callId: string;
  arguments: Record<string, unknown>;
  resource: { uri: string; html: string; ui: { csp?: Record<string, string[]>; permissions?: Record<string, unknown> } } | null;
}

// What /api/call/wait answers: exactly one field.
interface Outcome {
  result?: any;
  cancelled?: string;
  error?: string;
  durationMs?: number;
}

const views = new Set<AppView>();

class AppView {
  readonly frame: HTMLIFrameElement;
  readonly card: HTMLElement;
  private readonly stopBtn: HTMLButtonElement;
  private readonly closeBtn: HTMLButtonElement;
  private readonly modeSelect: HTMLSelectElement;
  private initialized = false;
  private appCapabilities: any = {};
  private broken = false;
  private displayMode = "inline";
  private nextId = 1;
  private pending = new Map<number, (msg: any) => void>();
  private readonly permissions: Record<string, object>;
  private inputSent = false;
  private outcome: Outcome | null = null;
  private outcomeSent = false;
  private closing: Promise<void> | null = null;
  private removed = false;
  // Set while a defective close waits for the View's next proxied call.
  private onProxied: (() => void) | null = null;
  // The containerDimensions the View last heard (JSON), in ui/initialize's
  // hostContext or a host-context-changed; resizes are debounced.
  private dims = "";
  private dimsTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly resizeObserver = new ResizeObserver(() => this.scheduleDimensions());
  // Settles once the tool call has ended and its outcome reached the View
  // (or could not).
  private readonly callEnded: Promise<void>;

  constructor(
    readonly launch: Launch,
    after: HTMLElement,
  ) {
    const csp = launch.resource?.ui?.csp;
    this.permissions = grantedPermissions(launch.resource?.ui?.permissions);
    const allow = allowAttribute(this.permissions);
    // Audit trail of the security configuration (S L287).
    log("host", `CSP for ${launch.resource?.uri}: ${csp ? JSON.stringify(csp) : "none declared, restrictive default"}; permissions: ${allow || "none"}`);
    const src = config.sandboxURL + (csp ? `?csp=${encodeURIComponent(JSON.stringify(csp))}` : "");
    const title = launch.tool.title ?? launch.tool.name;
    this.frame = direct
      ? el("iframe", { "data-testid": "app-frame", title, sandbox: "allow-scripts allow-forms", srcdoc: launch.resource?.html ?? "" })
      : el("iframe", {
          "data-testid": "app-frame",
          title,
          // The proxy's permissions as the spec requires (S L475).
          // Sandbox flags are inherited: allow-downloads on the View only
          // takes effect when the proxy has it too.
          sandbox: (defect("proxy-without-same-origin") ? "allow-scripts allow-forms" : "allow-scripts allow-same-origin allow-forms") + (defect("view-allow-downloads") ? " allow-downloads" : ""),
          src,
        });
    // The proxy can only delegate to the View what it has itself.
    if (allow) this.frame.setAttribute("allow", allow);
    this.stopBtn = el("button", { "data-testid": "tool-stop", class: "card-btn", title: "Stop the tool call" }, "Stop");
    this.closeBtn = el("button", { "data-testid": "view-close", class: "card-btn", title: "Close the app", "aria-label": "Close" }, "✕");
    // Offered once the View has declared its display modes and is
    // initialized (see offerDisplayModes).
    this.modeSelect = el("select", { "data-testid": "display-mode", class: "card-select", title: "Display mode", "aria-label": "Display mode", hidden: "" });
    this.stopBtn.addEventListener("click", () => void this.stop("The user pressed Stop"));
    this.closeBtn.addEventListener("click", () => void this.close("The user closed the app"));
    this.modeSelect.addEventListener("change", () => this.userDisplayMode(this.modeSelect.value));
    this.card = el(
      "div",
      { class: "app-card", "data-testid": "app-card", "data-mode": "inline", "data-tool": launch.tool.name, "data-call": launch.callId },
      el("div", { class: "app-title" }, el("span", { class: "app-name" }, `App · ${launch.tool.name}`), el("span", { class: "spacer" }), this.modeSelect, this.stopBtn, this.closeBtn),
      this.frame,
    );
    followConversation(() => after.after(this.card));
    views.add(this);
    window.addEventListener("message", this.onMessage);
    this.resizeObserver.observe(this.frame);
    this.callEnded = this.awaitCall();
  }

  // ---- the tool call ----------------------------------------------------
  private async awaitCall(): Promise<void> {
    this.card.dataset.running = "true";
    let out: Outcome;
    try {
      out = await api<Outcome>("/api/call/wait", { callId: this.launch.callId });
    } catch (e) {
      out = { error: e instanceof Error ? e.message : String(e) };
    }
    delete this.card.dataset.running;
    if (out.result !== undefined && defect("slow-result-dropped") && (out.durationMs ?? 0) > 1000) {
      log("host", `gave up on the result of ${this.launch.tool.name} (took over 1 s)`);
      return;
    }
    this.outcome = out;
    this.deliverOutcome();
  }

  // Stop: cancel the running call; the View hears tool-cancelled once the
  // call has ended (S L1169).
  async stop(reason: string): Promise<void> {
    if (this.card.dataset.running !== "true") return;
    this.stopBtn.disabled = true;
    try {
      await api("/api/call/cancel", { callId: this.launch.callId, reason });
    } finally {
      this.stopBtn.disabled = false;
    }
    await this.callEnded;
  }

  // ---- teardown -----------------------------------------------------------
  // Closes the View gracefully: a running call is cancelled first, then the
  // View gets ui/resource-teardown and the host waits for its answer (S
  // L1201-1202) before removing it. Before initialized nothing may be sent
  // (S L485), so an uninitialised View is removed at once.
  close(reason: string): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      this.closeBtn.disabled = true;
      await this.stop(reason);
      if (this.initialized && !this.broken && !defect("no-teardown-on-close")) {
        const answered = this.request("ui/resource-teardown", { reason }, 5000).catch((e) => log("host", `teardown: ${e instanceof Error ? e.message : String(e)}; removing the View anyway`));
        // The defect leaves the View time to receive the request and report
        // it (its first server call afterwards is answered), then removes it
        // without waiting for its FLUSH_MS of work and answer. A fixed 500 ms
        // raced that report on a loaded CI machine and lost it.
        if (defect("teardown-not-awaited")) await Promise.race([new Promise<void>((r) => (this.onProxied = r)), answered, sleep(5000)]);
        else await answered;
      }
      this.remove();
    })();
    return this.closing;
  }

  private remove(): void {
    if (this.removed) return;
    this.removed = true;
    window.removeEventListener("message", this.onMessage);
    this.resizeObserver.disconnect();
    clearTimeout(this.dimsTimer);
    for (const [, settle] of this.pending) settle({ jsonrpc: "2.0", error: { code: -32000, message: "View removed" } });
    this.pending.clear();
    this.card.remove();
    views.delete(this);
    log("host", `removed the View of ${this.launch.tool.name}`);
  }

  // ---- messaging ------------------------------------------------------------
  private post(msg: unknown): void {
    this.frame.contentWindow?.postMessage(msg, opaqueProxy ? "*" : sandboxOrigin);
  }

  send(msg: any): void {
    log("→ view", msg, this.launch.callId);
    this.post(msg);
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  // A host → View request; rejects on an error answer or after timeoutMs.
  request(method: string, params: unknown, timeoutMs: number): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, (msg) => {
        clearTimeout(timer);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message ?? "error"}`));
        else resolve(msg.result);
      });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  contextChanged(partial: Record<string, unknown>): void {
    if (this.initialized) this.notify("ui/notifications/host-context-changed", partial);
  }

  // ---- display modes --------------------------------------------------------
  // Switches the layout and announces the new mode with a partial
  // host-context-changed: one path for the View's ui/request-display-mode
  // and the user's display-mode control.
  private setDisplayMode(mode: string): void {
    if (mode === this.displayMode) return;
    this.displayMode = mode;
    this.card.dataset.mode = mode;
    this.offerDisplayModes();
    if (!defect("no-context-changed-on-display-mode")) this.contextChanged({ displayMode: mode });
  }

  // The modes the user may pick: the host's that the View declared (S
  // L786: never one it did not; a View that declared none stays inline).
  private offeredDisplayModes(): string[] {
    const declared: unknown = this.appCapabilities?.availableDisplayModes;
    const offered = DISPLAY_MODES.filter((m) => Array.isArray(declared) && declared.includes(m));
    return offered.includes(this.displayMode) ? offered : [this.displayMode, ...offered];
  }

  private offerDisplayModes(): void {
    const modes = this.offeredDisplayModes();
    this.modeSelect.replaceChildren(...modes.map((m) => el("option", { value: m }, DISPLAY_MODE_LABELS[m] ?? m)));
    this.modeSelect.value = this.displayMode;
    this.modeSelect.hidden = !this.initialized || modes.length < 2;
  }

  private userDisplayMode(mode: string): void {
    if (!this.initialized || !this.offeredDisplayModes().includes(mode)) {
      this.modeSelect.value = this.displayMode;
      return;
    }
    if (mode !== this.displayMode) log("host", `the user switched ${this.launch.tool.name} to ${mode}`);
    this.setDisplayMode(mode);
  }

  // ---- container dimensions -------------------------------------------------
  // Inline, the width is fixed and the height flexible (size-changed, up to
  // maxHeight); fullscreen and pip fix both.
  private containerDimensions(): Record<string, number> {
    if (defect("container-dimensions-both")) return { height: 420, maxHeight: 6000, width: 640 };
    const r = this.frame.getBoundingClientRect();
    const width = Math.round(r.width) || 640;
    if (this.displayMode === "inline") return { maxHeight: 6000, width };
    return { height: Math.round(r.height) || 420, width };
  }

  // The container changed size (the window, the layout, the display mode):
  // once it has settled, an initialized View hears the new dimensions, and
  // only when they differ from what it was told.
  private scheduleDimensions(): void {
    clearTimeout(this.dimsTimer);
    this.dimsTimer = setTimeout(() => this.announceDimensions(), 150);
  }

  private announceDimensions(): void {
    if (!this.initialized || this.removed) return;
    const d = this.containerDimensions();
    const json = JSON.stringify(d);
    if (json === this.dims) return;
    this.dims = json;
    this.contextChanged({ containerDimensions: d });
  }

  private hostContext(): Record<string, unknown> {
    const containerDimensions = this.containerDimensions();
    this.dims = JSON.stringify(containerDimensions);
    return {
      theme,
      styles: styles(),
      displayMode: defect("display-mode-unavailable") ? "maximized" : this.displayMode,
      availableDisplayModes: DISPLAY_MODES,
      containerDimensions,
      locale,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `${config.hostName}/${config.version}`,
      platform: "web",
      deviceCapabilities: { touch: false, hover: true },
      safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
      toolInfo: { id: this.launch.callId, tool: this.launch.tool },
    };
  }

  private hostCapabilities(): Record<string, unknown> {
    let csp: Record<string, string[]> | undefined = this.launch.resource?.ui?.csp;
    if (csp && defect("sandbox-csp-advertised-loose")) csp = { ...csp, connectDomains: [...(csp.connectDomains ?? []), "https://*.mcpconform-undeclared.example"] };
    const sandbox: Record<string, unknown> = {};
    if (csp) sandbox.csp = csp;
    if (Object.keys(this.permissions).length > 0) sandbox.permissions = this.permissions;
    return {
      openLinks: {},
      downloadFile: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      message: { text: {} },
      updateModelContext: { text: {}, structuredContent: {} },
      sampling: {},
      sandbox,
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
          permissions: this.permissions,
          sandbox: defect("view-not-sandboxed") ? null : defect("view-allow-downloads") ? "allow-scripts allow-forms allow-downloads" : "allow-scripts allow-forms",
        },
      });
      return;
    }
    log("← view", msg, this.launch.callId);
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
      const settle = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      settle?.(msg);
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
          this.offerDisplayModes();
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
          if (defect("talks-before-initialized")) {
            this.sendToolInput();
            this.deliverOutcome();
          }
          return;
        }
        case "ping":
          if (defect("ping-unanswered")) return this.error(msg.id, -32601, "Method not found: ping");
          return this.reply(msg.id, {});
        case "tools/call":
        case "resources/read":
        case "resources/list": {
          if (msg.method !== "tools/call" && defect("resources-not-proxied")) return this.error(msg.id, -32601, `Method not found: ${msg.method}`);
          const closeWaits = this.onProxied; // only calls made after the teardown request count
          const r = await api<{ result?: any; error?: { code: number; message: string } }>("/api/app", { serverId: this.launch.serverId, method: msg.method, params: p });
          if (r.error) return this.error(msg.id, r.error.code, r.error.message);
          if (msg.method === "tools/call" && r.result?.isError && defect("tool-error-as-rpc-error")) return this.error(msg.id, -32603, "tool failed");
          this.reply(msg.id, r.result);
          closeWaits?.();
          return;
        }
        case "ui/message": {
          // content is a ContentBlock[] (SDK) or, as the spec's example
          // shows, a single block (ext-apps #48): both are accepted.
          if (!Array.isArray(p.content) && defect("message-object-content-unanswered")) return;
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
          if (typeof p.url !== "string" || p.url === "") {
            if (defect("invalid-params-accepted")) return this.reply(msg.id, {});
            return this.error(msg.id, -32602, "Invalid params: ui/open-link needs params.url, a string");
          }
          let url: URL;
          try {
            url = new URL(p.url);
          } catch {
            return this.error(msg.id, -32602, "Invalid URL");
          }
          if (url.protocol !== "http:" && url.protocol !== "https:" && !defect("open-link-unvalidated")) return this.error(msg.id, -32602, "Invalid URL: only http and https links open");
          const ok = await confirmDialog("open-link", "Open external link?", url.href);
          if (!ok) return this.error(msg.id, -32000, "The user declined to open the link");
          if (!defect("link-not-opened")) window.open(url.href, "_blank", "noopener");
          return this.reply(msg.id, {});
        }
        case "ui/download-file": {
          const items: unknown[] | null = Array.isArray(p.contents) && p.contents.length > 0 ? p.contents : null;
          if (!items) return this.error(msg.id, -32602, "Invalid params: ui/download-file needs params.contents, a non-empty array");
          const files: DownloadItem[] = [];
          for (const it of items) {
            const f = downloadItem(it);
            if (typeof f === "string") return this.error(msg.id, -32602, f);
            files.push(f);
          }
          const names = files.map((f) => f.name).join(", ");
          if (!defect("download-without-confirmation")) {
            const ok = await confirmDialog("download", files.length === 1 ? "Download a file from the app?" : `Download ${files.length} files from the app?`, names);
            if (!ok) return this.error(msg.id, -32000, "Download denied by user");
          }
          for (const f of files) {
            let blob = f.blob;
            if (!blob && f.url) {
              try {
                const r = await fetch(f.url);
                if (!r.ok) throw new Error(`HTTP ${r.status}`);
                blob = await r.blob();
              } catch (e) {
                return this.error(msg.id, -32000, `Invalid content: fetching ${f.url} failed (${e instanceof Error ? e.message : String(e)})`);
              }
            }
            saveFile(blob!, f.name);
            log("host", `downloaded ${JSON.stringify(f.name)} for the app`);
          }
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
          const want = p.mode;
          if (typeof want !== "string" || !DISPLAY_MODES.includes(want)) {
            if (!defect("invalid-params-accepted")) return this.error(msg.id, -32602, `Invalid params: mode must be one of ${DISPLAY_MODES.join(", ")}`);
          }
          // Never switch to a mode the app did not declare (S L786); answer
          // with the resulting mode, the current one when refused (L787-788).
          const declared: string[] | undefined = this.appCapabilities?.availableDisplayModes;
          const allowed = DISPLAY_MODES.includes(want) && (!declared || declared.includes(want) || defect("undeclared-display-mode-granted"));
          if (allowed && want !== this.displayMode) this.setDisplayMode(want);
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

  // The agent streams its arguments: partial (healed) snapshots first, then
  // the complete ones once; never a partial after that (S L1120-1136).
  private sendToolInput(): void {
    if (this.inputSent) return;
    this.inputSent = true;
    let args = this.launch.arguments;
    if (defect("tool-input-extra-args")) args = { ...args, injected: "by-host" };
    const keys = Object.keys(args);
    const partials = keys.map((_, i) => Object.fromEntries(keys.slice(0, i).map((k) => [k, args[k]])));
    const partial = (a: Record<string, unknown>) => this.notify("ui/notifications/tool-input-partial", { arguments: a });
    const input = () => this.notify("ui/notifications/tool-input", { arguments: args });
    if (!defect("partial-after-input")) partials.forEach(partial);
    input();
    if (defect("partial-after-input")) partials.forEach(partial);
    if (defect("tool-input-twice")) input();
  }

  // The call's outcome goes to the View once it has its input: tool-result
  // when the call completed (S L1155), tool-cancelled when it was cancelled
  // (S L1169).
  private deliverOutcome(): void {
    const out = this.outcome;
    if (!out || !this.inputSent || this.outcomeSent || this.removed) return;
    this.outcomeSent = true;
    if (out.cancelled !== undefined) {
      if (!defect("no-tool-cancelled")) this.notify("ui/notifications/tool-cancelled", { reason: out.cancelled });
      return;
    }
    let result: any = out.result;
    if (out.error !== undefined) result = { content: [{ type: "text", text: `The tool call failed: ${out.error}` }], isError: true };
    if (defect("structured-content-stripped")) {
      const { structuredContent: _s, _meta: _m, ...rest } = result;
      result = rest;
    }
    if (!defect("tool-result-missing")) this.notify("ui/notifications/tool-result", result);
  }

  private onNotification(msg: any): void {
    switch (msg.method) {
      case "ui/notifications/initialized":
        if (this.initialized) return;
        this.initialized = true;
        // Tool data only after initialized (S L485, L1106).
        if (defect("tool-result-before-input") && this.outcome?.result !== undefined) {
          this.deliverOutcomeFirst();
        }
        this.sendToolInput();
        this.deliverOutcome();
        // The user's controls for this View, and any resize since
        // ui/initialize.
        this.offerDisplayModes();
        this.scheduleDimensions();
        return;
      case "ui/notifications/size-changed": {
        // Flexible height: the View drives it, up to maxHeight (S L718).
        const h = Number(msg.params?.height);
        if (defect("size-changed-ignored")) return;
        if (Number.isFinite(h) && h > 0 && this.displayMode === "inline") this.frame.style.height = `${Math.min(Math.ceil(h), 6000)}px`;
        return;
      }
      case "ui/notifications/request-teardown":
        // Accepted: the graceful path, ui/resource-teardown first (draft
        // L1459).
        log("host", "the app asked to be closed");
        if (defect("request-teardown-skips-teardown")) {
          this.remove();
          return;
        }
        void this.close("The app asked to be closed");
        return;
      case "notifications/message":
        // Logging (hostCapabilities.logging): recorded, never answered.
        log("host", `app log [${msg.params?.level ?? "info"}]: ${JSON.stringify(msg.params?.data)}`);
        if (defect("log-message-error-reply")) this.send({ jsonrpc: "2.0", id: null, error: { code: -32601, message: "Method not found: notifications/message" } });
        return;
    }
  }

  // The defect tool-result-before-input: the result overtakes the input.
  private deliverOutcomeFirst(): void {
    this.inputSent = true;
    this.deliverOutcome();
    this.inputSent = false;
  }
}

log("host", `reference host ${config.version} ready; sandbox at ${sandboxOrigin}`);

export {};
