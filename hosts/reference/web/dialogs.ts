// The host's confirmation dialogs: modal ones (over a backdrop), and
// inline approvals, which cover nothing and pile up in arrival order, as
// hosts ask about each tool call without blocking the page.

import { el, dialogs, approvals, log } from "./layout";

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

// A question asked in a window of the host's own rather than on its page
// (a host may ask beside its conversation, in a popup it writes itself:
// blank, of the host's origin), titled with the question, buttons
// window-confirm and window-cancel; declined after expireMs unanswered or
// when the window cannot open.
export function confirmWindow(kind: string, title: string, detail: string, expireMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const w = window.open("", `confirm-${kind}-${Date.now()}`, "popup,width=420,height=220");
    if (!w) {
      log("host", `could not open the window asking "${title}": declined`);
      resolve(false);
      return;
    }
    const d = w.document;
    d.title = title;
    const make = (tag: string, attrs: Record<string, string>, text: string) => {
      const e = d.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      e.textContent = text;
      return e;
    };
    const ok = make("button", { "data-testid": "window-confirm" }, "Download");
    const no = make("button", { "data-testid": "window-cancel" }, "Cancel");
    const box = make("div", { role: "dialog", "data-testid": `window-${kind}` }, "");
    box.append(make("strong", {}, title), make("p", {}, detail), no, ok);
    d.body.append(box);
    let settled = false;
    const done = (v: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(expiry);
      w.close();
      resolve(v);
    };
    const expiry = setTimeout(() => done(false), expireMs);
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    w.addEventListener("pagehide", () => done(false));
  });
}
