// One rendered app: the sandbox proxy iframe, the View's JSON-RPC session,
// its tool call, display modes and teardown.

import { config, sandboxOrigin, defect, variation, AVAILABLE_DISPLAY_MODES, direct, opaqueProxy, viewOrigin, SUPPORTED_VERSIONS, DISPLAY_MODES, DISPLAY_MODE_LABELS } from "./config";
import { el, sleep, log } from "./layout";
import { followConversation, userMessage } from "./conversation";
import { confirmDialog, confirmToast, confirmWindow } from "./dialogs";
import { api, appRequest } from "./appchannel";
import { theme, locale, styles } from "./context";
import { grantedPermissions, allowAttribute } from "./permissions";
import { withMetaCSP } from "./metacsp";
import { type DownloadItem, downloadItem, saveFile } from "./downloads";

export interface Launch {
  serverId: string;
  tool: { name: string; title?: string; inputSchema?: unknown; _meta?: Record<string, unknown> };
  callId: string;
  arguments: Record<string, unknown>;
  resource: { uri: string; html: string; ui: { csp?: Record<string, string[]>; permissions?: Record<string, unknown> }; policy?: string } | null;
}

// What /api/call/wait answers: exactly one field.
interface Outcome {
  result?: any;
  cancelled?: string;
  error?: string;
  durationMs?: number;
}

export const views = new Set<AppView>();

const FIXED_HEIGHT = 480;
// How long the host waits for a View's answer to ui/resource-teardown
// before it removes the View anyway (a View that never answers must not
// stay forever): generous, so that a slow View on a loaded machine is
// still waited for (S L1202, "Host SHOULD wait for a response"). Drivers
// wait longer for the View to go (reference.Host.CloseView).
const TEARDOWN_ANSWER_MS = 15_000;
// How late the slow-host variation sends each message to a View: enough
// that a wait tuned to a quick host shows (the suite's old waits were 300
// ms to 5 s), well inside the suite's time limits.
export const SLOW_HOST_MS = 400;
// How long the View's tools/list_changed notifications must pause before
// the host lists its tools again: a burst costs one tools/list.
const RELIST_AFTER_MS = 250;
// The host → View tool requests' wire names (draft L510-535): the spec's,
// or ext-apps v2's renames under the wire-v2 variation (BREAKING.md).
// The most tools of one View the host offers to the model (draft L2612:
// "Limit maximum number of tools per app (recommended: 50)").
const APP_TOOLS_MAX = 50;
const VIEW_TOOLS_LIST = variation("wire-v2") ? "ui/list-view-tools" : "tools/list";
const VIEW_TOOLS_CALL = variation("wire-v2") ? "ui/call-view-tool" : "tools/call";
// How long a question the user never answers stays (the *-unanswered
// variations): longer than any request of the suite waits for its answer,
// so the suite finds it still asking; then it is declined.
const PROMPT_EXPIRY_MS = 30_000;

// The optional host capabilities, and which a variation takes away.
const OPTIONAL_CAPABILITIES = ["message", "updateModelContext", "openLinks", "downloadFile", "logging", "sampling", "serverResources"];
const CAPABILITY_VARIATION: Record<string, string> = {
  message: "no-capability-message",
  updateModelContext: "no-capability-update-model-context",
  openLinks: "no-capability-open-links",
  downloadFile: "no-capability-download-file",
  logging: "no-capability-logging",
  sampling: "no-capability-sampling",
  serverResources: "no-capability-server-resources",
};
const offers = (cap: string): boolean => !OPTIONAL_CAPABILITIES.includes(cap) || !(variation("no-optional-capabilities") || variation(CAPABILITY_VARIATION[cap]));
// A method of an optional capability answers -32601 when it is not offered.
const CAPABILITY_OF_METHOD: Record<string, string> = {
  "ui/message": "message",
  "ui/update-model-context": "updateModelContext",
  "ui/open-link": "openLinks",
  "ui/download-file": "downloadFile",
  "sampling/createMessage": "sampling",
  "resources/read": "serverResources",
  "resources/list": "serverResources",
};

export class AppView {
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
  private rerendered = false;
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
  // App-provided tools (draft §App-Provided Tools): the tools the View
  // listed, and the pending re-list after its tools/list_changed.
  private appTools: { name: string }[] = [];
  private relistTimer: ReturnType<typeof setTimeout> | undefined;

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
      ? el("iframe", { "data-testid": "app-frame", title, sandbox: "allow-scripts allow-forms", srcdoc: withMetaCSP(launch.resource?.html ?? "", launch.resource?.policy) })
      : el("iframe", {
          "data-testid": "app-frame",
          title,
          // The proxy's permissions as the spec requires (S L475).
          // Sandbox flags are inherited: allow-downloads on the View only
          // takes effect when the proxy has it too.
          sandbox: (defect("proxy-without-same-origin") ? "allow-scripts allow-forms" : "allow-scripts allow-same-origin allow-forms") + (defect("view-allow-downloads") ? " allow-downloads" : ""),
          src,
        });
    // view-not-sandboxed leaves both frames unsandboxed (before the frame
    // is attached, so it never loads sandboxed): sandbox flags are
    // inherited, and a bare View inside a sandboxed proxy is still
    // sandboxed.
    if (defect("view-not-sandboxed")) this.frame.removeAttribute("sandbox");
    // no-proxy-ready and resource-before-proxy-ready: the host sends the
    // HTML once the proxy's frame has loaded, without waiting for the
    // proxy to announce itself (S L476-477).
    if (!direct && sendsOnLoad()) this.frame.addEventListener("load", () => this.sendResource(), { once: true });
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
    );
    // The variation view-after-result: the resource is read (prefetched)
    // when the call starts, but the View is shown only once the call has
    // ended, as a host that renders a tool's UI with its result: no
    // sentence asks for the View while the tool runs (S L1155 "if the View
    // is displayed during tool execution").
    if (!variation("view-after-result")) this.card.append(this.frame);
    if (variation("container-fixed-height")) this.frame.style.height = `${FIXED_HEIGHT}px`;
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
    if (variation("view-after-result") && !this.removed) this.card.append(this.frame);
    if (out.result !== undefined && defect("slow-result-dropped") && (out.durationMs ?? 0) > 1000) {
      log("host", `gave up on the result of ${this.launch.tool.name} (took over 1 s)`);
      return;
    }
    this.outcome = out;
    // The defect tool-input-after-result: the input waited for the
    // result, and follows it; a cancelled call never gets one.
    if (defect("tool-input-after-result") && this.initialized && !this.inputSent && out.cancelled === undefined) {
      this.deliverOutcomeFirst();
      this.sendToolInput();
      return;
    }
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
  // hurried: remove the View without waiting for its answer (the defects
  // teardown-not-awaited on the user's close, request-teardown-not-awaited
  // on the app's request).
  close(reason: string, hurried = defect("teardown-not-awaited")): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      this.closeBtn.disabled = true;
      await this.stop(reason);
      if (this.initialized && !this.broken && !defect("no-teardown-on-close")) {
        const answered = this.request("ui/resource-teardown", { reason }, TEARDOWN_ANSWER_MS).catch((e) => log("host", `teardown: ${e instanceof Error ? e.message : String(e)}; removing the View anyway`));
        // The defect leaves the View time to receive the request and report
        // it (its report of the teardown is answered: isTeardownReport),
        // then removes it without waiting for its FLUSH_MS of work and
        // answer. A fixed 500 ms raced that report on a loaded CI machine
        // and lost it; so did "its first server call afterwards", which can
        // be another report queued before it.
        if (hurried) await Promise.race([new Promise<void>((r) => (this.onProxied = r)), answered, sleep(5000)]);
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
    clearTimeout(this.relistTimer);
    // The View's tools leave the model's tool list with it (draft L2642);
    // the defect app-tools-outlive-view keeps them.
    if (this.appTools.length > 0 && !defect("app-tools-outlive-view")) void api("/api/app-tools", { callId: this.launch.callId, tools: [] }).catch(() => undefined);
    for (const [, settle] of this.pending) settle({ jsonrpc: "2.0", error: { code: -32000, message: "View removed" } });
    this.pending.clear();
    this.card.remove();
    views.delete(this);
    log("host", `removed the View of ${this.launch.tool.name}`);
  }

  // ---- messaging ------------------------------------------------------------
  private post(msg: unknown): void {
    const deliver = () => this.frame.contentWindow?.postMessage(msg, opaqueProxy ? "*" : sandboxOrigin);
    // The slow-host variation: every message to the View leaves
    // SLOW_HOST_MS late, in the order it was sent (timers of one delay fire
    // in the order they were set).
    if (variation("slow-host")) setTimeout(deliver, SLOW_HOST_MS);
    else deliver();
  }

  send(msg: any): void {
    log("→ view", msg, this.launch.callId);
    this.post(msg);
  }

  notify(method: string, params: unknown): void {
    if (params && typeof params === "object" && (variation("payload-meta-on-notifications") || variation("payload-extra-keys"))) {
      const p = { ...(params as Record<string, unknown>) };
      if (variation("payload-meta-on-notifications")) p._meta = { ...((p._meta as object) ?? {}), "io.mcpconform.reference/sent": Date.now() };
      if (variation("payload-extra-keys")) p["x-reference-extra"] = { note: "an unknown key a View must ignore" };
      params = p;
    }
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
    if (variation("context-empty")) return;
    // The context-changed-full variation: every change carries the whole
    // context, changed field included (a Partial<HostContext> may hold all).
    if (variation("context-changed-full")) partial = { ...this.hostContext(), ...partial };
    if (variation("context-minimal")) partial = "theme" in partial ? { theme: partial.theme } : {};
    if (Object.keys(partial).length === 0) return;
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
    const offered = AVAILABLE_DISPLAY_MODES.filter((m) => Array.isArray(declared) && declared.includes(m));
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
  // Inline, both axes are flexible (size-changed, up to maxHeight and the
  // card's width); fullscreen and pip fix both.
  private containerDimensions(): Record<string, number> {
    if (defect("container-dimensions-both")) return { height: 420, maxHeight: 6000, width: 640 };
    const r = this.frame.getBoundingClientRect();
    const width = Math.round(r.width) || 640;
    // The container-fixed-height variation: the host fixes the inline
    // height (S §Container Dimensions, "Fixed").
    if (this.displayMode === "inline" && variation("container-fixed-height")) return { height: FIXED_HEIGHT, width };
    // The container-fixed-width variation: the host fixes the inline width.
    if (this.displayMode === "inline" && variation("container-fixed-width")) return { maxHeight: 6000, width };
    if (this.displayMode === "inline") return { maxHeight: 6000, maxWidth: this.availableWidth() };
    return { height: Math.round(r.height) || 420, width };
  }

  // The width the card offers the frame: the inline maxWidth.
  private availableWidth(): number {
    return Math.round(this.card.clientWidth) || 640;
  }

  // Whether the View sets the inline width with size-changed: only where
  // the host states no fixed width (S §Container Dimensions).
  private widthFlexible(): boolean {
    return this.displayMode === "inline" && !variation("container-fixed-width") && !variation("container-fixed-height") && !defect("container-dimensions-both");
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
    // The defect viewport-not-container-dimensions: the pre-fix Goose key
    // (goose #6366), the frame's size under another name.
    if (defect("viewport-not-container-dimensions")) return this.contextChanged({ viewport: this.viewport() });
    this.contextChanged({ containerDimensions: d });
  }

  // The frame's size, as the viewport-not-container-dimensions defect
  // states it.
  private viewport(): Record<string, number> {
    const r = this.frame.getBoundingClientRect();
    return { width: Math.round(r.width) || 640, height: Math.round(r.height) || 420 };
  }

  private hostContext(): Record<string, unknown> {
    const containerDimensions = this.containerDimensions();
    this.dims = JSON.stringify(containerDimensions);
    if (variation("context-empty")) return {};
    if (variation("context-minimal")) return { theme };
    const ctx: Record<string, unknown> = {
      theme,
      styles: styles(),
      displayMode: defect("display-mode-unavailable") ? "maximized" : this.displayMode,
      availableDisplayModes: DISPLAY_MODES,
      ...(defect("viewport-not-container-dimensions") ? { viewport: this.viewport() } : { containerDimensions }),
      locale,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `${config.hostName}/${config.version}`,
      platform: "web",
      deviceCapabilities: { touch: false, hover: true },
      safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
      toolInfo: { id: this.launch.callId, tool: this.launch.tool },
    };
    if (variation("display-modes-inline-only")) ctx.availableDisplayModes = ["inline"];
    if (variation("display-modes-absent")) delete ctx.availableDisplayModes;
    if (variation("payload-extra-keys")) ctx["x-reference-extra"] = { note: "an unknown hostContext key" };
    if (variation("context-open-fields")) {
      // A host-specific mode no View can request here, and a device
      // capability beyond touch and hover.
      if (Array.isArray(ctx.availableDisplayModes)) ctx.availableDisplayModes = [...(ctx.availableDisplayModes as string[]), "x-reference-sidebar"];
      ctx.deviceCapabilities = { touch: false, hover: true, keyboard: "physical" };
    }
    return ctx;
  }

  private hostCapabilities(): Record<string, unknown> {
    let csp: Record<string, string[]> | undefined = this.launch.resource?.ui?.csp;
    if (csp && defect("sandbox-csp-advertised-loose")) csp = { ...csp, connectDomains: [...(csp.connectDomains ?? []), "https://*.mcpconform-undeclared.example"] };
    const sandbox: Record<string, unknown> = {};
    if (csp) sandbox.csp = csp;
    if (Object.keys(this.permissions).length > 0) sandbox.permissions = this.permissions;
    const caps: Record<string, unknown> = {
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
    for (const c of OPTIONAL_CAPABILITIES) if (!offers(c)) delete caps[c];
    if (variation("content-images-only")) {
      if (caps.message) caps.message = { image: {} };
      if (caps.updateModelContext) caps.updateModelContext = { image: {} };
    }
    // The no-sandbox-capability variation: the sandbox is applied but not
    // described (hostCapabilities.sandbox is optional).
    if (variation("no-sandbox-capability")) delete caps.sandbox;
    return caps;
  }

  private onMessage = (ev: MessageEvent): void => {
    if (ev.source !== this.frame.contentWindow || ev.origin !== viewOrigin) return;
    const msg = ev.data;
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
    if (msg.method === "ui/notifications/sandbox-proxy-ready") {
      if (!sendsOnLoad()) this.sendResource();
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

  // The View's HTML to the proxy, which renders it in a fresh inner frame.
  private sendResource(): void {
    this.post({
      jsonrpc: "2.0",
      method: "ui/notifications/sandbox-resource-ready",
      params: {
        html: this.launch.resource?.html ?? "",
        csp: this.launch.resource?.ui?.csp,
        permissions: this.permissions,
        sandbox: defect("view-not-sandboxed") || variation("view-sandbox-inherited") ? null : defect("view-allow-downloads") ? "allow-scripts allow-forms allow-downloads" : variation("view-same-origin") ? "allow-scripts allow-same-origin allow-forms" : "allow-scripts allow-forms",
      },
    });
  }

  // The rerender-once variation: the View is rendered again from scratch
  // (as a host does that re-mounts its app component); the fresh View
  // initializes anew and gets the tool data again. The old instance is torn
  // down the graceful way first (S L1201-1202).
  private async rerender(): Promise<void> {
    if (this.removed || this.closing || direct) return;
    try {
      await this.request("ui/resource-teardown", { reason: "The host re-renders the app" }, TEARDOWN_ANSWER_MS);
    } catch (e) {
      log("host", `teardown before re-rendering: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.removed || this.closing) return;
    log("host", `re-rendering the View of ${this.launch.tool.name}`);
    this.initialized = false;
    // The defect rerender-without-replay: the fresh View never gets the
    // tool data the old one had (ext-apps #522: ChatGPT web after a
    // reload, iOS Views "starved" of data).
    if (!defect("rerender-without-replay")) {
      this.inputSent = false;
      this.outcomeSent = false;
    }
    this.appCapabilities = {};
    for (const [, settle] of this.pending) settle({ jsonrpc: "2.0", error: { code: -32000, message: "View re-rendered" } });
    this.pending.clear();
    this.sendResource();
  }

  private reply(id: unknown, result: unknown): void {
    this.send({ jsonrpc: "2.0", id, result });
  }

  private error(id: unknown, code: number, message: string): void {
    // The errors-32000 variation: refusals for bad params use the generic
    // server-error code.
    if (code === -32602 && variation("errors-32000")) code = -32000;
    // errors-internal-code: as an SDK host whose schema validation throws.
    if (code === -32602 && variation("errors-internal-code")) code = -32603;
    this.send({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private async onRequest(msg: any): Promise<void> {
    const p = msg.params ?? {};
    const needs = Object.hasOwn(CAPABILITY_OF_METHOD, msg.method) ? CAPABILITY_OF_METHOD[msg.method] : undefined;
    if (needs && !offers(needs)) return this.error(msg.id, -32601, `Method not found: ${msg.method}`);
    try {
      switch (msg.method) {
        case "ui/initialize": {
          if (defect("initialize-unanswered")) return;
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
            ...(defect("host-capabilities-renamed") ? { capabilities: this.hostCapabilities() } : { hostCapabilities: this.hostCapabilities() }),
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
          if (msg.method === "resources/list" && variation("resources-list-unproxied")) return this.error(msg.id, -32601, "Method not found: resources/list");
          if (msg.method === "tools/call" && (variation("tool-call-approval") || variation("tool-call-approval-unanswered"))) {
            const ok = await confirmDialog("tool-call", "Let the app call a tool?", typeof p.name === "string" ? p.name : "", true, variation("tool-call-approval-unanswered") ? PROMPT_EXPIRY_MS : 0);
            log("host", ok ? `the user approved the app's tools/call of ${JSON.stringify(p.name)}` : `the user declined the app's tools/call of ${JSON.stringify(p.name)}`);
            if (!ok) return this.error(msg.id, -32000, "The user declined the app's tool call");
          }
          // Only the View's report that it got the teardown request, made
          // after the request (a probe View's "teardown" report), lets a
          // hurried close go on: any other call of the View may be in
          // flight then (its report of a late tool listing or tool-result,
          // all on one chain), and answering that first removed the View
          // before its teardown report got out (the self-test saw both
          // request-teardown checks miss the report under load).
          const closeWaits = isTeardownReport(p) ? this.onProxied : null;
          const r = await appRequest({ serverId: this.launch.serverId, method: msg.method, params: p });
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
          if (variation("content-images-only")) return this.error(msg.id, -32602, "ui/message: this host takes image content only");
          const blocks = Array.isArray(p.content) ? p.content : p.content ? [p.content] : [];
          const text = blocks.filter((b: any) => b?.type === "text").map((b: any) => b.text).join("\n");
          if (!text) return this.error(msg.id, -32602, "ui/message: no text content");
          if (variation("message-consent") || variation("message-consent-unanswered")) {
            // Unanswered, the consent question waits beside the
            // conversation (inline: a modal left open would cover the page).
            const unanswered = variation("message-consent-unanswered");
            const ok = await confirmDialog("message", "Send the app's message?", text, unanswered, unanswered ? PROMPT_EXPIRY_MS : 0);
            if (!ok) return this.error(msg.id, -32000, "The user declined the app's message");
          }
          this.reply(msg.id, {});
          if (defect("message-dropped")) return;
          await userMessage(text, defect("message-role-changed") ? "assistant" : "user");
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
          if (defect("open-link-refused-but-opened")) {
            log("host", `refused to open ${url.href}, and opened it`);
            window.open(url.href, "_blank", "noopener");
            return this.reply(msg.id, { isError: true });
          }
          if (variation("open-link-refused")) {
            log("host", `refused to open ${url.href}`);
            return this.reply(msg.id, { isError: true });
          }
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
          if (defect("download-ignored")) {
            log("host", `ignoring ui/download-file of ${JSON.stringify(names)}: no question, no answer`);
            return;
          }
          if (variation("download-toast-unconfirmed") || variation("download-asks-in-window")) {
            const title = files.length === 1 ? "Download 1 file?" : `Download ${files.length} files?`;
            const ok = variation("download-asks-in-window") ? await confirmWindow("download", title, names, PROMPT_EXPIRY_MS) : await confirmToast("download", title, names, PROMPT_EXPIRY_MS);
            if (!ok) return this.error(msg.id, -32000, "Download denied by user");
          } else if (!defect("download-without-confirmation")) {
            const ok = await confirmDialog("download", files.length === 1 ? "Download a file from the app?" : `Download ${files.length} files from the app?`, names);
            if (!ok) return this.error(msg.id, -32000, "Download denied by user");
          }
          if (defect("download-acked-not-done")) {
            log("host", `answered {} to ui/download-file of ${JSON.stringify(names)} and downloaded nothing`);
            return this.reply(msg.id, {});
          }
          if (defect("download-unanswered")) {
            log("host", `never answering ui/download-file of ${JSON.stringify(names)}`);
            return;
          }
          // The download-refused variation: a host policy rejects every
          // download, after the dialog, with the SDK's soft failure.
          if (variation("download-refused")) {
            log("host", `refused to download ${JSON.stringify(names)} (host policy)`);
            return this.reply(msg.id, { isError: true });
          }
          // The defect download-traversal-refused-but-saved: a name that
          // traverses is saved as it is, and the request answered refused.
          const refusedButSaved = defect("download-traversal-refused-but-saved") && files.some((f) => /[\\/]/.test(f.name));
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
          if (refusedButSaved) return this.error(msg.id, -32000, "Download refused: the file name is not safe");
          return this.reply(msg.id, {});
        }
        case "ui/update-model-context":
          if (defect("update-model-context-unimplemented")) return this.error(msg.id, -32601, "Method not found: ui/update-model-context");
          if (variation("content-images-only")) return this.error(msg.id, -32602, "ui/update-model-context: this host takes image content only");
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
          if (defect("display-mode-unanswered")) return;
          const want = p.mode;
          if (typeof want !== "string" || !DISPLAY_MODES.includes(want)) {
            // The defect invalid-mode-error-but-switched: refuses the bad
            // mode with an error, and switches anyway.
            if (defect("invalid-mode-error-but-switched")) {
              this.setDisplayMode(this.displayMode === "fullscreen" ? "inline" : "fullscreen");
              return this.error(msg.id, -32602, `Invalid params: mode must be one of ${DISPLAY_MODES.join(", ")}`);
            }
            if (variation("display-mode-unknown-current")) return this.reply(msg.id, { mode: this.displayMode });
            if (!defect("invalid-params-accepted")) return this.error(msg.id, -32602, `Invalid params: mode must be one of ${DISPLAY_MODES.join(", ")}`);
          }
          // Never switch to a mode the app did not declare (S L786); answer
          // with the resulting mode, the current one when refused (L787-788).
          const declared: string[] | undefined = this.appCapabilities?.availableDisplayModes;
          const grantsUnlistedPip = defect("pip-granted-unlisted") && want === "pip";
          // The variation display-needs-gesture refuses a request unless
          // the user has clicked into the View (the page's focus is in its
          // frame), as ChatGPT is reported to require a gesture; the defect
          // undeclared-mode-with-gesture does the same and, after such a
          // click, grants any mode it offers, declared or not. Not the
          // browser's transient activation: a driver's every DOM query in a
          // frame (Playwright's evaluate) activates it and its ancestors.
          const gesture = document.activeElement === this.frame;
          const gated = (variation("display-needs-gesture") || defect("undeclared-mode-with-gesture")) && !gesture;
          const grantsUndeclared = defect("undeclared-display-mode-granted") || (defect("undeclared-mode-with-gesture") && gesture);
          const allowed = !gated && (grantsUnlistedPip || (AVAILABLE_DISPLAY_MODES.includes(want) && (!declared || declared.includes(want) || grantsUndeclared)));
          const was = this.displayMode;
          if (allowed && want !== this.displayMode) this.setDisplayMode(want);
          // The defect display-switch-misreported: switches (and announces
          // it) but answers the mode it left.
          if (defect("display-switch-misreported") && this.displayMode !== was) return this.reply(msg.id, { mode: was });
          if (defect("display-mode-invalid-result")) return this.reply(msg.id, { mode: "maximized" });
          // The defect display-refusal-wrong-mode: a refusal answers a valid
          // mode, but not the current one (S L788).
          if (!allowed && defect("display-refusal-wrong-mode")) return this.reply(msg.id, { mode: DISPLAY_MODES.find((m) => m !== this.displayMode && m !== want) });
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
    let partials = keys.map((_, i) => Object.fromEntries(keys.slice(0, i).map((k) => [k, args[k]])));
    if (variation("tool-input-partial-none")) partials = [];
    if (variation("tool-input-partial-once")) partials = [{}];
    if (variation("tool-input-partial-many")) {
      const grow = keys.map((_, i) => Object.fromEntries(keys.slice(0, i + 1).map((k) => [k, args[k]])));
      partials = [{}, {}, ...grow, ...grow].slice(0, 6);
      while (partials.length < 6) partials.push(partials[partials.length - 1] ?? {});
    }
    // Structured clone keeps an undefined-valued key that JSON drops.
    if (variation("payload-undefined-keys")) args = { ...args, unsetByHost: undefined };
    const partial = (a: Record<string, unknown>) => this.notify("ui/notifications/tool-input-partial", { arguments: a });
    const input = () => this.notify("ui/notifications/tool-input", { arguments: args });
    // The defect tool-input-missing: the View gets neither (its result
    // still follows: deliverOutcome waits for inputSent, set above).
    if (defect("tool-input-missing")) return;
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
    // The variation: the host cancels the suite's own call (a classifier
    // intervened) although the server completed it.
    if (variation("suite-call-cancelled") && this.launch.tool.name === "conformance_suite") {
      this.notify("ui/notifications/tool-cancelled", { reason: "classifier intervention" });
      return;
    }
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
    if (variation("payload-undefined-keys")) result = { ...result, unsetByHost: undefined };
    // The defect resource-link-result-dropped: a result with a
    // resource_link block never reaches the View (claude-ai-mcp #753).
    if (defect("resource-link-result-dropped") && Array.isArray(result?.content) && result.content.some((c: any) => c?.type === "resource_link")) {
      log("host", `dropped the result of ${this.launch.tool.name}: it carries a resource_link`);
      return;
    }
    if (!defect("tool-result-missing")) this.notify("ui/notifications/tool-result", result);
  }

  private onNotification(msg: any): void {
    switch (msg.method) {
      case "ui/notifications/initialized":
        if (this.initialized) return;
        this.initialized = true;
        if ((variation("rerender-once") || defect("rerender-without-replay")) && !this.rerendered) {
          this.rerendered = true;
          setTimeout(() => void this.rerender(), 300);
        }
        // Tool data only after initialized (S L485, L1106).
        if ((defect("tool-result-before-input") || defect("tool-input-after-result")) && this.outcome?.result !== undefined) {
          this.deliverOutcomeFirst();
        }
        // tool-input-after-result: no input until the call's result is in
        // (onOutcome sends it then); a cancelled call never gets one.
        if (!(defect("tool-input-after-result") && this.outcome?.result === undefined && this.outcome?.error === undefined)) {
          this.sendToolInput();
          this.deliverOutcome();
        }
        // The user's controls for this View, and any resize since
        // ui/initialize.
        this.offerDisplayModes();
        this.scheduleDimensions();
        // The defect app-tool-called-unlisted: the host calls a tool of the
        // View before it has listed any (the name of the tool that opened
        // it, as a host that confuses server and app tools would).
        if (defect("app-tool-called-unlisted") && this.offersAppTools()) void this.request(VIEW_TOOLS_CALL, { name: this.launch.tool.name, arguments: {} }, 10_000).catch(() => undefined);
        void this.listAppTools();
        return;
      case "ui/notifications/size-changed": {
        // Flexible height and width: the View drives them, up to maxHeight
        // and maxWidth (S L718).
        const h = Number(msg.params?.height);
        const w = Number(msg.params?.width);
        if (defect("size-changed-ignored")) return;
        // size-changed-width-ignored states a flexible width and applies
        // only the height; viewport-not-container-dimensions states none
        // (goose #6366: the width of size-changed was ignored).
        if (Number.isFinite(w) && w > 0 && this.widthFlexible() && !defect("size-changed-width-ignored") && !defect("viewport-not-container-dimensions")) {
          this.frame.style.width = `${Math.min(Math.ceil(w), this.availableWidth())}px`;
        }
        // A fixed height is the host's, not the View's.
        if (variation("container-fixed-height")) return;
        if (Number.isFinite(h) && h > 0 && this.displayMode === "inline") this.frame.style.height = `${Math.min(Math.ceil(h), 6000)}px`;
        return;
      }
      case "ui/notifications/request-teardown":
        // Accepted: the graceful path, ui/resource-teardown first (draft
        // L1459).
        log("host", "the app asked to be closed");
        if (variation("request-teardown-ignored")) return void log("host", "ignored the app's request to be closed");
        if (defect("request-teardown-skips-teardown")) {
          this.remove();
          return;
        }
        // The defect request-teardown-not-awaited: this path alone removes
        // the View before its answer to ui/resource-teardown.
        void this.close("The app asked to be closed", defect("request-teardown-not-awaited"));
        return;
      case "notifications/tools/list_changed":
        this.appToolsChanged();
        return;
      // ext-apps v2 renames the View's log notifications/message to
      // ui/log; a v2 host (wire-v2) takes both.
      case "ui/log":
        if (!variation("wire-v2")) return;
      // falls through
      case "notifications/message":
        if (!offers("logging")) return;
        // Logging (hostCapabilities.logging): recorded, never answered.
        log("host", `app log [${msg.params?.level ?? "info"}]: ${JSON.stringify(msg.params?.data)}`);
        if (defect("log-message-error-reply")) this.send({ jsonrpc: "2.0", id: null, error: { code: -32601, message: "Method not found: notifications/message" } });
        return;
    }
  }

  // ---- app-provided tools (draft §App-Provided Tools) -----------------------
  // Whether this View provides tools the host lists: it advertised the
  // tools capability in ui/initialize (draft L2641), and the host supports
  // app tools at all (the app-tools-unsupported variation does not).
  private offersAppTools(): boolean {
    const tools = this.appCapabilities?.tools;
    return !variation("app-tools-unsupported") && !!tools && typeof tools === "object";
  }

  // Lists the View's tools (draft L2641: they become available once the
  // host issues tools/list).
  private async listAppTools(): Promise<void> {
    if (!this.initialized || this.removed || !this.offersAppTools()) return;
    try {
      const r = await this.request(VIEW_TOOLS_LIST, {}, 10_000);
      const tools: unknown[] = Array.isArray(r?.tools) ? r.tools : [];
      if (this.removed) return;
      const provided = tools.filter((x): x is { name: string } => !!x && typeof (x as any).name === "string");
      // At most APP_TOOLS_MAX of them (draft L2612: "Limit maximum number
      // of tools per app (recommended: 50)"): the first ones, or none under
      // the variation app-tools-over-limit-refused; the defect
      // app-tools-unlimited offers them all.
      const over = provided.length > APP_TOOLS_MAX;
      this.appTools = defect("app-tools-unlimited") || !over ? provided : variation("app-tools-over-limit-refused") ? [] : provided.slice(0, APP_TOOLS_MAX);
      log("host", `the app provides ${provided.length} tool(s): ${provided.map((x) => x.name).join(", ") || "none"}${this.appTools.length < provided.length ? `; over the limit of ${APP_TOOLS_MAX}, the host offers ${this.appTools.length === 0 ? "none" : `the first ${this.appTools.length}`}` : ""}`);
      // Offered to the model while the View is shown.
      await api("/api/app-tools", { callId: this.launch.callId, tools: this.appTools.map((x) => x.name) });
    } catch (e) {
      log("host", `listing the app's tools: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // The agent calls one of the View's tools (draft L510-535, "Host → App:
  // Call app-registered tool"): a tools/call request (ui/call-view-tool
  // under wire-v2) with the tool's name and its arguments object; the
  // View's CallToolResult is the answer the agent gets.
  async callAppTool(name: string, args: Record<string, unknown>): Promise<any> {
    if (!this.appTools.some((x) => x.name === name)) throw new Error(`the app does not provide a tool named ${name}`);
    // The defect app-tool-call-malformed: the arguments go as a JSON
    // string, not the object the tool's inputSchema describes.
    const params = defect("app-tool-call-malformed") ? { name, arguments: JSON.stringify(args) } : { name, arguments: args };
    return this.request(VIEW_TOOLS_CALL, params, 10_000);
  }

  // The View's tools/list_changed: listed again once a burst is over (draft
  // L2615, "Throttle tools/list_changed notifications to prevent spam").
  private appToolsChanged(): void {
    if (!this.initialized || !this.offersAppTools()) return;
    if (defect("list-changed-unthrottled")) return void this.listAppTools();
    clearTimeout(this.relistTimer);
    this.relistTimer = setTimeout(() => void this.listAppTools(), RELIST_AFTER_MS);
  }

  // The defect tool-result-before-input: the result overtakes the input.
  private deliverOutcomeFirst(): void {
    this.inputSent = true;
    this.deliverOutcome();
    this.inputSent = false;
  }
}

// The defects under which the host sends the View's HTML when the proxy's
// frame has loaded instead of on the proxy's sandbox-proxy-ready.
function sendsOnLoad(): boolean {
  return defect("no-proxy-ready") || defect("resource-before-proxy-ready");
}

// isTeardownReport: a tools/call of the fixture's probe tool reporting
// that the View got ui/resource-teardown (fixtures/suite/probe.ts), which
// the hurried-close defects wait for before they remove the View.
function isTeardownReport(params: any): boolean {
  return params?.name === "conformance_probe" && params?.arguments?.op === "report" && params?.arguments?.value?.event === "teardown";
}
