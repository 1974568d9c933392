// The host's confirmation dialogs: modal ones (over a backdrop), and
// inline approvals, which cover nothing and pile up in arrival order, as
// hosts ask about each tool call without blocking the page.

import { el, dialogs, approvals } from "./layout";

export function confirmDialog(kind: string, title: string, detail: string, inline = false): Promise<boolean> {
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
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    document.addEventListener("keydown", esc);
    (inline ? approvals : dialogs).append(backdrop);
  });
}
