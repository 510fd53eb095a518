// A shared deal link (/deals/<code>/): play the same deal, or see its results.
import { ApiError, post } from "../api.js";
import { $ } from "../util.js";

const code = document.body.dataset.code;
const play = $("#play-deal");
$("#deal-board").href = `/leaderboards/?tab=deal&code=${encodeURIComponent(code)}`;
play.addEventListener("click", async () => {
  play.disabled = true;
  try {
    const game = await post("/api/games/", { code });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    play.disabled = false;
    $("#deal-error").textContent = err instanceof ApiError ? err.detail : String(err);
  }
});
