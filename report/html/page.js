"use strict";
// Draws the interop grid from the JSON block above. Every string from the
// run goes into the page as text (textContent), never as markup.
(function () {
  document.documentElement.dataset.startMs = String(Math.round(performance.now()));
  const data = JSON.parse(document.getElementById("mcpconform-data").textContent);
  const KINDS = {
    PASS: ["✓", "pass"], FAIL: ["✗", "FAIL"], TIMEOUT: ["⏱", "TIMEOUT"], ERROR: ["‼", "ERROR"],
    SKIP: ["↷", "skip"], BLOCKED: ["⊘", "blocked"], NOTRUN: ["∅", "not run"], OPTIONAL: ["○", "optional, not implemented"],
    XFAIL: ["✗", "expected fail"], STALE: ["!", "stale expectation"], FLAKY: ["~", "flaky, allowed"],
  };
  const CHANGE = { regressed: ["▼", "regressed"], fixed: ["▲", "fixed"], changed: ["Δ", "changed"], new: ["+", "new"] };
  const kindOf = (k) => KINDS[k] || ["?", k || "unknown"];
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }
  const safeURL = (u) => (/^https:\/\//.test(u) ? u : null);
  const link = (l) => {
    const u = safeURL(l.url);
    return u ? el("a", { href: u, target: "_blank", rel: "noopener noreferrer", text: l.text }) : document.createTextNode(l.text);
  };
  const ms = (v) => (v >= 1000 ? (v / 1000).toFixed(2) + " s" : Math.round(v) + " ms");
  const date = (s) => (s ? s.replace("T", " ").replace(/\.\d+Z$/, "Z") : "");
  const hostLabel = (h) => h.host || h.hostName || "host";
  const kindClass = (k) => (KINDS[k] ? "k-" + k : "k-unknown");
  // A BLOCKED cell links to the row of each check that blocked it.
  const rowAnchor = (id) => "check-" + id;
  const blockerLinks = (c) => (c.blockedBy || []).map((id) => el("a", { class: "blocker", href: "#" + rowAnchor(id), text: "blocked by " + id, onclick: () => { if (detail.open) detail.close(); } }));

  // Header: what was run.
  const when = data.startedAt ? " · started " + date(data.startedAt) : "";
  $("meta").textContent = `${data.tool}${data.version ? " " + data.version : ""} · ${data.rows.length} checks × ${data.hosts.length} ${data.hosts.length === 1 ? "host" : "hosts"}${when}${data.baseline ? " · expectations " + data.baseline : ""}`;
  document.title = "mcpconform: " + data.hosts.map(hostLabel).join(", ");

  // Changes since the earlier run, at the top.
  if (data.compared) {
    $("changes").hidden = false;
    $("f-changed-label").hidden = false;
    const body = $("changes-body");
    const reg = data.changes.filter((c) => c.change === "regressed");
    const fix = data.changes.filter((c) => c.change === "fixed");
    body.append(el("p", { id: "changes-summary", text: `${reg.length} regressed, ${fix.length} fixed` }));
    for (const [list, name] of [[reg, "regressed"], [fix, "fixed"]]) {
      if (!list.length) continue;
      const ul = el("ul", { class: "changes-" + name });
      for (const c of list) {
        ul.append(el("li", {}, el("span", { class: "ch ch-" + name, text: CHANGE[name][0] + " " + name }), " ",
          el("code", { text: c.id }), ` on ${c.host}: ${kindOf(c.was)[1]} → ${kindOf(c.now)[1]}`));
      }
      body.append(ul);
    }
  }

  // The grid.
  const grid = $("grid");
  const headRow = el("tr", {}, el("th", { scope: "col", text: "Check" }));
  data.hosts.forEach((h) => {
    const th = el("th", { scope: "col", class: "host" }, el("span", { class: "hname", text: hostLabel(h) }));
    const ver = [h.hostName, h.hostVersion].filter(Boolean).join(" ");
    if (ver && ver !== h.host) th.append(el("span", { class: "sub", text: ver }));
    if (h.startedAt) th.append(el("span", { class: "sub", text: date(h.startedAt) }));
    const rate = h.mustJudged ? Math.round((100 * h.mustPassed) / h.mustJudged) + "%" : "–";
    th.append(el("span", { class: "sub judged", text: `judged ${h.judged.judged} of ${h.judged.selected}`, title: h.judgedLine }));
    th.append(el("span", { class: "rate", text: `MUST ${h.mustPassed}/${h.mustJudged} (${rate})`, title: "MUST and MUST NOT checks passed of those judged (PASS or FAIL)" }));
    if (h.comparedWith) th.append(el("span", { class: "sub", text: "vs " + date(h.comparedWith) }));
    if (h.infra) th.append(el("span", { class: "infra", text: "stopped early: " + h.infra }));
    headRow.append(th);
  });
  grid.tHead.append(headRow);

  const rowsByArea = new Map();
  data.rows.forEach((r, i) => {
    if (!rowsByArea.has(r.area)) rowsByArea.set(r.area, []);
    rowsByArea.get(r.area).push(i);
  });
  const trs = []; // [tr, row index]
  const trOf = [];
  const groups = [];
  for (const [area, idx] of rowsByArea) {
    const tbody = el("tbody", { "data-area": area });
    const head = el("tr", { class: "area" }, el("th", { colspan: data.hosts.length + 1, scope: "rowgroup", text: `${area} (${idx.length})` }));
    tbody.append(head);
    for (const i of idx) {
      const r = data.rows[i];
      const check = el("td", { class: "check" }, el("code", { text: r.id }),
        el("span", { class: "badge c-" + r.clause.replace(/ /g, "-"), text: r.clause }));
      if (r.specRef) {
        const spec = el("span", { class: "spec" });
        if (r.specLinks.length) r.specLinks.forEach((l, j) => { if (j) spec.append("; "); spec.append(link(l)); });
        else spec.textContent = r.specRef;
        check.append(spec);
      }
      if (r.name && r.name !== r.id) check.append(el("span", { class: "name", text: r.name }));
      const tr = el("tr", { "data-id": r.id, id: rowAnchor(r.id) }, check);
      r.cells.forEach((c, j) => {
        const h = data.hosts[j];
        if (!c) {
          tr.append(el("td", {}, el("span", { class: "none", text: "—", title: `${hostLabel(h)} did not run this check` })));
          return;
        }
        const [sym, label] = kindOf(c.kind);
        const ch = c.change && CHANGE[c.change];
        const btn = el("button", {
          type: "button", class: `cell ${kindClass(c.kind)}${ch ? " changed-" + c.change : ""}`,
          "data-row": i, "data-col": j, "data-kind": c.kind, "data-change": c.change || null,
          "aria-label": `${r.id} on ${hostLabel(h)}: ${label}${ch ? ", " + ch[1] + (c.was ? " (was " + kindOf(c.was)[1] + ")" : "") : ""}`,
          onclick: () => openCell(i, j, btn),
        }, el("span", { class: "sym", "aria-hidden": "true", text: sym }), el("span", { class: "lbl", text: label }));
        if (ch) btn.append(el("span", { class: "ch ch-" + c.change, "aria-hidden": "true", text: ch[0] + " " + ch[1] }));
        tr.append(el("td", {}, btn, ...blockerLinks(c)));
      });
      tbody.append(tr);
      trs.push([tr, i]);
      trOf[i] = tr;
    }
    grid.append(tbody);
    groups.push([tbody, head, idx]);
  }

  // Legend: symbol and word for every kind, so no colour is needed.
  for (const [k, [sym, label]] of Object.entries(KINDS)) {
    $("legend").append(el("span", { class: kindClass(k) }, el("b", { text: sym }), " " + label));
  }

  // Videos: each host's recording (run --video), with a mark per check at
  // the time it started; a mark seeks the video there.
  const players = [];
  function seek(j, atMs) {
    const v = players[j];
    if (!v) return;
    v.currentTime = atMs / 1000;
    v.closest("figure").scrollIntoView({ block: "nearest" });
    v.focus();
    document.documentElement.dataset.seekMs = String(Math.round(atMs));
  }
  data.hosts.forEach((h, j) => {
    if (!h.video) return;
    $("videos").hidden = false;
    const fig = el("figure", { class: "video", id: "video-host-" + j }, el("figcaption", { text: `${hostLabel(h)}: ${h.video.path}` }));
    const holder = h.video.media && document.getElementById(h.video.media);
    if (holder && /^data:video\/webm;base64,[A-Za-z0-9+/=]+$/.test(holder.textContent)) {
      const v = el("video", { controls: true, preload: "metadata", src: holder.textContent, "aria-label": `video of ${hostLabel(h)}` });
      players[j] = v;
      fig.append(v);
      const marks = el("ol", { class: "marks", "aria-label": `checks in the video of ${hostLabel(h)}` });
      const at = data.rows.map((r, i) => [i, r.cells[j]]).filter(([, c]) => c && typeof c.videoAtMs === "number").sort((a, b) => a[1].videoAtMs - b[1].videoAtMs);
      for (const [i, c] of at) {
        const [sym] = kindOf(c.kind);
        marks.append(el("li", {}, el("button", { type: "button", class: "mark " + kindClass(c.kind), "data-id": data.rows[i].id, "data-at": Math.round(c.videoAtMs),
          onclick: () => seek(j, c.videoAtMs) }, `${ms(c.videoAtMs)} ${sym} `, el("code", { text: data.rows[i].id }))));
      }
      fig.append(marks);
    } else {
      fig.append(el("p", { class: "note" }, el("a", { href: h.video.path, text: "open the video" }), h.video.note ? ` (${h.video.note})` : ""));
    }
    $("videos").append(fig);
  });

  // Coverage: every requirement of the spec by edition and keyword, with
  // the checks of this run that judge it (their status on each host) or the
  // reason none does.
  if (data.coverage) {
    const sec = $("coverage");
    sec.hidden = false;
    for (const ed of data.coverage.editions) {
      const figures = ed.groups.filter((g) => g.total).map((g) => `${g.group} ${g.judged}/${g.total}`).join(" · ");
      const box = el("details", { class: "cov-edition", "data-edition": ed.edition },
        el("summary", {}, el("b", { text: `spec ${ed.edition}` }), ` · ${ed.judged} of ${ed.total} requirements judged by this run · ${figures} `,
          el("span", { class: "note", text: ed.source })));
      const t = el("table", { class: "cov" }, el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: "Keyword" }), el("th", { scope: "col", text: "Requirement" }),
        el("th", { scope: "col", text: "Checks (" + data.hosts.map(hostLabel).join(", ") + ")" }), el("th", { scope: "col", text: "Not judged because" }))));
      const tb = el("tbody");
      for (const q of ed.requirements) {
        const req = el("td", { class: "req" }, el("code", { text: q.id }), el("span", { class: "spec", text: `L${q.line} ${q.section}` }),
          el("span", { class: "quote", text: `“${q.quote}”` }));
        const checks = el("td", { class: "cov-checks" });
        for (const c of q.checks) {
          const line = el("div", {}, el("code", { text: c.id }), c.clause === "INFO" ? el("span", { class: "note", text: " (observes)" }) : null, " ");
          c.kinds.forEach((k, j) => {
            const [sym, label] = k ? kindOf(k) : ["—", "not run"];
            line.append(el("span", { class: "cov-kind " + (k ? kindClass(k) : "none"), text: sym, title: `${hostLabel(data.hosts[j])}: ${label}`, "aria-label": `${hostLabel(data.hosts[j])}: ${label}` }));
          });
          checks.append(line);
        }
        const why = el("td", { class: "cov-reason" }, q.reasonKind ? el("b", { text: q.reasonKind + ": " }) : null, q.reason || "");
        tb.append(el("tr", { "data-req": q.id, "data-reason": q.reasonKind || null },
          el("td", {}, el("span", { class: "badge c-" + q.clause.replace(/ /g, "-"), text: q.keyword })), req, checks, why));
      }
      t.append(tb);
      box.append(t);
      sec.append(box);
    }
  }

  // Filters.
  const uniq = (xs) => [...new Set(xs)];
  const fill = (sel, values, text) => values.forEach((v) => sel.append(el("option", { value: v, text: text ? text(v) : v })));
  fill($("f-clause"), uniq(data.rows.map((r) => r.clause)));
  fill($("f-area"), [...rowsByArea.keys()]);
  fill($("f-kind"), uniq(data.rows.flatMap((r) => r.cells.filter(Boolean).map((c) => c.kind))), (k) => `${kindOf(k)[0]} ${kindOf(k)[1]}`);
  const hay = (r) => [r.id, r.name, r.specRef, r.quote, ...r.cells.filter(Boolean).map((c) => c.message)].join("\n").toLowerCase();
  const hays = data.rows.map(hay);

  function apply() {
    const text = $("f-text").value.trim().toLowerCase();
    const clause = $("f-clause").value, area = $("f-area").value, kind = $("f-kind").value;
    const disagree = $("f-disagree").checked, changed = $("f-changed").checked;
    let shown = 0;
    trs.forEach(([tr, i]) => {
      const r = data.rows[i];
      const cells = r.cells.filter(Boolean);
      const ok = (!text || hays[i].includes(text)) && (!clause || r.clause === clause) && (!area || r.area === area) &&
        (!kind || cells.some((c) => c.kind === kind)) && (!disagree || r.disagree) &&
        (!changed || cells.some((c) => c.change === "regressed" || c.change === "fixed" || c.change === "changed"));
      tr.hidden = !ok;
      if (ok) shown++;
    });
    for (const [tbody, , idx] of groups) tbody.hidden = idx.every((i) => trOf[i].hidden);
    $("f-count").textContent = `${shown} of ${data.rows.length} checks`;
  }
  for (const id of ["f-text", "f-clause", "f-area", "f-kind", "f-disagree", "f-changed"]) $(id).addEventListener("input", apply);
  $("filters").addEventListener("submit", (e) => e.preventDefault());
  apply();

  // Arrow keys move between the visible cells, so a large grid is usable
  // without tabbing through every cell.
  grid.addEventListener("keydown", (e) => {
    const b = e.target.closest && e.target.closest("button.cell");
    const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (!b || !step) return;
    const cells = [...grid.querySelectorAll("button.cell")].filter((c) => c.offsetParent !== null);
    const rows = [...new Set(cells.map((c) => Number(c.dataset.row)))];
    const r0 = rows.indexOf(Number(b.dataset.row)), c0 = Number(b.dataset.col);
    let target = null;
    if (step[0]) {
      for (let r = r0 + step[0]; r >= 0 && r < rows.length && !target; r += step[0]) {
        target = cells.find((c) => Number(c.dataset.row) === rows[r] && Number(c.dataset.col) === c0) || null;
      }
    } else {
      const same = cells.filter((c) => Number(c.dataset.row) === rows[r0]);
      target = same[same.indexOf(b) + step[1]] || null;
    }
    if (target) {
      e.preventDefault();
      target.focus();
    }
  });

  // The header row sticks under the filter bar, whatever its height.
  const stick = () => document.documentElement.style.setProperty("--filters-h", $("filters").offsetHeight + "px");
  window.addEventListener("resize", stick);
  stick();

  // A cell's details.
  const detail = $("detail"), zoom = $("zoom");
  let opener = null;
  function openCell(i, j, btn) {
    const r = data.rows[i], c = r.cells[j], h = data.hosts[j];
    opener = btn;
    $("detail-title").textContent = `${r.id} on ${hostLabel(h)}`;
    const body = $("detail-body");
    body.replaceChildren();
    const [sym, label] = kindOf(c.kind);
    body.append(el("p", {}, el("span", { class: "cell-kind " + kindClass(c.kind), text: `${sym} ${label}` }),
      c.status !== c.kind ? ` (status ${c.status})` : "",
      c.change ? el("span", { class: "ch ch-" + c.change, text: `${CHANGE[c.change][0]} ${CHANGE[c.change][1]}${c.was ? ": was " + kindOf(c.was)[1] : ""}` }) : null));
    if (c.message) body.append(el("div", { class: "message", text: c.message }));
    if (r.quote) body.append(el("blockquote", { class: "quote", text: `“${r.quote}”` }));
    const dl = el("dl");
    const row = (k, v) => { if (v !== "" && v !== null && v !== undefined) dl.append(el("dt", { text: k }), el("dd", {}, v)); };
    if (r.name && r.name !== r.id) row("Check", r.name);
    row("Clause", r.clause + (r.edition ? ` (spec ${r.edition})` : ""));
    if (r.specRef) {
      const s = el("span");
      if (r.specLinks.length) r.specLinks.forEach((l, n) => { if (n) s.append("; "); s.append(link(l)); });
      else s.textContent = r.specRef;
      row("Spec", s);
    }
    row("Duration", ms(c.durationMs));
    if (c.attempts > 1) row("Attempts", `${c.attempts}${c.retried ? " (passed on a retry)" : ""}`);
    if (c.reasonCode) row("Reason code", c.reasonCode);
    if (c.blockedBy && c.blockedBy.length) row("Blocked by", el("span", {}, ...blockerLinks(c)));
    if (c.baseline) row("Expectation", c.baseline);
    const hv = [h.hostName, h.hostVersion].filter(Boolean).join(" ");
    row("Host", hv ? `${hostLabel(h)} (${hv})` : hostLabel(h));
    if (h.browser) row("Browser", h.browser);
    body.append(dl);
    if (typeof c.videoAtMs === "number" && players[j]) {
      body.append(el("p", {}, el("button", { type: "button", class: "seek", onclick: () => { detail.close(); seek(j, c.videoAtMs); } },
        `▶ show in the video at ${ms(c.videoAtMs)}`)));
    } else if (typeof c.videoAtMs === "number" && h.video) {
      row("Video", `starts at ${ms(c.videoAtMs)} in ${h.video.path}`);
    }
    for (const ev of c.evidence) body.append(evidence(ev));
    detail.showModal();
    $("detail-close").focus();
  }
  function evidence(ev) {
    const box = el("section", { class: "evidence ev-" + ev.kind });
    const title = { screenshot: "Screenshot", jsonrpc: "JSON-RPC messages", console: "Console" }[ev.kind] || "File";
    box.append(el("h3", { text: `${title}: ${ev.name}` }));
    if (ev.image) {
      const holder = document.getElementById(ev.image);
      if (holder && /^data:image\/png;base64,[A-Za-z0-9+/=]+$/.test(holder.textContent)) {
        const src = holder.textContent;
        const img = el("img", { src, alt: `screenshot ${ev.name}` });
        box.append(el("button", { type: "button", class: "thumb", title: "enlarge", "aria-label": `enlarge screenshot ${ev.name}`,
          onclick: () => { $("zoom-img").src = src; $("zoom-img").alt = `screenshot ${ev.name}`; zoom.showModal(); $("zoom-close").focus(); } }, img));
      }
    }
    if (ev.lines) {
      const t = el("table", { class: "rpc" });
      for (const l of ev.lines) {
        t.append(el("tr", {}, el("td", { text: ms(l.at) }), el("td", { text: l.dir === "out" ? "view →" : l.dir === "in" ? "← host" : l.dir }), el("td", { class: "msg", text: l.msg })));
      }
      if (!ev.lines.length) box.append(el("p", { class: "note", text: "no messages" }));
      else box.append(t);
    }
    if (ev.text !== undefined && ev.text !== "") box.append(el("pre", { class: "log", text: ev.text }));
    if (ev.note) box.append(el("p", { class: "note", text: ev.note }));
    box.append(el("p", { class: "note" }, "file: ", el("code", { text: ev.path })));
    return box;
  }
  $("detail-close").addEventListener("click", () => detail.close());
  $("zoom-close").addEventListener("click", () => zoom.close());
  zoom.addEventListener("click", (e) => { if (e.target === zoom || e.target.id === "zoom-img") zoom.close(); });
  detail.addEventListener("click", (e) => { if (e.target === detail) detail.close(); });
  // "close" comes a task after Escape: the focus goes back to the cell
  // then, and data-detail says so (a test waits for it before the next key).
  detail.addEventListener("close", () => { if (opener) opener.focus(); document.documentElement.dataset.detail = "closed"; });
  document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
  document.documentElement.dataset.ready = "1";
})();
