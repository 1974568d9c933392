// The reference host page: a small chat product that renders MCP Apps the
// way the spec describes (S 2026-01-26 plus draft). It talks JSON-RPC with
// each View through the sandbox proxy, proxies server requests to the Go
// backend (which enforces visibility), and keeps a log of every message.

import { config, sandboxOrigin } from "./config";
import { log } from "./layout";
import "./conversation";
import "./dialogs";
import "./context";
import "./tools";
import "./permissions";
import "./downloads";
import "./view";

log("host", `reference host ${config.version} ready; sandbox at ${sandboxOrigin}`);

export {};
