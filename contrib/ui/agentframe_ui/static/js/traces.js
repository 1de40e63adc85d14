// Traces from the server's local trace store (`GET /v1/traces`): a run's spans on a time
// axis, and the run inspector: each model call's messages, tool schemas, tokens, cached
// share and finish reason; retrievals; the run's outcome and why.

import { ApiError, get } from "./api.js";
import { details, fill, h, ms, pretty, when } from "./dom.js";

function query(params) {
  const session = params.get("session");
  return session ? `?session_id=${encodeURIComponent(session)}` : "";
}

// Without agentframe-otel (which adds /v1/traces) the server answers 404, saying how to
// install it: that is shown as a note, not as a failure.
async function traces(main, params) {
  try {
    return (await get(`/v1/traces${query(params)}`)).traces;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    fill(main, h("h1", {}, "Traces"), h("p", { class: "note", id: "hint" }, err.message));
    return null;
  }
}

export async function render(main, params) {
  const found = await traces(main, params);
  if (!found) return;
  const session = params.get("session");
  fill(
    main,
    h("h1", {}, session ? `Traces of ${session}` : "Traces"),
    found.length ? null : h("p", { class: "note" }, "No traces yet."),
    h(
      "ol",
      { class: "traces", id: "traces" },
      found.map((t) =>
        h(
          "li",
          {},
          h(
            "a",
            { href: `#/traces/${t.trace_id}?session=${encodeURIComponent(t.session_id)}` },
            `${t.agent || "run"} ${t.run_id}`,
          ),
          h(
            "span",
            { class: `meta ${t.status}` },
            ` ${when(t.start)} · ${ms(t.duration_ms)} · ${t.spans.length} spans · ${t.status}`,
          ),
        ),
      ),
    ),
  );
}

export async function renderTrace(main, params, traceId) {
  const found = await traces(main, params);
  if (!found) return;
  const trace = found.find((t) => t.trace_id === traceId);
  if (!trace) {
    fill(main, h("p", { class: "error" }, `No trace ${traceId} here.`));
    return;
  }
  const pane = h("section", { class: "span-detail", id: "span-detail", "aria-live": "polite" });
  fill(
    main,
    h("h1", {}, `Run ${trace.run_id}`),
    h(
      "p",
      { class: "meta" },
      `${trace.agent || ""} · ${when(trace.start)} · ${ms(trace.duration_ms)} · `,
      `${trace.status} · `,
      h("a", { href: `#/sessions/${encodeURIComponent(trace.session_id)}` }, "session"),
    ),
    h("h2", {}, "Waterfall"),
    waterfall(trace, pane),
    pane,
    h("h2", {}, "Inspector"),
    inspector(trace),
  );
}

function depthOf(trace) {
  const parents = new Map(trace.spans.map((s) => [s.span_id, s.parent_id]));
  const depth = (s) => {
    let d = 0;
    for (let p = s.parent_id; p && parents.has(p) && d < 32; p = parents.get(p)) d++;
    return d;
  };
  return depth;
}

function waterfall(trace, pane) {
  const total = Math.max(trace.duration_ms, 1e-3);
  const depth = depthOf(trace);
  const spans = [...trace.spans].sort((a, b) => a.start_ms - b.start_ms);
  return h(
    "ol",
    { class: "waterfall", id: "waterfall" },
    spans.map((s) => {
      const bar = h("span", { class: `bar op-${s.operation} ${s.status}` });
      bar.style.left = `${(100 * s.start_ms) / total}%`;
      bar.style.width = `${Math.max((100 * s.duration_ms) / total, 0.3)}%`;
      const label = h("span", { class: "label" }, s.name);
      label.style.paddingInlineStart = `${depth(s) * 0.8}rem`;
      const button = h(
        "button",
        {
          type: "button",
          class: "span",
          "data-span": s.span_id,
          "aria-label": `${s.name}, ${ms(s.duration_ms)}`,
          onclick: () => fill(pane, spanDetail(s)),
        },
        label,
        h("span", { class: "track" }, bar),
        h("span", { class: "dur" }, ms(s.duration_ms)),
      );
      return h("li", {}, button);
    }),
  );
}

function spanDetail(s) {
  return [
    h("h3", {}, `${s.name} (${s.operation})`),
    h(
      "p",
      { class: "meta" },
      `${ms(s.start_ms)} after the start · ${ms(s.duration_ms)} · ${s.status}`,
    ),
    s.error ? h("p", { class: "error" }, s.error) : null,
    attributes(s),
  ];
}

function attributes(s) {
  return h(
    "dl",
    { class: "attributes" },
    Object.entries(s.attributes).map(([k, v]) => [
      h("dt", {}, k),
      h("dd", {}, h("pre", {}, pretty(v))),
    ]),
  );
}

function attr(s, ...names) {
  for (const name of names) if (name in s.attributes) return s.attributes[name];
  return undefined;
}

function inspector(trace) {
  const calls = trace.spans.filter((s) => s.operation === "chat");
  const retrievals = trace.spans.filter((s) => s.operation === "retrieval");
  const agent = trace.spans.find((s) => s.operation === "invoke_agent");
  const outcome = agent
    ? Object.entries(agent.attributes).filter(([k]) => /outcome|finish|reason|turns/.test(k))
    : [];
  return h(
    "div",
    { class: "inspector", id: "inspector" },
    h("h3", {}, "Outcome"),
    h(
      "p",
      { id: "outcome" },
      `${trace.status}`,
      outcome.map(([k, v]) => ` · ${k.replace(/^agentframe\./, "")}: ${v}`),
      agent && agent.error ? ` · ${agent.error}` : "",
    ),
    h("h3", {}, `Model calls (${calls.length})`),
    calls.map((s, i) => modelCall(s, i)),
    h("h3", {}, `Retrievals (${retrievals.length})`),
    retrievals.map((s) =>
      details(
        `${s.name} · ${ms(s.duration_ms)}`,
        attributes(s),
        { cls: "retrieval" },
      ),
    ),
  );
}

function modelCall(s, i) {
  const input = attr(s, "gen_ai.usage.input_tokens");
  const output = attr(s, "gen_ai.usage.output_tokens");
  const cached = Object.entries(s.attributes).find(([k]) => /cache/.test(k) && /token/.test(k));
  const share = cached && input ? ` (${Math.round((100 * cached[1]) / input)}% cached)` : "";
  const finish = attr(s, "gen_ai.response.finish_reasons");
  const sent = attr(s, "gen_ai.input.messages");
  const tools = attr(s, "gen_ai.tool.definitions");
  const answer = attr(s, "gen_ai.output.messages");
  const none = () =>
    h("p", { class: "note" }, "Not captured: turn on the tracing plugin's content capture.");
  const reasons = Array.isArray(finish) ? finish.join(", ") : (finish ?? "");
  return details(
    `#${i + 1} ${s.name} · ${ms(s.duration_ms)} · ${input ?? "?"} in${share} · ` +
      `${output ?? "?"} out · ${reasons}`,
    [
      h("h4", {}, "Messages sent"),
      sent === undefined ? none() : h("pre", { class: "messages" }, pretty(sent)),
      h("h4", {}, "Tool schemas"),
      tools === undefined ? none() : h("pre", {}, pretty(tools)),
      h("h4", {}, "Answer"),
      answer === undefined ? none() : h("pre", {}, pretty(answer)),
    ],
    { cls: "call" },
  );
}
