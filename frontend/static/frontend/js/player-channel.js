// The signed-in player's own socket (/ws/me/): the quick-match queue, challenges sent
// and received, and the news that a match or an accepted challenge started a race
// (the page then goes to that race). Waiting is this connection: if it drops, the
// server takes the player out of the queue, so a reconnect queues again.
import { Channel } from "./socket.js";

export class PlayerChannel {
  constructor({ onQueue = () => {}, onChallenges = () => {}, onRace = (id) => location.assign(`/races/${id}/`),
    onError = () => {} } = {}) {
    this.wanted = null;     // {draw, scoring} while the player wants a match
    this.handlers = { onQueue, onChallenges, onRace, onError };
    this.channel = new Channel("/ws/me/", { onMessage: (m) => this.receive(m) });
    this.channel.connect();
  }

  queue(draw, scoring) {
    this.wanted = { draw, scoring };
    return this.channel.send({ type: "queue", draw, scoring, id: "queue" });
  }

  cancel() {
    this.wanted = null;
    return this.channel.send({ type: "cancel", id: "cancel" });
  }

  receive(message) {
    const { onQueue, onChallenges, onRace, onError } = this.handlers;
    switch (message.type) {
      case "me":
        onChallenges(message.challenges);
        if (message.queue.state === "matched" && this.wanted) { onRace(message.queue.race); break; }
        if (this.wanted && message.queue.state === "idle") { this.queue(this.wanted.draw, this.wanted.scoring); break; }
        onQueue(message.queue);
        break;
      case "queue":
        if (message.id === undefined) this.wanted = null; // not an answer: the ticket went (another tab, a cancel)
        onQueue(message);
        break;
      case "matched":
        this.wanted = null;
        onRace(message.race);
        break;
      case "challenges": onChallenges(message); break;
      case "challenge_accepted": onRace(message.race); break;
      case "error":
        if (message.error === "already_racing" || message.error === "not_authenticated") this.wanted = null;
        onError(message);
        break;
      default: break;
    }
  }
}
