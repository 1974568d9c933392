// The user can call any tool the model may see, with JSON arguments. The
// call takes the agent's own path (/api/tools/call → Agent.CallTool): a
// tool with a UI resource shows its app like any agent call.

import { el, toolsBtn, toolPanel } from "./layout";
import { addTurn, type Reply, showReply } from "./conversation";
import { api } from "./appchannel";

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

// Each opening fetches the list afresh; only the latest opening's answer
// is shown, and only while the picker is open.
let opening = 0;

async function openToolPicker(): Promise<void> {
  const mine = ++opening;
  toolPanel.hidden = false;
  toolsBtn.setAttribute("aria-expanded", "true");
  chooseTool(null);
  // The last opening's options go until the list is fetched again. Left
  // in place, they could be clicked while the fetch was out, and the
  // answer's render replaced the option under the pointer: a click whose
  // mousedown and mouseup fell either side of it reached no option, and
  // the choice was lost (the driver, choosing a tool right after opening,
  // then waited for an arguments field that never came).
  tools = [];
  toolList.replaceChildren();
  toolStatus.textContent = "Loading tools…";
  toolStatus.hidden = false;
  let fetched: ToolInfo[];
  try {
    const r = await fetch("/api/tools");
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    fetched = (await r.json()) as ToolInfo[];
  } catch (e) {
    if (mine !== opening || toolPanel.hidden) return;
    toolStatus.textContent = `Could not load the tools: ${e instanceof Error ? e.message : String(e)}`;
    return;
  }
  if (mine !== opening || toolPanel.hidden) return;
  tools = fetched;
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
// A click elsewhere closes the picker, but not an answer to one of the
// host's own questions (an approval of a View's tools/call, a consent),
// which can come up while the user is in the picker: answering it does
// not dismiss what the user was doing (the driver, approving each
// tools/call as it appears, closed the picker under the tool-call-approval
// variation, and the next openTool found no tool to choose).
document.addEventListener("mousedown", (ev) => {
  if (toolPanel.hidden || !(ev.target instanceof Element) || toolPanel.contains(ev.target) || toolsBtn.contains(ev.target)) return;
  if (ev.target.closest('[role="dialog"], [role="status"], .backdrop')) return;
  closeToolPicker();
});

// The model's tool list, as the agent sees it (/api/model-tools, the
// agent's ModelTools): one [data-testid="model-tool"] per tool, its text
// the tool's name, so that a driver reading the page (a host profile's
// MODEL_TOOLS) sees exactly what the model is offered, defects included.
// Collapsed under the protocol log; read once the page has loaded (the
// servers' tools are listed when the backend connects). A page opened with
// ?session=new shows a new session's list (a host profile's NEW_SESSION).
const modelToolList = el("ul", { class: "model-tool-list" });
const modelToolCount = el("span", { class: "muted" });
const modelTools = el("details", { class: "model-tools", "data-testid": "model-tools" }, el("summary", {}, "Tools offered to the model ", modelToolCount), modelToolList);
document.querySelector("aside.side")?.append(modelTools);

async function loadModelTools(): Promise<void> {
  try {
    const session = new URLSearchParams(location.search).get("session") === "new" ? "?session=new" : "";
    const r = await fetch(`/api/model-tools${session}`);
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    const names = ((await r.json()) as string[] | null) ?? [];
    modelToolList.replaceChildren(...names.map((n) => el("li", { "data-testid": "model-tool" }, n)));
    modelToolCount.textContent = `(${names.length})`;
    modelTools.dataset.state = "loaded";
  } catch (e) {
    modelToolCount.textContent = `(could not load: ${e instanceof Error ? e.message : String(e)})`;
    modelTools.dataset.state = "error";
  }
}
void loadModelTools();
