// The page's layout and its protocol log.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const themeBtn = el("button", { "data-testid": "theme-toggle", class: "icon-btn", title: "Toggle theme" }, "Dark mode");
export const newChatBtn = el("button", { "data-testid": "new-conversation", class: "icon-btn", title: "Start a new conversation" }, "New conversation");
export const localeSelect = el("select", { "data-testid": "locale-select", class: "select", title: "Language and region", "aria-label": "Language and region" });
const header = el("header", { class: "topbar" }, el("div", { class: "brand" }, el("span", { class: "logo" }, "◆"), "Reference Host"), el("div", { class: "spacer" }), localeSelect, newChatBtn, themeBtn);
export const conversation = el("div", { class: "conversation", "data-testid": "conversation", role: "log" });
export const input = el("textarea", { "data-testid": "composer", rows: "1", placeholder: "Message the agent — try “Run the conformance suite”" });
const sendBtn = el("button", { "data-testid": "send", class: "send", type: "submit" }, "Send");
export const toolsBtn = el("button", { "data-testid": "tool-picker", class: "tools-btn", type: "button", title: "Call one of the model's tools yourself", "aria-haspopup": "dialog", "aria-expanded": "false" }, "Tools");
export const composer = el("form", { class: "composer" }, toolsBtn, input, sendBtn);
// The tool picker's panel opens above the composer (outside the form, so
// Enter in its fields never sends a chat message).
export const toolPanel = el("div", { class: "tool-panel", role: "dialog", "aria-label": "Tools", "data-testid": "tool-picker-panel", hidden: "" });
const chat = el("main", { class: "chat" }, conversation, el("div", { class: "composer-wrap" }, toolPanel, composer));
const logList = el("ol", { class: "log", "data-testid": "rpc-log" });
const side = el("aside", { class: "side" }, el("h2", {}, "Protocol log"), logList);
export const dialogs = el("div", { class: "dialogs" });
export const approvals = el("div", { class: "approvals" });
document.body.append(header, el("div", { class: "layout" }, chat, side), dialogs, approvals);

// ---------------------------------------------------------------- log
type LogDir = "→ view" | "← view" | "host";
const LOG_DIRS: Record<LogDir, string> = { "→ view": "to-view", "← view": "from-view", host: "host" };
const LOG_SHORT = 400;
const LOG_FULL = 65536;
const LOG_KEEP = 500;
// New entries are shown (and the oldest dropped, and the list scrolled to
// its end) in batches, at most every LOG_SHOW_MS. Drawing the visible log
// once per message made Chromium render a new frame of the page for nearly
// every call a View makes through the host, and that work delayed the call
// itself: a View's tools/call took about 3× as long with the log drawn per
// message as with no log on screen (docs/performance.md, "Relay").
const LOG_SHOW_MS = 100;
const unshown: HTMLLIElement[] = [];

function showLog(): void {
  for (const li of unshown.splice(0)) li.style.removeProperty("display");
  while (logList.children.length > LOG_KEEP) logList.firstElementChild!.remove();
  logList.scrollTop = logList.scrollHeight;
}

// One entry per message. The entry shows the first LOG_SHORT characters
// (a click shows the whole message); data-message holds the whole message,
// data-dir its direction and data-call the tool call of the View it was
// exchanged with.
export function log(dir: LogDir, msg: unknown, call?: string): void {
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
  // In the list at once (what the driver and the tests read), shown with
  // the next batch.
  li.style.display = "none";
  logList.append(li);
  unshown.push(li);
  if (unshown.length === 1) setTimeout(showLog, LOG_SHOW_MS);
  console.debug(`[rpc ${dir}] ${text.length > 4000 ? text.slice(0, 4000) + "…" : text}`);
}
