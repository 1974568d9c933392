// A minimal, chat-less MCP Apps host page built on the ext-apps SDK's
// AppBridge (@modelcontextprotocol/ext-apps/app-bridge, pinned in
// hosts/appbridge) the way the SDK's docs and the ext-apps repository's
// examples/basic-host tell a host to use it. Written for mcpconform; the
// basic-host example is the reference, not copied.
//
// Per tool call, as basic-host does:
//   - the host's own tools/call, and the UI resource read with resources/read
//     (one content item of text/html;profile=mcp-app; its _meta.ui, else the
//     resources/list entry's, gives csp and permissions);
//   - the sandbox proxy loaded into an iframe with
//     sandbox="allow-scripts allow-same-origin allow-forms", an allow
//     attribute from the permissions (buildAllowAttribute) and ?csp=<json>
//     (the proxy's server turns it into a Content-Security-Policy header);
//   - once the proxy says sandbox-proxy-ready: an AppBridge over a
//     PostMessageTransport to that iframe, with basic-host's hostCapabilities
//     and hostContext and its handlers, then sandbox-resource-ready with the
//     HTML, csp and permissions, then (after ui/notifications/initialized)
//     tool-input and, when the call ends, tool-result (or tool-cancelled
//     when it failed).
//
// What the page adds for the driver: the call named in the page URL and
// window.pageHost.call(tool, args) for more calls, each in a
// <section data-view>; Close (teardownResource, awaited, then close the
// bridge and remove the card); and a theme toggle (setHostContext on every
// bridge, which sends host-context-changed).
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  buildAllowAttribute,
  getToolUiResourceUri,
  type McpUiHostContext,
  type McpUiResourceCsp,
  type McpUiResourcePermissions,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

// The page's contract with hosts/npmpage: its configuration, and the entry
// that renders one more call.
type Args = Record<string, unknown>;
interface HostConfig {
  mcp: string;
  sandbox: string;
  tool: string;
  args: Args;
}
declare global {
  interface Window {
    __hostConfig: HostConfig;
    pageHost?: { call(tool: string, args: Args): string };
  }
}

type Theme = "light" | "dark";

const IMPLEMENTATION = { name: "MCP Apps Host", version: "1.0.0" };

// Standard style variable names (spec: McpUiStyleVariableKey), with
// light-dark() values as basic-host's host styles use them.
const HOST_STYLE_VARIABLES: Record<string, string> = {
  "--color-background-primary": "light-dark(#ffffff, #1a1a1a)",
  "--color-background-secondary": "light-dark(#f5f5f5, #262626)",
  "--color-text-primary": "light-dark(#171717, #fafafa)",
  "--color-text-secondary": "light-dark(#525252, #a3a3a3)",
  "--color-border-primary": "light-dark(#d4d4d4, #404040)",
  "--font-sans": "system-ui, -apple-system, sans-serif",
  "--font-mono": "ui-monospace, monospace",
  "--border-radius-md": "8px",
};

const log = {
  info: console.log.bind(console, "[HOST]"),
  warn: console.warn.bind(console, "[HOST]"),
  error: console.error.bind(console, "[HOST]"),
};

interface ServerInfo {
  client: Client;
  tools: Map<string, any>;
  resources: Map<string, any>;
}

interface UiResourceData {
  html: string;
  csp?: McpUiResourceCsp;
  permissions?: McpUiResourcePermissions;
}

async function connectToServer(url: string): Promise<ServerInfo> {
  const client = new Client(IMPLEMENTATION);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  // The listing's _meta.ui is the fallback for the content item's.
  const { resources } = await client.listResources();
  return {
    client,
    tools: new Map(tools.map((t: any) => [t.name, t])),
    resources: new Map(resources.map((r: any) => [r.uri, r])),
  };
}

async function getUiResource(server: ServerInfo, uri: string): Promise<UiResourceData> {
  const resource = await server.client.readResource({ uri });
  if (resource.contents.length !== 1) throw new Error(`Unexpected contents count: ${resource.contents.length}`);
  const content: any = resource.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`Unsupported MIME type: ${content.mimeType}`);
  const html = "blob" in content ? atob(content.blob) : content.text;
  const contentMeta = content._meta || content.meta;
  const listingMeta = server.resources.get(uri)?._meta;
  const uiMeta = contentMeta?.ui ?? listingMeta?.ui;
  return { html, csp: uiMeta?.csp, permissions: uiMeta?.permissions };
}

function loadSandboxProxy(iframe: HTMLIFrameElement, sandboxBase: string, csp?: McpUiResourceCsp, permissions?: McpUiResourcePermissions): Promise<void> {
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const allow = buildAllowAttribute(permissions);
  if (allow) iframe.setAttribute("allow", allow);
  const ready = new Promise<void>((resolve) => {
    const listener = ({ source, data }: MessageEvent) => {
      if (source === iframe.contentWindow && data?.method === "ui/notifications/sandbox-proxy-ready") {
        window.removeEventListener("message", listener);
        resolve();
      }
    };
    window.addEventListener("message", listener);
  });
  const u = new URL(sandboxBase);
  if (csp) u.searchParams.set("csp", JSON.stringify(csp));
  log.info("Loading sandbox proxy...", csp ? `(CSP: ${JSON.stringify(csp)})` : "");
  iframe.src = u.href;
  return ready;
}

let theme: Theme = "light";
const bridges = new Set<{ bridge: AppBridge; context: McpUiHostContext }>();

function newAppBridge(server: ServerInfo, iframe: HTMLIFrameElement, card: HTMLElement) {
  const caps = server.client.getServerCapabilities();
  const context: McpUiHostContext = {
    theme,
    platform: "web",
    styles: { variables: HOST_STYLE_VARIABLES as any },
    containerDimensions: { maxHeight: 6000 },
    displayMode: "inline",
    availableDisplayModes: ["inline", "fullscreen"],
  };
  const bridge = new AppBridge(
    server.client,
    IMPLEMENTATION,
    {
      openLinks: {},
      serverTools: caps?.tools,
      serverResources: caps?.resources,
      updateModelContext: { text: {} },
    },
    { hostContext: context },
  );
  const entry = { bridge, context };
  const update = (patch: Partial<McpUiHostContext>) => {
    entry.context = { ...entry.context, ...patch };
    bridge.setHostContext(entry.context);
  };

  // The container's width, as basic-host's ResizeObserver reports it.
  const ro = new ResizeObserver(([e]) => {
    const width = Math.round(e.contentRect.width);
    if (width > 0) update({ containerDimensions: { width, maxHeight: 6000 } });
  });
  const prevOnclose = bridge.onclose;
  bridge.onclose = () => {
    ro.disconnect();
    bridges.delete(entry);
    prevOnclose?.();
  };

  const messages = card.querySelector<HTMLElement>("[data-panel=messages]")!;
  const modelContext = card.querySelector<HTMLElement>("[data-panel=model-context]")!;
  bridge.onmessage = async (params) => {
    log.info("Message from MCP App:", params);
    const p = document.createElement("pre");
    p.textContent = JSON.stringify(params);
    messages.append(p);
    return {};
  };
  bridge.onopenlink = async (params) => {
    log.info("Open link request:", params);
    window.open(params.url, "_blank", "noopener,noreferrer");
    return {};
  };
  bridge.onloggingmessage = (params) => log.info("Log message from MCP App:", params);
  bridge.onupdatemodelcontext = async (params) => {
    log.info("Model context update from MCP App:", params);
    const empty = !(params.content?.length || (params.structuredContent && Object.keys(params.structuredContent).length));
    modelContext.textContent = empty ? "" : JSON.stringify(params);
    return {};
  };
  bridge.onsizechange = ({ width, height }) => {
    const style = getComputedStyle(iframe);
    const borderBox = style.boxSizing === "border-box";
    if (width !== undefined) {
      if (borderBox) width += parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
      iframe.style.minWidth = `min(${width}px, 100%)`;
    }
    if (height !== undefined) {
      if (borderBox) height += parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
      iframe.style.height = `${height}px`;
    }
  };
  bridge.onrequestdisplaymode = async (params) => {
    log.info("Display mode request from MCP App:", params);
    const mode = params.mode === "fullscreen" ? "fullscreen" : "inline";
    card.dataset.displayMode = mode;
    update({ displayMode: mode });
    return { mode };
  };
  bridges.add(entry);
  ro.observe(iframe);
  return bridge;
}

async function initializeApp(iframe: HTMLIFrameElement, bridge: AppBridge, input: Record<string, unknown>, result: Promise<any>, resource: UiResourceData) {
  const initialized = new Promise<void>((resolve) => {
    const prev = bridge.oninitialized;
    bridge.oninitialized = (...args) => {
      resolve();
      bridge.oninitialized = prev;
      prev?.(...args);
    };
  });
  // The iframe's window as both target and source: this bridge answers
  // only its own iframe.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  const { html, csp, permissions } = resource;
  await bridge.sendSandboxResourceReady({ html, csp, permissions });
  await initialized;
  bridge.sendToolInput({ arguments: input });
  result.then(
    (r) => bridge.sendToolResult(r),
    (e) => bridge.sendToolCancelled({ reason: e instanceof Error ? e.message : String(e) }),
  );
}

function render(server: ServerInfo, id: string, tool: string, args: Record<string, unknown>) {
  const card = document.createElement("section");
  card.dataset.view = id;
  card.dataset.tool = tool;
  card.className = "card";
  const header = document.createElement("header");
  const name = document.createElement("strong");
  name.textContent = tool + " ";
  const close = document.createElement("button");
  close.dataset.action = "close";
  close.textContent = "Close";
  header.append(name, close);
  const iframe = document.createElement("iframe");
  const messages = document.createElement("div");
  messages.dataset.panel = "messages";
  const modelContext = document.createElement("div");
  modelContext.dataset.panel = "model-context";
  card.append(header, iframe, messages, modelContext);
  document.getElementById("views")!.append(card);
  const fail = (e: unknown) => {
    const s = document.createElement("span");
    s.dataset.error = "";
    s.textContent = e instanceof Error ? e.message : String(e);
    header.append(s);
  };

  let bridge: AppBridge | null = null;
  close.onclick = async () => {
    close.disabled = true;
    if (bridge) {
      // "Host SHOULD wait for a response before tearing down the resource."
      try {
        await bridge.teardownResource({});
      } catch (e) {
        log.warn("Teardown request failed (app may have already closed):", e);
      }
      await bridge.close().catch(() => {});
    }
    card.remove();
  };

  const info = server.tools.get(tool);
  if (!info) return fail(new Error(`Unknown tool: ${tool}`));
  const result = server.client.callTool({ name: tool, arguments: args });
  result.catch(() => {});
  let uri: string | undefined;
  try {
    uri = getToolUiResourceUri(info);
  } catch (e) {
    return fail(e);
  }
  if (!uri) return fail(new Error(`${tool} has no UI resource`));
  getUiResource(server, uri).then(
    async (resource) => {
      await loadSandboxProxy(iframe, window.__hostConfig.sandbox, resource.csp, resource.permissions);
      bridge = newAppBridge(server, iframe, card);
      await initializeApp(iframe, bridge, args, result, resource);
    },
    fail,
  );
}

async function main() {
  const cfg = window.__hostConfig;
  const root = document.getElementById("root")!;
  const status = document.createElement("div");
  status.dataset.status = "connecting";
  status.textContent = "Connecting to MCP server…";
  root.append(status);
  let server: ServerInfo;
  try {
    server = await connectToServer(cfg.mcp);
  } catch (e) {
    status.dataset.status = "error";
    status.textContent = "Error: " + (e instanceof Error ? e.message : String(e));
    return;
  }
  status.textContent = "";
  const toggle = document.createElement("button");
  toggle.dataset.action = "theme";
  toggle.textContent = "Toggle theme";
  toggle.onclick = () => {
    theme = theme === "light" ? "dark" : "light";
    document.documentElement.dataset.theme = theme;
    for (const e of bridges) {
      e.context = { ...e.context, theme };
      e.bridge.setHostContext(e.context);
    }
  };
  const views = document.createElement("div");
  views.id = "views";
  status.append(toggle, views);
  let next = 1;
  window.pageHost = {
    call(tool, args) {
      const id = "call-" + next++;
      render(server, id, tool, args);
      return id;
    },
  };
  render(server, "suite", cfg.tool, cfg.args);
  status.dataset.status = "connected";
}

const style = document.createElement("style");
style.textContent = [
  ".card{border:1px solid #ccc;margin:8px 0;padding:8px}",
  ".card iframe{display:block;width:100%;height:600px;border:none}",
  ".card[data-display-mode=fullscreen]{position:fixed;inset:0;margin:0;z-index:10;background:Canvas}",
  ".card[data-display-mode=fullscreen] iframe{height:calc(100vh - 48px)}",
].join("\n");
document.head.append(style);
document.documentElement.dataset.theme = theme;
main();
