// The host page's configuration (#config, written by web.go) and the
// switchable defects it names.

interface Config {
  defects: string[];
  variations: string[];
  sandboxURL: string;
  hostName: string;
  version: string;
}
export const config = JSON.parse(document.getElementById("config")!.textContent!) as Config;
export const sandboxOrigin = new URL(config.sandboxURL).origin;
// Switchable defects (mcpconform run --host-defect NAME) break exactly one
// requirement each, so the suite's self-test can prove its checks fail.
export const defect = (name: string): boolean => config.defects.includes(name);
// Legal variations (mcpconform run --host-variation NAME) make the host
// differ from its default within what the spec allows, so the self-test
// can prove no check goes red on a host that is merely different.
export const variation = (name: string): boolean => config.variations.includes(name);
// Without a proxy the View is a srcdoc frame of this page with an opaque origin.
export const direct = defect("no-sandbox-proxy");
// A proxy without allow-same-origin has an opaque origin too.
export const opaqueProxy = direct || defect("proxy-without-same-origin");
export const viewOrigin = opaqueProxy ? "null" : sandboxOrigin;
export const SUPPORTED_VERSIONS = ["2026-01-26"];
// Every display mode the spec names, and the ones this host offers.
export const DISPLAY_MODES = ["inline", "fullscreen", "pip"];
// A host that states no displayMode (context-minimal, context-empty) keeps
// every View inline too.
// The defect pip-granted-unlisted lists no pip, and grants it anyway.
export const AVAILABLE_DISPLAY_MODES = ["display-modes-inline-only", "display-modes-absent", "context-minimal", "context-empty"].some(variation)
  ? ["inline"]
  : defect("pip-granted-unlisted")
    ? DISPLAY_MODES.filter((m) => m !== "pip")
    : DISPLAY_MODES;
export const DISPLAY_MODE_LABELS: Record<string, string> = { inline: "Inline", fullscreen: "Fullscreen", pip: "Picture in picture" };
