// A minimal, chat-less MCP Apps host page built on @mcp-ui/client's
// AppRenderer the way mcp-ui's client walkthrough and AppRenderer guide
// tell a host to: an MCP client with the UI extension's capabilities over
// Streamable HTTP, AppRenderer with that client, the sandbox proxy URL,
// toolInput, toolResult (set when the host's own tools/call returns) and
// hostContext. Everything else is AppRenderer's defaults.
//
// Bundled at run time by esbuild's Go API from the npm packages in the
// driver's cache (hosts/mcpui); not type-checked by the repository's tsc
// (it is .tsx and its types live in that cache).
//
// What the page adds, as a host would: one card per tool call (the call
// named in the page URL first), each with Stop (abort the call and set
// AppRenderer's toolCancelled) and Close (AppRendererHandle.teardownResource,
// as its docs say "before unmounting", then unmount); a theme toggle that
// updates hostContext.theme; and window.pageHost.call(tool, args), the
// page's "render this call" entry the driver uses for openTool.
import { useEffect, useMemo, useRef, useState } from "react";
import { createRoot } from "react-dom/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  AppRenderer,
  type AppRendererHandle,
  type ClientCapabilitiesWithExtensions,
  UI_EXTENSION_CAPABILITIES,
} from "@mcp-ui/client";

declare global {
  interface Window {
    pageHost?: { call(tool: string, args: Record<string, unknown>): string };
    __hostConfig: { mcp: string; sandbox: string; tool: string; args: Record<string, unknown> };
  }
}

type Theme = "light" | "dark";

interface Call {
  id: string;
  tool: string;
  args: Record<string, unknown>;
}

async function connect(url: string): Promise<Client> {
  const capabilities: ClientCapabilitiesWithExtensions = {
    roots: { listChanged: true },
    extensions: UI_EXTENSION_CAPABILITIES,
  };
  const client = new Client({ name: "mcpconform-mcp-ui-host", version: "1.0.0" }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function ToolCard(props: { client: Client; call: Call; theme: Theme; sandbox: URL; onClosed: () => void }) {
  const { client, call, theme, sandbox, onClosed } = props;
  const [toolResult, setToolResult] = useState<any>(undefined);
  const [cancelled, setCancelled] = useState(false);
  const [running, setRunning] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const appRef = useRef<AppRendererHandle>(null);
  const abort = useRef<AbortController | null>(null);

  // The host's own tools/call, as the walkthrough's ToolUI makes it.
  useEffect(() => {
    const ac = new AbortController();
    abort.current = ac;
    client
      .callTool({ name: call.tool, arguments: call.args }, undefined, { signal: ac.signal, timeout: 120_000 })
      .then((r) => {
        if (!ac.signal.aborted) setToolResult(r);
      })
      .catch((e) => {
        if (!ac.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      })
      .finally(() => setRunning(false));
    return () => ac.abort();
  }, [client, call]);

  const hostContext = useMemo(() => ({ theme }), [theme]);

  const stop = () => {
    abort.current?.abort("stopped by the user");
    setCancelled(true);
    setRunning(false);
  };
  const close = async () => {
    try {
      await appRef.current?.teardownResource();
    } catch (e) {
      console.error("[host] teardown:", e);
    }
    onClosed();
  };

  return (
    <section data-view={call.id} data-tool={call.tool} style={{ border: "1px solid #ccc", margin: "8px 0", padding: 8 }}>
      <header>
        <strong>{call.tool}</strong>{" "}
        <button data-action="stop" disabled={!running} onClick={stop}>
          Stop
        </button>{" "}
        <button data-action="close" onClick={close}>
          Close
        </button>
        {error && <span data-error style={{ color: "red" }}> {error}</span>}
      </header>
      <div style={{ width: "100%", height: "600px" }}>
        <AppRenderer
          ref={appRef}
          client={client}
          toolName={call.tool}
          sandbox={{ url: sandbox }}
          toolInput={call.args}
          toolResult={toolResult}
          toolCancelled={cancelled}
          hostContext={hostContext}
          onOpenLink={async ({ url }) => {
            window.open(url, "_blank");
            return {};
          }}
          onError={(e) => console.error("[host] AppRenderer error:", e.message)}
        />
      </div>
    </section>
  );
}

function Host() {
  const cfg = window.__hostConfig;
  const [client, setClient] = useState<Client | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [theme, setTheme] = useState<Theme>("light");
  const [calls, setCalls] = useState<Call[]>([{ id: "suite", tool: cfg.tool, args: cfg.args }]);
  const next = useRef(1);
  const sandbox = useMemo(() => new URL(cfg.sandbox), [cfg.sandbox]);

  useEffect(() => {
    connect(cfg.mcp).then(setClient, (e) => setError(e instanceof Error ? e.message : String(e)));
  }, [cfg.mcp]);
  useEffect(() => {
    window.pageHost = {
      call(tool, args) {
        const id = "call-" + next.current++;
        setCalls((cs) => [...cs, { id, tool, args }]);
        return id;
      },
    };
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  if (error) return <div data-status="error">Error: {error}</div>;
  if (!client) return <div data-status="connecting">Connecting to MCP server…</div>;
  return (
    <div data-status="connected">
      <button data-action="theme" onClick={() => setTheme((t) => (t === "light" ? "dark" : "light"))}>
        Toggle theme
      </button>
      <div id="views">
        {calls.map((c) => (
          <ToolCard
            key={c.id}
            client={client}
            call={c}
            theme={theme}
            sandbox={sandbox}
            onClosed={() => setCalls((cs) => cs.filter((x) => x.id !== c.id))}
          />
        ))}
      </div>
    </div>
  );
}

createRoot(document.getElementById("root")!).render(<Host />);
