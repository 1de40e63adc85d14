// A question a part of the run asks the person (`agentframe.question`): yes or no, or a
// form of flat fields (text, numbers, a yes/no box, a choice), answered with
// `POST /v1/questions/{id}`; the run waits for it.

import { post } from "./api.js";
import { h } from "./dom.js";

export function question(asked) {
  const fields = Object.entries((asked.schema && asked.schema.properties) || {});
  const required = new Set((asked.schema && asked.schema.required) || []);
  const inputs = fields.map(([name, spec]) => [name, spec, input(name, spec, required)]);
  const status = h("p", { class: "note", role: "status" });
  const [yes, no] = asked.schema ? ["Send", "Decline"] : ["Yes", "No"];
  const buttons = [
    h("button", { type: "submit" }, yes),
    h("button", { type: "button", "data-action": "decline" }, no),
  ];
  const form = h(
    "form",
    { class: "question", "data-question": asked.id },
    h("p", { class: "asked" }, asked.message),
    asked.source ? h("p", { class: "meta" }, `asked by ${asked.source}`) : null,
    inputs.map(([name, spec, field]) => h("label", {}, spec.title || name, " ", field)),
    h("div", { class: "actions" }, buttons),
    status,
  );
  const answer = async (action) => {
    const content = action === "accept" && asked.schema ? values(inputs) : null;
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      await post(`/v1/questions/${encodeURIComponent(asked.id)}`, { action, content });
      status.textContent = action === "accept" ? "Answered." : "Declined.";
    } catch (err) {
      status.textContent = err.message;
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    answer("accept");
  });
  form.querySelector("[data-action=decline]").addEventListener("click", () => answer("decline"));
  return form;
}

function input(name, spec, required) {
  const attrs = { name, required: required.has(name) };
  if (spec.enum) {
    return h("select", attrs, spec.enum.map((choice) => h("option", { value: choice }, choice)));
  }
  if (spec.type === "boolean") {
    return h("input", { ...attrs, type: "checkbox", checked: spec.default === true });
  }
  const number = spec.type === "number" || spec.type === "integer";
  return h("input", {
    ...attrs,
    type: number ? "number" : "text",
    step: spec.type === "integer" ? 1 : number ? "any" : null,
    value: spec.default ?? null,
  });
}

function values(inputs) {
  const out = {};
  for (const [name, spec, field] of inputs) {
    if (spec.type === "boolean") out[name] = field.checked;
    else if (field.value === "") continue;
    else if (spec.type === "number" || spec.type === "integer") out[name] = Number(field.value);
    else out[name] = field.value;
  }
  return out;
}
