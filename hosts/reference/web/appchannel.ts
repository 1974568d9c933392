// The page's channels to its backend: api for the page's own calls, and
// one WebSocket per page for the View's proxied requests (tools/call,
// resources/read, resources/list), opened on first use: a message on an
// open socket costs about 0.2 ms where a fetch costs 1.5–2.5 ms in
// Chromium, and every tools/call of a View (the relay bridge's polls
// included) crosses this hop. Where the socket cannot open, or has closed,
// the same request goes by POST /api/app; a request in flight when the
// socket closes fails, and is not sent again (a tools/call must not run
// twice).

// api POSTs body to one of the backend's endpoints and returns its JSON
// answer: the page's other calls (chat, tools, the call's outcome, model
// context) and the app socket's fallback.
export async function api<T = any>(path: string, body: unknown): Promise<T> {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status} ${await r.text()}`);
  return r.json();
}

export interface AppAnswer {
  result?: any;
  error?: { code: number; message: string };
}

interface AppRequest {
  serverId: string;
  method: string;
  params: unknown;
}

let socket: Promise<WebSocket | null> | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (a: AppAnswer) => void; reject: (e: Error) => void }>();

function open(): Promise<WebSocket | null> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/app/socket`);
    ws.onopen = () => resolve(ws);
    ws.onerror = () => resolve(null); // before open: fall back to POST
    ws.onmessage = (ev) => {
      const a = JSON.parse(ev.data as string);
      const w = waiting.get(a.id);
      if (!w) return;
      waiting.delete(a.id);
      w.resolve(a.error ? { error: a.error } : { result: a.result });
    };
    ws.onclose = () => {
      socket = null; // the next request opens a new one
      resolve(null);
      for (const [id, w] of waiting) {
        waiting.delete(id);
        w.reject(new Error("the host page's app socket closed"));
      }
    };
  });
}

export async function appRequest(req: AppRequest): Promise<AppAnswer> {
  socket ??= open();
  const ws = await socket;
  if (!ws || ws.readyState !== WebSocket.OPEN) {
    socket = null;
    return api<AppAnswer>("/api/app", req);
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, ...req }));
  });
}
