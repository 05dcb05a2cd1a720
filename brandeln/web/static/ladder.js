// The always-on ladder's page moves: every few seconds it reads the ladder's state (the JSON
// at #ladder's data-state-url) and redraws the leaderboard, the retired versions, the newest
// blocks and the queue in place, marking each version that moved (▲ up, ▼ down) for a few
// updates. The cells are the ones templates/ladder_rows.html writes. Every value from the
// JSON is set as text (textContent, setAttribute), never as HTML: names and errors come from
// bots. Without this script the page is whole as served, with a reload link.
"use strict";
(function () {
  var root = document.getElementById("ladder");
  if (!root || !window.fetch) {
    return;
  }
  var stateUrl = root.getAttribute("data-state-url");
  var pollMs = parseInt(root.getAttribute("data-poll-ms"), 10) || 5000;
  var base = root.getAttribute("data-root") || "";
  var MARKED_UPDATES = 6; // a move stays marked this many updates
  var ranks = {}; // version -> rank at the last redraw (the served page's, at first)
  var marks = {}; // version -> {kind: "up"|"down"|"new", was: rank, left: updates}

  Array.prototype.forEach.call(
    document.querySelectorAll("#ladder-board tbody tr[data-version]"),
    function (tr) {
      ranks[tr.getAttribute("data-version")] = parseInt(tr.getAttribute("data-rank"), 10);
    }
  );

  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    if (className) {
      node.className = className;
    }
    return node;
  }

  function cell(text, className) {
    return element("td", text, className);
  }

  function fixed(value) {
    return Number(value).toFixed(2);
  }

  // A name on one line, cut with an ellipsis where space is short, whole in its title (the
  // templates' `name` macro).
  function named(node, name) {
    node.classList.add("name");
    node.setAttribute("title", name);
    return node;
  }

  function botLink(name, botId) {
    var inner = element(botId ? "a" : "span", name, "bot");
    if (botId) {
      inner.setAttribute("href", base + "/bots/" + encodeURIComponent(botId));
    }
    var holder = named(element("span"), name);
    holder.appendChild(inner);
    return holder;
  }

  function seats(names) {
    var td = cell(null, "seats");
    names.forEach(function (name) {
      td.appendChild(named(element("span", name, "seat bot"), name));
    });
    return td;
  }

  function emptyRow(columns, text) {
    var tr = element("tr", null, "empty");
    var td = cell(text, "muted");
    td.setAttribute("colspan", String(columns));
    tr.appendChild(td);
    return tr;
  }

  // The table's body holds these rows (or, when there are none, the served "none" row).
  function fill(tableId, rows, build, columns) {
    var body = document.querySelector("#" + tableId + " tbody");
    if (!body) {
      return;
    }
    var none = body.querySelector("tr.empty");
    var noneText = none ? none.textContent.trim() : "";
    var fresh = document.createDocumentFragment();
    rows.forEach(function (row) {
      fresh.appendChild(build(row));
    });
    if (!rows.length) {
      fresh.appendChild(emptyRow(columns, noneText));
    }
    while (body.firstChild) {
      body.removeChild(body.firstChild);
    }
    body.appendChild(fresh);
  }

  function move(row) {
    var before = ranks[row.name];
    var mark = marks[row.name];
    if (before === undefined) {
      mark = { kind: "new", was: null, left: MARKED_UPDATES };
    } else if (row.rank !== before) {
      mark = { kind: row.rank < before ? "up" : "down", was: before, left: MARKED_UPDATES };
    } else if (mark) {
      mark.left -= 1;
    }
    if (mark && mark.left > 0) {
      marks[row.name] = mark;
      return mark;
    }
    delete marks[row.name];
    return null;
  }

  function versionRow(row, mark) {
    var tr = element("tr");
    tr.setAttribute("data-version", row.name);
    var rankCell = cell(null, "num");
    if (row.rank === null) {
      tr.className = "retired";
    } else {
      tr.setAttribute("data-rank", String(row.rank));
      rankCell.appendChild(element("span", row.rank, "rank"));
      rankCell.appendChild(document.createTextNode(" "));
      var arrow = element("span", null, "move");
      if (mark) {
        tr.setAttribute("data-moved", mark.kind);
        arrow.className = "move move-" + mark.kind;
        arrow.textContent = mark.kind === "up" ? "▲" : mark.kind === "down" ? "▼" : "new";
        if (mark.was !== null) {
          arrow.setAttribute("title", "was #" + mark.was);
        }
      }
      rankCell.appendChild(arrow);
    }
    tr.appendChild(rankCell);
    var version = cell(null, "version");
    version.appendChild(botLink(row.name, row.bot_id));
    tr.appendChild(version);
    var presence = cell(null, "prio-2");
    if (row.rank !== null) {
      presence.appendChild(
        element("span", row.presence_label, "presence presence-" + row.presence)
      );
    }
    tr.appendChild(presence);
    tr.appendChild(cell(fixed(row.conservative), "num"));
    tr.appendChild(cell(fixed(row.mu), "num prio-2"));
    tr.appendChild(cell(fixed(row.sigma), "num prio-2"));
    tr.appendChild(cell(row.blocks, "num prio-3"));
    var error = cell(null, "last-error prio-2");
    if (row.last_error) {
      var text = element("span", row.last_error_short, "error-text");
      text.setAttribute("title", row.last_error);
      error.appendChild(text);
      error.appendChild(document.createTextNode(" "));
      error.appendChild(element("span", row.last_error_at, "muted"));
    }
    tr.appendChild(error);
    return tr;
  }

  function blockRow(block) {
    var tr = element("tr");
    tr.setAttribute("data-block", String(block.number));
    tr.appendChild(cell(block.number, "num"));
    tr.appendChild(seats(block.bots));
    tr.appendChild(cell(block.rated ? "rated" : "unrated", "prio-2"));
    tr.appendChild(cell(block.deals, "num prio-2"));
    tr.appendChild(cell(block.challenge === null ? "" : "#" + block.challenge, "prio-3"));
    tr.appendChild(cell(block.recorded ? "recorded" : "playing or waiting"));
    return tr;
  }

  function queueRow(challenge) {
    var tr = element("tr");
    tr.setAttribute("data-challenge", String(challenge.challenge));
    tr.appendChild(cell("#" + challenge.challenge));
    var state = challenge.state;
    if (challenge.block !== null) {
      state += " (block " + challenge.block + ")";
    }
    tr.appendChild(cell(state));
    tr.appendChild(seats(challenge.bots));
    tr.appendChild(cell(challenge.rated ? "rated" : "unrated", "prio-2"));
    tr.appendChild(cell(challenge.deals, "num prio-2"));
    var asker = cell(null, "bot prio-2");
    asker.appendChild(named(element("span", challenge.requested_by), challenge.requested_by));
    tr.appendChild(asker);
    tr.appendChild(cell(challenge.queued, "prio-3"));
    return tr;
  }

  // The form's bot choices follow the active versions; what a reader chose stays chosen.
  function refreshChoices(active) {
    var names = active.map(function (row) { return row.name; });
    Array.prototype.forEach.call(
      document.querySelectorAll("#challenge-form select[name=bot]"),
      function (select) {
        var current = Array.prototype.slice.call(select.options, 1).map(function (o) {
          return o.value;
        });
        if (current.join("\n") === names.join("\n")) {
          return;
        }
        var chosen = select.value;
        while (select.options.length > 1) {
          select.remove(1);
        }
        names.forEach(function (name) {
          var option = element("option", name);
          option.value = name;
          option.selected = name === chosen;
          select.appendChild(option);
        });
      }
    );
  }

  function text(id, value) {
    var node = document.getElementById(id);
    if (node) {
      node.textContent = value;
    }
    return node;
  }

  function redraw(state) {
    var moves = {};
    state.active.forEach(function (row) {
      moves[row.name] = move(row);
    });
    fill("ladder-board", state.active, function (row) {
      return versionRow(row, moves[row.name]);
    }, 8);
    fill("ladder-retired", state.retired, function (row) {
      return versionRow(row, null);
    }, 8);
    fill("ladder-blocks", state.blocks, blockRow, 6);
    fill("ladder-queue", state.queue, queueRow, 7);
    refreshChoices(state.active);
    ranks = {};
    state.active.forEach(function (row) {
      ranks[row.name] = row.rank;
    });
    var service = text("ladder-service", state.service_label);
    if (service) {
      service.className = "service service-" + state.service;
    }
    text("ladder-last-seen", state.last_seen);
    text("ladder-read-at", state.read_at);
    text("blocks-finished", state.blocks_finished);
    root.setAttribute("data-updates", String(1 + (parseInt(root.getAttribute("data-updates"), 10) || 0)));
  }

  function poll() {
    window.fetch(stateUrl, { cache: "no-store", credentials: "same-origin" })
      .then(function (reply) {
        if (!reply.ok) {
          throw new Error("the server answered " + reply.status);
        }
        return reply.json();
      })
      .then(function (state) {
        redraw(state);
        text("ladder-update-error", "");
      })
      .catch(function (error) {
        text("ladder-update-error", "not updated (" + error.message + "); trying again");
      })
      .then(function () {
        window.setTimeout(poll, pollMs);
      });
  }

  window.setTimeout(poll, pollMs);
})();
