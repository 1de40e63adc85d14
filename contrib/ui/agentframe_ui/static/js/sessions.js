// The sessions: newest first, searched by the server (titles and ids everywhere, entries
// with the store's full-text search), a page of rows at a time.

import { get } from "./api.js";
import { fill, h, when } from "./dom.js";

const PAGE = 100;

export async function render(main, params) {
  const query = params.get("q") || "";
  const search = h("input", {
    type: "search",
    id: "search",
    value: query,
    placeholder: "Search sessions",
    "aria-label": "Search sessions",
  });
  const form = h("form", { class: "toolbar", role: "search" }, search, h("button", {}, "Search"));
  const count = h("p", { class: "meta", id: "count" });
  const rows = h("ol", { class: "sessions", id: "sessions" });
  const more = h("button", { type: "button", id: "more", hidden: true }, "More");
  fill(main, h("h1", {}, "Sessions"), form, count, rows, more);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/sessions?q=${encodeURIComponent(search.value.trim())}`;
  });
  let offset = 0;
  async function page() {
    more.disabled = true;
    const q = query ? `&q=${encodeURIComponent(query)}` : "";
    const listed = await get(`/v1/sessions?limit=${PAGE}&offset=${offset}${q}`);
    offset += listed.data.length;
    rows.append(...listed.data.map(row));
    count.textContent = query
      ? `${listed.total} matching sessions`
      : `${listed.total} sessions`;
    more.hidden = listed.data.length < PAGE;
    more.disabled = false;
  }
  more.addEventListener("click", page);
  await page();
  search.focus();
}

function row(session) {
  const id = encodeURIComponent(session.id);
  const match = session.match && session.match.snippet;
  return h(
    "li",
    {},
    h("a", { href: `#/sessions/${id}`, class: "title" }, session.title || session.id),
    h("span", { class: "meta" }, ` ${session.entries} entries · ${when(session.updated_at)}`),
    match ? h("p", { class: "snippet" }, `${session.match.kind}: …${match}…`) : null,
  );
}
