// JSON over fetch with the session cookie and the CSRF header on every write. A 503
// that says the database is busy or down is tried again after its Retry-After, with a
// notice, a few times before it reaches the caller (a move carries its seq, so a
// retry is never applied twice).

import { gettext } from "./i18n.js";
import { isOutage, retryDelay } from "./socket.js";
import { toast } from "./util.js";

const OUTAGE_RETRIES = 5;

export class ApiError extends Error {
  constructor(status, code, detail, body) {
    super(detail || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.detail = detail || code || `HTTP ${status}`;
    this.body = body;
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

let csrfPromise = null;
export async function csrfToken() {
  const fromCookie = cookie("csrftoken");
  if (fromCookie) return fromCookie;
  csrfPromise = csrfPromise || fetch("/api/accounts/csrf", { credentials: "same-origin" })
    .then((r) => r.json()).then((body) => body.csrf_token).finally(() => { csrfPromise = null; });
  return csrfPromise;
}

export async function api(method, url, body) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request(method, url, body);
    } catch (err) {
      if (err.status !== 503 || !isOutage(err) || attempt > OUTAGE_RETRIES) throw err;
      toast(gettext("The server is busy: reconnecting…"), "warn", 2500);
      await new Promise((resolve) => setTimeout(resolve, retryDelay(err.retryAfter)));
    }
  }
}

async function request(method, url, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET" && method !== "HEAD") {
    headers["X-CSRFToken"] = await csrfToken();
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, "network", gettext("the server cannot be reached: check your connection"));
  }
  if (response.status === 204) return null;
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const error = new ApiError(response.status, data?.error, data?.detail, data);
    error.retryAfter = Number(response.headers.get("Retry-After")) || data?.retry_after;
    throw error;
  }
  return data;
}

export const get = (url) => api("GET", url);
export const post = (url, body) => api("POST", url, body);
export const del = (url) => api("DELETE", url);

let mePromise = null;
/** The logged-in account ({username, …}) or null for a guest. */
export function currentUser(refresh = false) {
  if (!mePromise || refresh) {
    // whoami answers a guest with null (200): no failed request in a guest's console.
    mePromise = get("/api/accounts/whoami").then((answer) => answer?.account ?? null).catch((err) => {
      if (err.status === 401 || err.status === 403) return null;
      throw err;
    });
  }
  return mePromise;
}

/** GET that resolves to null when the endpoint does not exist yet (404). */
export async function getOptional(url) {
  try {
    return await get(url);
  } catch (err) {
    if (err.status === 404 || err.status === 405) return null;
    throw err;
  }
}
