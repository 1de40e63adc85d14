// One session's whole history: entries by kind, compactions where they happened (what
// they replaced, sizes before and after), the child sessions its tool calls started.

import { get } from "./api.js";
import { details, fill, h, pretty } from "./dom.js";

const KINDS = ["user", "assistant", "tool_call", "tool_result", "notification", "compaction"];
const FIRST = 100; // entries drawn before the page is handed over; the rest follow in batches
const BATCH = 250;

export async function render(main, params, id, child) {
  const base = `/v1/sessions/${encodeURIComponent(id)}`;
  const path = child ? `${base}/children/${encodeURIComponent(child)}` : `${base}/history`;
  const history = await get(path);
  const byId = new Map(history.entries.map((e) => [e.id, e]));
  const compactions = new Map(history.compactions.map((c) => [c.id, c]));
  const filters = h(
    "fieldset",
    { class: "kinds" },
    h("legend", {}, "Show"),
    KINDS.map((kind) =>
      h(
        "label",
        {},
        h("input", { type: "checkbox", checked: true, value: kind, "data-kind": kind }),
        ` ${kind.replace("_", " ")}`,
      ),
    ),
  );
  const list = h("ol", { class: "entries", id: "entries" });
  const sid = encodeURIComponent(id);
  fill(
    main,
    h("h1", {}, child ? `Child session ${child}` : `Session ${id}`),
    h(
      "p",
      { class: "meta" },
      history.truncated
        ? `the first ${history.entries.length} of ${history.total} entries · `
        : `${history.total} entries · `,
      `${history.compactions.length} compactions · `,
      child ? h("a", { href: `#/sessions/${sid}` }, "parent session") : null,
      child ? null : h("a", { href: `#/chat?session=${sid}` }, "continue in chat"),
      " · ",
      h("a", { href: `#/traces?session=${sid}` }, "traces"),
    ),
    history.children.length
      ? h(
          "nav",
          { class: "children", "aria-label": "Child sessions" },
          h("h2", {}, "Child sessions"),
          h(
            "ul",
            {},
            history.children.map((c) =>
              h("li", {}, childLink(id, c), ` ${c.agent || ""} (${c.status || "?"})`),
            ),
          ),
        )
      : null,
    filters,
    list,
  );
  filters.addEventListener("change", (event) => {
    list.classList.toggle(`hide-${event.target.value}`, !event.target.checked);
  });
  const shown = history.entries.filter((e) => !e.subsumed);
  list.append(...shown.slice(0, FIRST).map((e) => entry(e, id, byId, compactions)));
  drawRest(list, shown.slice(FIRST), (e) => entry(e, id, byId, compactions));
}

async function drawRest(list, entries, draw) {
  for (let at = 0; at < entries.length && list.isConnected; at += BATCH) {
    await later();
    list.append(...entries.slice(at, at + BATCH).map(draw));
  }
}

/** After any input and other work waiting: the rest of a long history is drawn in
 * background tasks, so the page answers keys and clicks while it grows. */
function later() {
  if (globalThis.scheduler && scheduler.postTask) {
    return scheduler.postTask(() => {}, { priority: "background" });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function childLink(id, c) {
  const href = `#/sessions/${encodeURIComponent(id)}/children/${encodeURIComponent(c.session_id)}`;
  return h("a", { href, class: "child-link" }, c.session_id);
}

function entry(e, id, byId, compactions) {
  const head = h(
    "div",
    { class: "head" },
    h("span", { class: "kind" }, e.kind.replace("_", " ")),
    e.tool_name ? h("span", { class: "name" }, ` ${e.tool_name}`) : null,
    e.tag ? h("span", { class: "tag" }, ` [${e.tag}]`) : null,
    e.pending ? h("span", { class: "tag" }, " pending") : null,
    h("time", {}, ` ${new Date(e.created_at / 1e6).toLocaleTimeString()}`),
  );
  const body = e.kind === "tool_call" || e.kind === "tool_result" ? pretty(e.content) : e.content;
  const text = h("pre", { class: "content" }, body);
  const cut =
    e.chars > e.content.length ? h("p", { class: "note" }, `(${e.chars} characters, cut)`) : null;
  const item = h("li", { class: `entry ${e.kind}`, "data-id": e.id }, head, text, cut);
  const children = (e.meta && e.meta.children) || [];
  if (Array.isArray(children) && children.length) {
    item.append(
      h("p", { class: "children" }, "Sub-agents: ", children.map((c) => [childLink(id, c), " "])),
    );
  }
  const compaction = compactions.get(e.id);
  if (compaction) item.append(replaced(compaction, byId));
  return item;
}

function replaced(c, byId) {
  const entries = c.replaced.map((rid) => byId.get(rid)).filter(Boolean);
  return details(
    `Replaced ${c.replaced.length} entries: ${c.chars_before} → ${c.chars_after} characters ` +
      `(≈ ${c.tokens_before_estimate} → ${c.tokens_after_estimate} tokens)`,
    h(
      "ol",
      { class: "replaced" },
      entries.map((r) =>
        h(
          "li",
          { class: `entry ${r.kind}` },
          h("span", { class: "kind" }, r.kind),
          h("pre", { class: "content" }, r.content),
        ),
      ),
    ),
    { cls: "compaction" },
  );
}
