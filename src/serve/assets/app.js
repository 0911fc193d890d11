// The dashboard's only script: the new-debate form, the checkpoint buttons and the
// live view over Server-Sent Events. Model text from the stream is only ever set as
// textContent; the HTML that replaces the live part comes from the server, which
// escaped every value in it.
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.content : "";

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {})
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (data) {
        if (!response.ok) {
          var message = data && data.error ? data.error : "HTTP " + response.status;
          throw new Error(data && data.hint ? message + " (" + data.hint + ")" : message);
        }
        return data;
      });
    });
  }

  // Text, its `…` spans shown as code (hints name commands so); never markup. An
  // unpaired backtick stays as it is.
  function say(element, text) {
    var parts = (text || "").split("`");
    element.replaceChildren();
    parts.forEach(function (part, i) {
      if (i % 2 === 1 && i < parts.length - 1) {
        var code = document.createElement("code");
        code.textContent = part;
        element.appendChild(code);
      } else {
        element.appendChild(document.createTextNode(i % 2 === 1 ? "`" + part : part));
      }
    });
    element.hidden = !text;
  }

  var form = document.getElementById("new-debate");
  if (form) {
    // The sentence by the button names where the debate will run, as chosen.
    form.elements.repository.addEventListener("change", function () {
      document.getElementById("new-debate-target").textContent = form.elements.repository.value;
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var data = new FormData(form);
      var number = function (name) { return data.get(name) ? Number(data.get(name)) : null; };
      var submit = form.querySelector("button[type=submit]");
      submit.disabled = true;
      post("/api/debates", {
        question: data.get("question"),
        repository: data.get("repository"),
        perspectives: number("perspectives"),
        max_rounds: number("max_rounds"),
        checkpoints: data.get("checkpoints") === "on"
      }).then(function (summary) {
        window.location.assign("/debates/" + encodeURIComponent(summary.id));
      }, function (error) {
        say(document.getElementById("new-debate-error"), error.message);
        submit.disabled = false;
      });
    });
  }

  var live = document.getElementById("live");
  if (!live) {
    return;
  }
  var id = live.closest("article").dataset.id;
  var checkpoint = document.getElementById("checkpoint");
  var guidance = document.getElementById("guidance");
  var streams = document.getElementById("streams");
  var activity = document.getElementById("activity");
  var notice = document.getElementById("notice");
  var checkpointError = document.getElementById("checkpoint-error");
  var ask = document.getElementById("checkpoint-ask");

  function offer(actions) {
    checkpoint.hidden = actions.length === 0;
    checkpoint.querySelectorAll("button[data-action]").forEach(function (button) {
      button.hidden = actions.indexOf(button.dataset.action) < 0;
    });
    if (actions.indexOf("guide") < 0 && actions.indexOf("answer") < 0) {
      guidance.hidden = true;
    }
  }
  offer((checkpoint.dataset.actions || "").split(" ").filter(Boolean));

  function answer(action, text) {
    var buttons = checkpoint.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    say(checkpointError, "");
    // The checkpoint this page shows, so an answer never lands on a later one.
    var body = { action: action, round: Number(checkpoint.dataset.round) };
    if (text !== undefined) {
      body.guidance = text;
    }
    post("/api/debates/" + encodeURIComponent(id) + "/checkpoint", body).then(function () {
      guidance.reset();
      offer([]);
    }, function (error) {
      say(checkpointError, error.message);
    }).then(function () {
      buttons.forEach(function (b) { b.disabled = false; });
    });
  }

  checkpoint.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-action]");
    if (!button) {
      return;
    }
    // Guidance and the answer to the moderator's questions are both a text to send.
    if (button.dataset.action === "guide" || button.dataset.action === "answer") {
      document.getElementById("guidance-label").textContent =
        button.dataset.action === "answer" ? "Your answer to the moderator's questions" : "Guidance for the next round";
      guidance.hidden = false;
      guidance.querySelector("textarea").focus();
      return;
    }
    answer(button.dataset.action);
  });
  guidance.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = guidance.querySelector("textarea").value.trim();
    if (text) {
      answer("guide", text);
    }
  });

  // The issue-draft button is inside the live part, which is replaced as it changes.
  live.addEventListener("click", function (event) {
    if (event.target.id !== "issue-draft") {
      return;
    }
    event.target.disabled = true;
    post("/api/debates/" + encodeURIComponent(id) + "/issue").then(function (draft) {
      say(notice, "Issue draft written to `" + draft.path + "`; file it with `" + draft.command + "`");
    }, function (error) {
      say(notice, error.message);
      event.target.disabled = false;
    });
  });

  // A card per debater at work, filled with its text as it streams in.
  function streaming(seat, title) {
    var card = document.getElementById("stream-" + seat);
    if (!card) {
      card = document.createElement("div");
      card.className = "card contribution streaming";
      card.id = "stream-" + seat;
      card.appendChild(document.createElement("h4"));
      var text = document.createElement("div");
      text.className = "text";
      card.appendChild(text);
      streams.appendChild(card);
    }
    if (title) {
      card.querySelector("h4").textContent = title;
    }
    return card;
  }

  var source = new EventSource(live.dataset.events);
  source.addEventListener("state", function (event) {
    var state = JSON.parse(event.data);
    live.innerHTML = state.html;
    checkpoint.dataset.round = state.round;
    ask.textContent = state.ask;
    offer(state.actions);
    say(activity, "");
    // A complete debate changes no more: nothing left to watch.
    if (state.status === "complete") {
      source.close();
    }
  });
  source.addEventListener("working", function (event) {
    var work = JSON.parse(event.data);
    work.seats.forEach(function (seat) {
      streaming(seat.seat, seat.name + ": " + work.doing + " (round " + work.round + ")…");
    });
  });
  source.addEventListener("delta", function (event) {
    var delta = JSON.parse(event.data);
    streaming(delta.seat).querySelector(".text").textContent += delta.text;
  });
  source.addEventListener("landed", function (event) {
    var card = document.getElementById("stream-" + JSON.parse(event.data).seat);
    if (card) {
      card.remove();
    }
  });
  source.addEventListener("moderating", function (event) {
    say(activity, "The moderator is " + JSON.parse(event.data).what + "…");
  });
  source.addEventListener("notice", function (event) {
    say(notice, JSON.parse(event.data).text);
  });
})();
