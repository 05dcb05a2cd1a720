// A person's seat at a table of Brandeln Arena (web/table_routes.py).
//
// The server sends the seat's view as server-sent events, one whole snapshot each time it
// changes (web/seat_view.py): the hand, the auction, the trick, the score, the decision asked
// with every choice of its kind (the legal ones to press, the others disabled with the rule's
// reason), and the time left. Nothing here knows the rules: what is legal is the referee's
// list, and a move is posted to the server, which sends it to the referee as the seat's
// action. Every text (names, reasons) reaches the page through textContent, never innerHTML.
//
// Keys: <- and -> (or up and down) choose among the legal choices, Enter plays the chosen one;
// or type a card (H then J for the jack of hearts, in either order), a bid's number, a suit's
// letter.
(function () {
  "use strict";

  var SUITS = { C: "\u2663", S: "\u2660", H: "\u2665", D: "\u2666" };
  var SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
  var RED = { H: true, D: true };
  var RANKS = { T: "10" };
  var CARD_KEYS = "CSHD789TJQKA";
  // Seats seen from this seat: it at the bottom, then clockwise left, top, right.
  var POSITIONS = ["south", "west", "north", "east"];

  var root = document.getElementById("person-table");
  var dataElement = document.getElementById("table-data");
  if (!root || !dataElement) return;
  var config = JSON.parse(dataElement.textContent);
  var state = null;
  var receivedAt = 0;
  var selected = 0;
  var typed = "";
  var posting = false;
  var shownRequest = null;
  var ui = {};

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A name on one line, cut with an ellipsis where space is short, whole in its title
  // (style.css's .name): never broken inside a word.
  function nameElement(text) {
    var node = el("span", "name", text);
    node.title = text;
    return node;
  }

  // A line of text with a name in it: the name as nameElement, the rest as text.
  function withName(tag, className, before, name, after) {
    var node = el(tag, className, before);
    node.appendChild(nameElement(name));
    if (after) node.appendChild(document.createTextNode(after));
    return node;
  }

  function cardFace(card) {
    var suit = card.charAt(0);
    var rank = card.charAt(1);
    return (RANKS[rank] || rank) + SUITS[suit];
  }

  function cardElement(card, tag) {
    var node = el(tag || "span", "rp-card" + (RED[card.charAt(0)] ? " rp-red" : ""), cardFace(card));
    node.setAttribute("data-card", card);
    var trump = state && state.deal && state.deal.trump;
    if (trump && card.charAt(0) === trump) node.classList.add("rp-trump");
    return node;
  }

  function backElement() {
    var node = el("span", "rp-card rp-back");
    node.setAttribute("aria-label", "a hidden card");
    return node;
  }

  function players() {
    if (state && state.match) return state.match.players.length;
    return state ? state.table.seats.length : 4;
  }

  function seatName(seat) {
    if (state && state.match && state.match.players[seat]) return state.match.players[seat];
    var entry = state && state.table.seats[seat];
    return entry ? entry.name : "seat " + seat;
  }

  function position(seat) {
    return POSITIONS[(seat - state.seat + players()) % players()];
  }

  function clock(ms) {
    var seconds = Math.ceil(ms / 1000);
    var minutes = Math.floor(seconds / 60);
    var rest = seconds % 60;
    return minutes + ":" + (rest < 10 ? "0" : "") + rest;
  }

  // --- building the page once ------------------------------------------------------------------
  // An element of the page with its id, added to ``parent``.
  function part(parent, tag, className, id) {
    var node = el(tag, className);
    node.id = id;
    parent.appendChild(node);
    return node;
  }

  function build() {
    root.textContent = "";
    root.classList.add("replay");
    ui.status = el("p", "tb-status");
    ui.status.setAttribute("aria-live", "polite");
    root.appendChild(ui.status);
    var main = el("div", "rp-main");
    var table = el("div", "rp-table");
    ui.seats = {};
    POSITIONS.forEach(function (where) {
      var box = el("div", "rp-seat rp-pos-" + where);
      var name = el("div", "rp-name name");
      var tags = el("div", "rp-tags");
      var hand = el("div", "rp-hand");
      box.appendChild(name);
      box.appendChild(tags);
      box.appendChild(hand);
      table.appendChild(box);
      ui.seats[where] = { box: box, name: name, tags: tags, hand: hand };
    });
    ui.seats.south.hand.id = "tb-hand";
    var felt = el("div", "rp-felt");
    ui.slots = {};
    POSITIONS.forEach(function (where) {
      var slot = el("div", "rp-slot rp-slot-" + where);
      felt.appendChild(slot);
      ui.slots[where] = slot;
    });
    ui.info = el("div", "rp-info");
    felt.appendChild(ui.info);
    table.appendChild(felt);
    // The table, then what the person is asked, right under their hand (on a phone the
    // side's boxes come after, not between the hand and the choices).
    var play = el("div", "tb-play");
    play.appendChild(table);
    ui.clock = part(play, "div", "tb-clock", "tb-clock");
    ui.prompt = part(play, "p", "tb-prompt", "tb-prompt");
    ui.choices = part(play, "div", "tb-choices", "tb-choices");
    ui.choices.setAttribute("role", "toolbar");
    ui.choices.setAttribute("aria-label", "your choices");
    // Why the greyed choices may not be played, said on the page: a touch screen shows no
    // title on hover.
    ui.reasons = part(play, "p", "tb-reasons muted", "tb-reasons");
    ui.message = part(play, "p", "tb-message error", "tb-message");
    ui.message.setAttribute("role", "alert");
    main.appendChild(play);

    var side = el("div", "rp-side");
    var auctionBox = el("div", "rp-auction");
    auctionBox.appendChild(el("h3", "", "Auction"));
    ui.auction = el("ol");
    ui.auction.id = "tb-auction";
    auctionBox.appendChild(ui.auction);
    side.appendChild(auctionBox);
    var scoreBox = el("div", "rp-score");
    scoreBox.appendChild(el("h3", "", "Tricks and chips"));
    ui.score = el("table");
    ui.score.id = "tb-score";
    scoreBox.appendChild(ui.score);
    side.appendChild(scoreBox);
    ui.lastDeal = el("div", "tb-last-deal");
    ui.lastDeal.id = "tb-last-deal";
    side.appendChild(ui.lastDeal);
    ui.penalties = el("ul", "tb-penalties");
    ui.penalties.id = "tb-penalties";
    side.appendChild(ui.penalties);
    main.appendChild(side);
    root.appendChild(main);

    ui.result = el("div", "tb-result");
    ui.result.id = "tb-result";
    root.appendChild(ui.result);
  }

  // --- drawing a snapshot --------------------------------------------------------------------
  function render() {
    var request = state.request;
    var deal = state.deal;
    root.setAttribute("data-status", state.table.status);
    // Set while the decision's buttons can be pressed (a test waits for it).
    root.setAttribute("data-request", request && !request.sent && !posting ? String(request.id) : "");
    root.setAttribute("data-phase", request ? request.phase : "");
    root.setAttribute("data-deal", deal ? String(deal.number) : "");
    root.setAttribute("data-final", state.final ? "true" : "false");
    drawStatus();
    drawSeats();
    drawTrick();
    drawAuction();
    drawScore();
    drawLastDeal();
    drawPenalties();
    drawChoices();
    drawResult();
    tick();
  }

  function drawStatus() {
    var text = "Table " + state.table.status;
    if (state.match) {
      text = "Seat " + state.seat + ", " + state.match.ruleset + ", " + state.match.deals + " deals";
      if (state.deal) text += ": deal " + state.deal.number;
    }
    var open = state.table.open_seats.length;
    if (open) text += " \u2014 waiting for " + open + " more " + (open > 1 ? "people" : "person") +
      ": share this page's address";
    if (state.table.error) text += " \u2014 " + state.table.error;
    ui.status.textContent = text;
  }

  function drawSeats() {
    var deal = state.deal;
    var count = players();
    POSITIONS.forEach(function (where) {
      ui.seats[where].box.hidden = true;
    });
    for (var seat = 0; seat < count; seat++) {
      var box = ui.seats[position(seat)];
      box.box.hidden = false;
      box.box.setAttribute("data-seat", String(seat));
      box.name.textContent = seatName(seat) + (seat === state.seat ? " (you)" : "");
      box.name.title = box.name.textContent;
      box.tags.textContent = "";
      box.hand.textContent = "";
      if (!deal) continue;
      if (seat === deal.dealer) box.tags.appendChild(el("span", "rp-tag", "dealer"));
      if (deal.soloist === seat) box.tags.appendChild(el("span", "rp-tag rp-soloist", "soloist"));
      box.tags.appendChild(el("span", "rp-tag rp-tricks", "tricks " + deal.tricks_won[seat]));
      if (seat === state.seat) {
        if (!(state.request && state.request.phase === "play")) {
          deal.hand.forEach(function (card) { box.hand.appendChild(cardElement(card)); });
        }
      } else {
        for (var n = 0; n < deal.held[seat]; n++) box.hand.appendChild(backElement());
      }
    }
  }

  function drawTrick() {
    POSITIONS.forEach(function (where) { ui.slots[where].textContent = ""; });
    ui.info.textContent = "";
    var deal = state.deal;
    if (!deal) return;
    deal.trick.cards.forEach(function (played) {
      var slot = ui.slots[position(played.seat)];
      slot.setAttribute("data-seat", String(played.seat));
      var card = cardElement(played.card);
      if (deal.trick.winner === played.seat) card.classList.add("rp-winner");
      slot.appendChild(card);
    });
    if (deal.contract) ui.info.appendChild(el("div", "rp-contract", deal.contract));
    if (deal.trump) {
      var big = el("div", "rp-trump-big" + (RED[deal.trump] ? " rp-red" : ""), SUITS[deal.trump]);
      big.title = "trump: " + SUIT_NAMES[deal.trump];
      ui.info.appendChild(big);
      ui.info.appendChild(el("div", "rp-trump", "trump " + SUIT_NAMES[deal.trump]));
    } else if (deal.contract) {
      ui.info.appendChild(el("div", "rp-trump", "no trump"));
    }
    if (deal.trick.winner !== null) {
      ui.info.appendChild(withName("div", "rp-trick-won", "trick \u2192 ", seatName(deal.trick.winner)));
    }
  }

  function drawAuction() {
    ui.auction.textContent = "";
    if (!state.deal) return;
    state.deal.auction.forEach(function (bid) {
      var item = withName("li", "", "", seatName(bid.seat), ": " + bid.bid);
      item.setAttribute("data-seat", String(bid.seat));
      item.setAttribute("data-bid", bid.bid);
      ui.auction.appendChild(item);
    });
  }

  function drawScore() {
    ui.score.textContent = "";
    var head = el("tr");
    ["seat", "tricks", "chips"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    ui.score.appendChild(head);
    for (var seat = 0; seat < players(); seat++) {
      var row = el("tr", seat === state.seat ? "tb-you" : "");
      row.setAttribute("data-seat", String(seat));
      row.appendChild(withName("td", "", "", seatName(seat)));
      row.appendChild(el("td", "rp-num", state.deal ? state.deal.tricks_won[seat] : ""));
      var chips = state.balances.length > seat ? state.balances[seat] : "";
      row.appendChild(el("td", "rp-num", chips));
      ui.score.appendChild(row);
    }
  }

  function drawLastDeal() {
    ui.lastDeal.textContent = "";
    var last = state.last_deal;
    if (!last) return;
    var heading = "Deal " + last.number + ": ";
    ui.lastDeal.appendChild(el("h3", "", "Last deal"));
    if (last.soloist === null) {
      ui.lastDeal.appendChild(el("p", "", heading + (last.passed_out ? "passed out" : "no soloist")));
    } else {
      ui.lastDeal.appendChild(withName("p", "", heading, seatName(last.soloist),
        " played " + last.contract + (last.made ? ", made" : ", lost")));
    }
    // Each seat's line: its name (cut short if need be), its chips, its hand on one row.
    var list = el("ul");
    last.payments.forEach(function (paid, seat) {
      var item = withName("li", "", "", seatName(seat));
      item.appendChild(el("span", "tb-paid", (paid > 0 ? "+" : "") + paid));
      var cards = el("span", "tb-cards");
      (last.hands[seat] || []).forEach(function (card) { cards.appendChild(cardElement(card)); });
      item.appendChild(cards);
      list.appendChild(item);
    });
    ui.lastDeal.appendChild(list);
  }

  function drawPenalties() {
    ui.penalties.textContent = "";
    state.penalties.forEach(function (penalty) {
      ui.penalties.appendChild(withName("li", "", "", seatName(penalty.seat), ": strike " +
        penalty.strikes + " (" + penalty.code + "): " + penalty.reason));
    });
  }

  function choiceLabel(choice, index) {
    var action = choice.action;
    if (state.request.phase === "auction") return (index + 1) + " " + action;
    if (state.request.phase === "trump") {
      var suit = action.split(" ")[1];
      return SUITS[suit] + " " + SUIT_NAMES[suit];
    }
    return cardFace(action);
  }

  function choiceButton(choice, index) {
    var phase = state.request.phase;
    var button = phase === "play" ? cardElement(choice.action, "button") :
      el("button", "tb-bid", choiceLabel(choice, index));
    button.type = "button";
    button.classList.add("tb-choice");
    button.setAttribute("data-action", choice.action);
    button.setAttribute("data-legal", choice.legal ? "true" : "false");
    if (choice.legal) {
      button.title = phase === "play" ? "play " + choice.action : choice.action;
      button.addEventListener("click", function () { play(choice.action); });
    } else {
      button.disabled = true;
      button.title = choice.reason;
      button.setAttribute("data-reason", choice.reason);
    }
    return button;
  }

  function drawChoices() {
    ui.choices.textContent = "";
    var request = state.request;
    if (!request) {
      ui.prompt.textContent = state.final ? "" : (state.match ? "Waiting for the other seats\u2026" :
        "Waiting for the match to start\u2026");
      shownRequest = null;
      ui.reasons.textContent = "";
      ui.message.textContent = state.rejected ? "The referee refused your move: " +
        state.rejected.reason : "";
      return;
    }
    if (shownRequest !== request.id) {
      shownRequest = request.id;
      selected = 0;
      typed = "";
    }
    var prompts = { auction: "Your bid", trump: "Name trump", play: "Your card" };
    var prompt = prompts[request.phase];
    if (request.sent) prompt += ": sent, waiting for the referee";
    // A card is played from the hand itself: the prompt says so, the choices' row stays empty.
    else if (request.phase === "play") prompt += ": tap or click it in your hand";
    ui.prompt.textContent = prompt + (request.strikes ? " (strikes: " + request.strikes + ")" : "");
    var holder = ui.choices;
    if (request.phase === "play") {
      holder = ui.seats.south.hand;
      holder.textContent = "";
    }
    request.choices.forEach(function (choice, index) {
      var button = choiceButton(choice, index);
      if (request.sent || posting) button.disabled = true;
      holder.appendChild(button);
    });
    var reasons = [];
    request.choices.forEach(function (choice) {
      if (!choice.legal && choice.reason && reasons.indexOf(choice.reason) < 0) reasons.push(choice.reason);
    });
    ui.reasons.textContent = reasons.length && !request.sent ? "Greyed out: " + reasons.join("; ") : "";
    ui.message.textContent = state.rejected ? "The referee refused your move: " +
      state.rejected.reason : "";
    focusSelected();
  }

  function drawResult() {
    ui.result.textContent = "";
    var result = state.result;
    if (result) {
      ui.result.appendChild(el("h2", "", "The match is over (" + result.status + ")"));
      var list = el("ol");
      result.balances.forEach(function (chips, seat) {
        list.appendChild(withName("li", "", "", seatName(seat), ": " + chips + " chips, rank " +
          result.ranks[seat] + (result.forfeited.indexOf(seat) >= 0 ? " (forfeited)" : "")));
      });
      ui.result.appendChild(list);
      var link = el("a", "", "its result and replay");
      link.href = config.matches + encodeURIComponent(result.match_id);
      link.id = "tb-replay";
      var line = el("p", "", "Match " + result.match_id + ": ");
      line.appendChild(link);
      ui.result.appendChild(line);
    } else if (state.ended) {
      ui.result.appendChild(el("p", "error", "Your seat's session ended: " + state.ended));
    } else if (state.table.over && state.table.error) {
      ui.result.appendChild(el("p", "error", state.table.error));
    }
  }

  // --- the clock: the time left counts down between snapshots -----------------------------
  function tick() {
    if (!state || !state.request || !state.request.id) {
      ui.clock.textContent = state && state.match ? "a move: " + clock(state.match.move_ms) +
        ", bank " + clock(state.match.bank_ms) : "";
      ui.clock.classList.remove("tb-low");
      return;
    }
    var elapsed = performance.now() - receivedAt;
    var request = state.request;
    var move = Math.max(0, request.move_ms - elapsed);
    var bank = Math.max(0, request.bank_ms - Math.max(0, elapsed - request.move_ms));
    ui.clock.textContent = "your move: " + clock(move) + " \u00b7 bank " + clock(bank);
    ui.clock.classList.toggle("tb-low", move <= 0);
  }

  // --- playing ------------------------------------------------------------------------------
  function enabled() {
    return Array.prototype.slice.call(root.querySelectorAll(".tb-choice")).filter(function (b) {
      return !b.disabled;
    });
  }

  function focusSelected() {
    var buttons = enabled();
    if (!buttons.length) return;
    selected = Math.max(0, Math.min(buttons.length - 1, selected));
    buttons.forEach(function (button, index) {
      button.classList.toggle("tb-selected", index === selected);
    });
    buttons[selected].focus();
  }

  function play(action) {
    var request = state && state.request;
    if (!request || request.sent || posting) return;
    posting = true;
    enabled().forEach(function (button) { button.disabled = true; });
    ui.message.textContent = "";
    var body = "request=" + encodeURIComponent(request.id) + "&action=" + encodeURIComponent(action);
    fetch(config.act, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: body,
      credentials: "same-origin",
    }).then(function (response) {
      return response.text().then(function (text) {
        posting = false;
        // The next decision may have come while this answer was on its way: draw it enabled.
        if (state) render();
        if (!response.ok) ui.message.textContent = text.trim();
      });
    }, function () {
      posting = false;
      ui.message.textContent = "the move did not reach the server: try again";
      if (state) render();
    });
  }

  function typedCard(key) {
    typed = (typed + key).slice(-2);
    if (typed.length < 2) return null;
    var forward = typed;
    var backward = typed.charAt(1) + typed.charAt(0);
    var found = null;
    state.request.choices.forEach(function (choice) {
      if (choice.legal && (choice.action === forward || choice.action === backward)) {
        found = choice.action;
      }
    });
    return found;
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var request = state && state.request;
    if (!request || request.sent || posting) return;
    var key = event.key;
    var buttons = enabled();
    var handled = true;
    if (key === "ArrowRight" || key === "ArrowDown") {
      selected = (selected + 1) % Math.max(1, buttons.length);
      focusSelected();
    } else if (key === "ArrowLeft" || key === "ArrowUp") {
      selected = (selected - 1 + buttons.length) % Math.max(1, buttons.length);
      focusSelected();
    } else if (key === "Enter" || key === " ") {
      if (buttons[selected]) play(buttons[selected].getAttribute("data-action"));
    } else if (request.phase === "auction" && /^[1-9]$/.test(key)) {
      var choice = request.choices[Number(key) - 1];
      if (choice && choice.legal) play(choice.action);
    } else if (request.phase === "trump" && /^[cshd]$/i.test(key)) {
      play("trump " + key.toUpperCase());
    } else if (request.phase === "play" && key.length === 1 &&
               CARD_KEYS.indexOf(key.toUpperCase()) >= 0) {
      var card = typedCard(key.toUpperCase());
      if (card) play(card);
    } else {
      handled = false;
    }
    if (handled) event.preventDefault();
  });

  // --- the seat's stream ----------------------------------------------------------------------
  build();
  var first = document.getElementById("table-first");
  if (first) {
    state = { table: JSON.parse(first.textContent), seat: config.seat, match: null, balances: [], deal: null,
      request: null, rejected: null, penalties: [], last_deal: null, result: null, ended: null,
      final: false };
    render();
  }
  var source = new EventSource(config.events);
  source.addEventListener("seat", function (message) {
    state = JSON.parse(message.data);
    receivedAt = performance.now();
    root.setAttribute("data-version", message.lastEventId);
    render();
    if (state.final) source.close();
  });
  source.addEventListener("error", function () {
    if (source.readyState === EventSource.CONNECTING) ui.status.textContent += " (reconnecting\u2026)";
    else if (source.readyState === EventSource.CLOSED && !(state && state.final)) {
      ui.status.textContent = "No stream of this seat now: reload the page to try again.";
    }
  });
  window.setInterval(tick, 250);
})();
