// A WebSocket that reconnects by itself (docs/realtime.md). The caller supplies the
// query for each (re)connection, e.g. {since: lastSeq}, so a game resumes where it
// left off without reloading the page.

import { gettext } from "./i18n.js";

const PING_EVERY_MS = 20000;
const PONG_TIMEOUT_MS = 8000;
// Closed by the server with "try again later" (the database is busy or down): come
// back after the retry_after of the error event that came with it.
export const CLOSE_TRY_AGAIN = 4503;
// Closed because the server process is restarting: reconnect at once (the proxy sends
// the new connection to another process), a little spread so not all at the same moment.
export const CLOSE_RECONNECT = 4012;
const RECONNECT_SPREAD_MS = 500;
const OUTAGE_ERRORS = new Set(["database_busy", "database_unavailable", "service_unavailable"]);

/** An error event or API answer that asks to send the same thing again later. */
export function isOutage(error) {
  return !!error && OUTAGE_ERRORS.has(error.error ?? error.code);
}

/** Milliseconds to wait before trying again, from retry_after (seconds), jittered. */
export function retryDelay(retryAfter) {
  const seconds = Number(retryAfter) > 0 ? Math.min(Number(retryAfter), 30) : 2;
  return seconds * 1000 * (0.9 + Math.random() * 0.3);
}

export class Channel {
  constructor(path, { onMessage, onStatus, query } = {}) {
    this.path = path;
    this.onMessage = onMessage || (() => {});
    this.onStatus = onStatus || (() => {});
    this.query = query || (() => ({}));
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    this.timer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.status = "connecting";
    this.connections = 0;
    this.retryAfter = null;    // seconds, from the last "try again later" error event
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(this.query() || {})) {
      if (value !== null && value !== undefined) params.set(key, String(value));
    }
    const qs = params.toString();
    return `${scheme}://${location.host}${this.path}${qs ? `?${qs}` : ""}`;
  }

  connect() {
    clearTimeout(this.timer);
    this.setStatus(this.connections ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.connections += 1;
      this.setStatus("open");
      this.startPing();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      let data;
      try { data = JSON.parse(event.data); } catch { return; }
      if (data.type === "pong") { clearTimeout(this.pongTimer); return; }
      if (data.type === "error" && isOutage(data)) this.retryAfter = data.retry_after;
      this.onMessage(data);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.stopPing();
      this.ws = null;
      if (this.closed) return;
      if (event.code === 4404) { this.setStatus("gone"); return; }
      if (event.code === CLOSE_RECONNECT) {
        this.setStatus("reconnecting");
        this.timer = setTimeout(() => this.connect(), Math.random() * RECONNECT_SPREAD_MS);
        return;
      }
      if (event.code === CLOSE_TRY_AGAIN) {
        this.setStatus("reconnecting");
        this.timer = setTimeout(() => this.connect(), retryDelay(this.retryAfter));
        this.retryAfter = null;
        return;
      }
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    this.setStatus("reconnecting");
    const delay = Math.min(5000, 400 * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.send({ type: "ping" })) return;
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.drop(), PONG_TIMEOUT_MS);
    }, PING_EVERY_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  /** Forget a connection that stopped answering and start a new one. */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.stopPing();
    try { ws.close(); } catch { /* already closed */ }
    if (!this.closed) this.scheduleReconnect();
  }

  get open() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.stopPing();
    if (this.ws) this.ws.close();
    this.ws = null;
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.onStatus(status);
  }
}

/** Show a socket's status in an element: nothing while all is well. */
export function showStatus(el, status) {
  if (!el) return;
  const text = {
    connecting: gettext("Connecting…"),
    reconnecting: gettext("Connection lost: reconnecting…"),
    retrying: gettext("The server is busy: reconnecting…"),
    open: "",
    gone: gettext("Not found."),
  }[status] ?? "";
  el.textContent = text;
  el.dataset.status = status;
  el.classList.toggle("warn", status === "reconnecting" || status === "retrying");
}
