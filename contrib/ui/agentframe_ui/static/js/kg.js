// The knowledge graph of the server's kg folder (`GET /v1/kg`): entities drawn by type,
// relations between them, each statement's source chunk, and the SHACL report.

import { get } from "./api.js";
import { details, fill, h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const DRAWN = 400; // nodes laid out and drawn; the lists hold every one
const SIZE = 1000;

function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function short(iri) {
  return decodeURIComponent(String(iri).split(/[#/]/).pop());
}

export async function render(main) {
  const kg = await get("/v1/kg");
  const types = [...new Set(kg.nodes.flatMap((n) => n.types))].sort();
  const colour = new Map(types.map((t, i) => [t, `c${i % 8}`]));
  const byId = new Map(kg.nodes.map((n) => [n.id, n]));
  const pane = h("section", { class: "kg-detail", id: "kg-detail", "aria-live": "polite" });
  const select = (node) => fill(pane, nodeDetail(node, kg, byId, select));
  const conforms = kg.shacl.conforms;
  const shacl = conforms === null ? "no report" : conforms ? "conforms" : "does not conform";
  fill(
    main,
    h("h1", {}, `Knowledge graph ${kg.folder}`),
    h(
      "p",
      { class: "meta" },
      `${kg.nodes.length} entities · ${kg.edges.length} relations · SHACL: ${shacl}`,
      kg.truncated ? " · cut to the first entities and relations" : "",
    ),
    h(
      "ul",
      { class: "legend" },
      types.map((t) => h("li", { class: colour.get(t) }, t)),
    ),
    h("div", { class: "kg" }, drawing(kg, byId, colour, select), pane),
    details(
      "Entities",
      h(
        "ul",
        { class: "nodes", id: "kg-nodes" },
        kg.nodes.map((n) =>
          h(
            "li",
            {},
            h("button", { type: "button", onclick: () => select(n) }, n.label),
            ` ${n.types.join(", ")}`,
          ),
        ),
      ),
    ),
    details(`SHACL report (${shacl})`, h("pre", { id: "shacl" }, kg.shacl.report || "none"), {
      cls: "shacl",
    }),
  );
}

function drawing(kg, byId, colour, select) {
  const nodes = kg.nodes.slice(0, DRAWN);
  const at = layout(nodes, kg.edges);
  const svg = s("svg", {
    viewBox: `0 0 ${SIZE} ${SIZE}`,
    role: "group",
    "aria-label": "The graph: each entity is a button",
    id: "kg-graph",
  });
  for (const e of kg.edges) {
    const a = at.get(e.source);
    const b = at.get(e.target);
    if (!a || !b) continue;
    svg.append(
      s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "edge" }, s("title", {}, e.predicate)),
    );
  }
  for (const n of nodes) {
    const p = at.get(n.id);
    const g = s(
      "g",
      {
        class: `node ${colour.get(n.types[0]) || ""}`,
        tabindex: 0,
        role: "button",
        "data-id": n.id,
      },
      s("circle", { cx: p.x, cy: p.y, r: 9 }),
      s("text", { x: p.x + 12, y: p.y + 4 }, n.label),
    );
    g.addEventListener("click", () => select(n));
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        select(n);
      }
    });
    svg.append(g);
  }
  return svg;
}

/** Positions by a bounded force layout: a circle to start, then springs and repulsion. */
function layout(nodes, edges) {
  const at = new Map();
  nodes.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / Math.max(nodes.length, 1);
    at.set(n.id, { x: SIZE / 2 + 380 * Math.cos(angle), y: SIZE / 2 + 380 * Math.sin(angle) });
  });
  const links = edges.filter((e) => at.has(e.source) && at.has(e.target));
  const points = [...at.values()];
  const rounds = Math.min(200, Math.floor(4e6 / Math.max(points.length ** 2, 1)));
  const push = 8000 / Math.max(points.length, 5); // fewer entities: each pushes harder
  for (let round = 0; round < rounds; round++) {
    const step = 1 - round / rounds;
    for (const a of points) {
      for (const b of points) {
        if (a === b) continue;
        const dx = a.x - b.x;
        const dy = a.y - b.y;
        const d2 = Math.max(dx * dx + dy * dy, 1);
        a.x += (dx / d2) * push * step;
        a.y += (dy / d2) * push * step;
      }
    }
    for (const e of links) {
      const a = at.get(e.source);
      const b = at.get(e.target);
      const dx = (b.x - a.x) * 0.02 * step;
      const dy = (b.y - a.y) * 0.02 * step;
      a.x += dx;
      a.y += dy;
      b.x -= dx;
      b.y -= dy;
    }
    for (const p of points) {
      p.x = Math.min(SIZE - 170, Math.max(20, p.x)); // room for the label
      p.y = Math.min(SIZE - 20, Math.max(20, p.y));
    }
  }
  return at;
}

function nodeDetail(node, kg, byId, select) {
  const linked = kg.edges.filter((e) => e.source === node.id || e.target === node.id);
  return [
    h("h2", {}, node.label),
    h("p", { class: "meta" }, `${node.types.join(", ")} · ${short(node.id)}`),
    h(
      "ul",
      { class: "relations" },
      linked.map((e) => {
        const other = byId.get(e.source === node.id ? e.target : e.source);
        const sentence = [byId.get(e.source), e.predicate, byId.get(e.target)]
          .map((part) => (typeof part === "string" ? part : part ? part.label : "?"))
          .join(" ");
        return h(
          "li",
          {},
          other
            ? h("button", { type: "button", onclick: () => select(other) }, sentence)
            : sentence,
          e.chunks.map((id) =>
            details(
              `source chunk ${id}`,
              h("pre", { class: "chunk" }, (kg.chunks[id] || {}).text || "(not found)"),
              { cls: "source" },
            ),
          ),
        );
      }),
    ),
  ];
}
