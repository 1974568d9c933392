// The host page's configuration (#config, written by web.go) and the
// switchable defects it names.

interface Config {
  defects: string[];
  sandboxURL: string;
  hostName: string;
  version: string;
}
export const config = JSON.parse(document.getElementById("config")!.textContent!) as Config;
export const sandboxOrigin = new URL(config.sandboxURL).origin;
// Switchable defects (mcpconform run --host-defect NAME) break exactly one
// requirement each, so the suite's self-test can prove its checks fail.
export const defect = (name: string): boolean => config.defects.includes(name);
// Without a proxy the View is a srcdoc frame of this page with an opaque origin.
export const direct = defect("no-sandbox-proxy");
// A proxy without allow-same-origin has an opaque origin too.
export const opaqueProxy = direct || defect("proxy-without-same-origin");
export const viewOrigin = opaqueProxy ? "null" : sandboxOrigin;
export const SUPPORTED_VERSIONS = ["2026-01-26"];
export const DISPLAY_MODES = ["inline", "fullscreen", "pip"];
export const DISPLAY_MODE_LABELS: Record<string, string> = { inline: "Inline", fullscreen: "Fullscreen", pip: "Picture in picture" };
