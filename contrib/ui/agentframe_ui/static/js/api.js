// The server's API, as the pages use it: JSON GETs and the AG-UI event stream, with the API
// key (when the server has keys) kept for this tab only and sent as serve expects.

const KEY = "agentframe.key";

export class NeedKey extends Error {}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
}

function headers(extra = {}) {
  const key = sessionStorage.getItem(KEY);
  return key ? { ...extra, authorization: `Bearer ${key}` } : extra;
}

async function failure(response) {
  if (response.status === 401) return new NeedKey("an API key is needed");
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.error && body.error.message) message = body.error.message;
  } catch {
    // not JSON: the status says it
  }
  return new ApiError(response.status, message);
}

/** The JSON of `GET path` (a path of this server). */
export async function get(path) {
  const response = await fetch(path, { headers: headers(), credentials: "omit" });
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** The JSON answer of `POST path` with `body` as JSON. */
export async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify(body),
    credentials: "omit",
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** Each event of an AG-UI run (`POST /ag-ui/{agent}`), as an object, until the stream
 * ends; `signal` stops it (the server cancels the run). */
export async function* agui(agent, input, signal) {
  const response = await fetch(`/ag-ui/${encodeURIComponent(agent)}`, {
    method: "POST",
    headers: headers({ "content-type": "application/json", accept: "text/event-stream" }),
    body: JSON.stringify(input),
    credentials: "omit",
    signal,
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data) yield JSON.parse(data);
    }
  }
}
