// The host's confirmation dialogs: modal ones (over a backdrop), and
// inline approvals, which cover nothing and pile up in arrival order, as
// hosts ask about each tool call without blocking the page.

import { el, dialogs, approvals } from "./layout";

// expireMs, when set, declines a question nobody answered in that time
// (a host that gives up on a prompt), so unanswered ones do not pile up.
export function confirmDialog(kind: string, title: string, detail: string, inline = false, expireMs = 0): Promise<boolean> {
  return new Promise((resolve) => {
    const ok = el("button", { "data-testid": "dialog-confirm", class: "primary" }, "Allow");
    const no = el("button", { "data-testid": "dialog-cancel" }, "Cancel");
    const box = el("div", { class: "dialog", role: "dialog", "aria-modal": "true", "data-testid": `dialog-${kind}` }, el("h3", {}, title), el("p", { class: "detail" }, detail), el("div", { class: "actions" }, no, ok));
    const backdrop = inline ? box : el("div", { class: "backdrop" }, box);
    const done = (v: boolean) => {
      backdrop.remove();
      document.removeEventListener("keydown", esc);
      resolve(v);
    };
    const esc = (ev: KeyboardEvent) => {
      if (ev.key === "Escape") done(false);
    };
    if (expireMs > 0) setTimeout(() => backdrop.isConnected && done(false), expireMs);
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    document.addEventListener("keydown", esc);
    (inline ? approvals : dialogs).append(backdrop);
  });
}

// A question asked in a toast rather than a dialog (as the mcp-use
// Inspector asks "Download 1 file?"): role status, beside the
// conversation, named toast-KIND, declined after expireMs unanswered.
export function confirmToast(kind: string, title: string, detail: string, expireMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const ok = el("button", { "data-testid": "toast-confirm", class: "primary" }, "Download");
    const no = el("button", { "data-testid": "toast-cancel" }, "Cancel");
    const box = el("div", { class: "dialog toast", role: "status", "aria-live": "polite", "data-testid": `toast-${kind}` }, el("strong", {}, title), el("p", { class: "detail" }, detail), el("div", { class: "actions" }, no, ok));
    const done = (v: boolean) => {
      box.remove();
      resolve(v);
    };
    setTimeout(() => box.isConnected && done(false), expireMs);
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    approvals.append(box);
  });
}
