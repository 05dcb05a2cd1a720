// The deal replay and the live table of Brandeln Arena.
//
// It reads the model of web/replay_model.py from <script id="replay-data"> and shows one step
// of one deal at a time: the state at a step is the fold of the deal's steps up to it (the
// engine derived every winner, count and payment; nothing here knows the rules). Every text
// that comes from a bot reaches the page through textContent, never innerHTML.
//
// Keys: <- and -> step, Home and End go to the deal's first and last step, PageUp and PageDown
// to the previous and next deal. The URL hash (#deal=3&step=17) follows the view and opens it.
// In live mode (model.live.events) the deals grow from server-sent events.
(function () {
  "use strict";

  var SUITS = { C: "\u2663", S: "\u2660", H: "\u2665", D: "\u2666" };
  var SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
  var RED = { H: true, D: true };
  var RANKS = { T: "10" };
  // Seats clockwise seen from above: 0 at the bottom, then left, top, right.
  var POSITIONS = ["south", "west", "north", "east"];

  var root = document.getElementById("replay");
  var dataElement = document.getElementById("replay-data");
  if (!root || !dataElement) return;
  var model = JSON.parse(dataElement.textContent);
  var players = model.players;
  var view = { deal: 0, step: 0, follow: true };
  var ui = {};

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function seatName(seat) {
    var entry = model.seats[seat];
    return entry && entry.name ? entry.name : "seat " + seat;
  }

  // A name on one line, cut with an ellipsis where space is short, whole in its title
  // (style.css's .name): never broken inside a word.
  function nameElement(text, tag, className) {
    var node = el(tag || "span", "name" + (className ? " " + className : ""), text);
    node.title = text;
    return node;
  }

  function cardElement(card, trump) {
    var suit = card.charAt(0);
    var rank = card.charAt(1);
    var node = el("span", "rp-card" + (RED[suit] ? " rp-red" : ""));
    node.textContent = (RANKS[rank] || rank) + SUITS[suit];
    node.setAttribute("data-card", card);
    node.title = card;
    if (trump && suit === trump) node.classList.add("rp-trump");
    return node;
  }

  function backElement() {
    var node = el("span", "rp-card rp-back");
    node.setAttribute("aria-label", "a hidden card");
    return node;
  }

  function suitText(letter) {
    return SUITS[letter] + " " + SUIT_NAMES[letter];
  }

  // --- the state at a step: a fold over the deal's steps ------------------------------------
  function stateAt(deal, upTo) {
    var state = {
      hands: deal.hands ? deal.hands.map(function (h) { return h.slice(); }) : null,
      held: [],
      auction: [],
      contract: null,
      soloist: null,
      passedOut: false,
      trump: null,
      trick: [],
      trickNumber: 0,
      trickWinner: null,
      trickDone: false,
      tricksWon: [],
      settlement: null,
      toAct: null,
    };
    for (var s = 0; s < players; s++) {
      state.held.push(model.hand_size);
      state.tricksWon.push(0);
    }
    for (var i = 0; i <= upTo && i < deal.steps.length; i++) {
      var step = deal.steps[i];
      if (step.kind === "bid") {
        state.auction.push(step);
      } else if (step.kind === "contract") {
        state.contract = step.contract;
        state.soloist = step.soloist;
        state.passedOut = step.passed_out;
      } else if (step.kind === "trump") {
        state.trump = step.suit;
      } else if (step.kind === "card") {
        if (state.trickDone) {
          state.trick = [];
          state.trickDone = false;
          state.trickWinner = null;
        }
        state.trick.push(step);
        state.held[step.seat] -= 1;
        if (state.hands) {
          var at = state.hands[step.seat].indexOf(step.card);
          if (at >= 0) state.hands[step.seat].splice(at, 1);
        }
      } else if (step.kind === "trick") {
        state.trickDone = true;
        state.trickNumber = step.number;
        state.trickWinner = step.winner;
        state.tricksWon = step.tricks_won.slice();
      } else if (step.kind === "settlement") {
        state.settlement = step;
        state.tricksWon = step.tricks_won.slice();
      }
    }
    return state;
  }

  // A finished deal's verdict, every hand known (engine/play_analysis.py): said once, with
  // the contract; each card that turned it says so in its own caption.
  function doubleDummyStart(deal) {
    if (deal.double_dummy === true) return " (double dummy it can be made)";
    if (deal.double_dummy === false) return " (double dummy it cannot be made)";
    return "";
  }

  function describe(deal, step) {
    if (!step) return "";
    switch (step.kind) {
      case "deal":
        return "Deal " + deal.number + ": " + seatName(deal.dealer) + " deals";
      case "bid":
        return seatName(step.seat) + (step.bid === "pass" ? " passes" : " bids " + step.bid) +
          (step.status ? " (" + step.status + ")" : "");
      case "contract":
        if (step.soloist === null) {
          var played = deal.steps.some(function (s) { return s.kind === "card"; });
          return played ? "All passed: a free play without trump" : "All passed: no play";
        }
        return (step.passed_out ? "All passed: " : "") + seatName(step.soloist) + " plays " +
          step.contract + doubleDummyStart(deal);
      case "trump":
        return "Trump: " + suitText(step.suit);
      case "card":
        return seatName(step.seat) + " plays " + step.card + (step.status ? " (" + step.status + ")" : "") +
          (step.dd ? "? Double dummy this gave " + (step.dd.for_soloist ? "the contract" : "the defence") +
            " away; " + step.dd.better.join(" ") + " would have kept it" : "");
      case "trick":
        return "Trick " + step.number + " to " + seatName(step.winner);
      case "settlement":
        if (step.made === null) return "Settlement: no soloist";
        return "Settlement: the contract is " + (step.made ? "made" : "lost");
      default:
        return step.kind;
    }
  }

  // --- building the page once --------------------------------------------------------------
  function button(label, title, onClick) {
    var node = el("button", "", label);
    node.type = "button";
    node.title = title;
    node.addEventListener("click", onClick);
    return node;
  }

  function build() {
    root.textContent = "";
    var bar = el("div", "rp-bar");
    ui.dealSelect = el("select", "rp-deal-select");
    ui.dealSelect.setAttribute("aria-label", "deal");
    ui.dealSelect.addEventListener("change", function () {
      go(Number(ui.dealSelect.value), 0, false);
    });
    ui.first = button("|\u25c0", "first step (Home)", function () { go(view.deal, 0, false); });
    ui.prev = button("\u25c0", "back one step (\u2190)", function () { stepBy(-1); });
    ui.next = button("\u25b6", "forward one step (\u2192)", function () { stepBy(1); });
    ui.last = button("\u25b6|", "last step (End)", function () { go(view.deal, lastStep(), true); });
    ui.trickSelect = el("select", "rp-trick-select");
    ui.trickSelect.setAttribute("aria-label", "jump to a trick");
    ui.trickSelect.addEventListener("change", function () {
      if (ui.trickSelect.value !== "") go(view.deal, Number(ui.trickSelect.value), false);
    });
    ui.position = el("span", "rp-position");
    ui.link = el("a", "rp-link", "link to this step");
    ui.caption = el("div", "rp-caption");
    ui.caption.setAttribute("aria-live", "polite");
    [ui.dealSelect, ui.first, ui.prev, ui.next, ui.last, ui.trickSelect, ui.position, ui.link]
      .forEach(function (n) { bar.appendChild(n); });
    root.appendChild(bar);
    root.appendChild(ui.caption);
    ui.live = el("div", "rp-status");
    root.appendChild(ui.live);

    var main = el("div", "rp-main");
    var table = el("div", "rp-table");
    ui.seats = [];
    var count = model.blind ? players + 1 : players;
    for (var s = 0; s < count; s++) {
      var box = el("div", "rp-seat rp-pos-" + POSITIONS[s]);
      box.setAttribute("data-seat", s < players ? String(s) : "blind");
      var name = nameElement(s < players ? seatName(s) : "the blind", "div", "rp-name");
      var tags = el("div", "rp-tags");
      var hand = el("div", "rp-hand");
      box.appendChild(name);
      box.appendChild(tags);
      box.appendChild(hand);
      table.appendChild(box);
      ui.seats.push({ box: box, tags: tags, hand: hand });
    }
    var felt = el("div", "rp-felt");
    ui.slots = [];
    for (var p = 0; p < players; p++) {
      var slot = el("div", "rp-slot rp-slot-" + POSITIONS[p]);
      slot.setAttribute("data-seat", String(p));
      felt.appendChild(slot);
      ui.slots.push(slot);
    }
    ui.info = el("div", "rp-info");
    felt.appendChild(ui.info);
    table.appendChild(felt);
    main.appendChild(table);

    var side = el("div", "rp-side");
    var auctionBox = el("div", "rp-auction");
    auctionBox.appendChild(el("h3", "", "Auction"));
    ui.auction = el("ol");
    auctionBox.appendChild(ui.auction);
    side.appendChild(auctionBox);
    var scoreBox = el("div", "rp-score");
    scoreBox.appendChild(el("h3", "", "Tricks and chips"));
    ui.score = el("table");
    scoreBox.appendChild(ui.score);
    side.appendChild(scoreBox);
    main.appendChild(side);
    root.appendChild(main);
    root.tabIndex = -1;
  }

  function fillDealSelect() {
    var selected = String(view.deal);
    ui.dealSelect.textContent = "";
    model.deals.forEach(function (deal, index) {
      var option = el("option", "", "deal " + deal.number + (deal.hands ? "" : " (live)"));
      option.value = String(index);
      ui.dealSelect.appendChild(option);
    });
    ui.dealSelect.value = selected;
  }

  // --- drawing one step -----------------------------------------------------------------------
  function currentDeal() { return model.deals[view.deal]; }
  function lastStep() { var d = currentDeal(); return d ? d.steps.length - 1 : 0; }

  function render() {
    var deal = currentDeal();
    if (!deal) {
      ui.caption.textContent = model.live ? "Waiting for the first deal\u2026" : "No deal recorded.";
      return;
    }
    var state = stateAt(deal, view.step);
    var step = deal.steps[view.step];
    ui.caption.textContent = describe(deal, step);
    ui.position.textContent = "step " + view.step + " / " + (deal.steps.length - 1);
    ui.dealSelect.value = String(view.deal);
    ui.first.disabled = ui.prev.disabled = view.step === 0 && view.deal === 0;
    ui.next.disabled = ui.last.disabled =
      view.step >= deal.steps.length - 1 && view.deal >= model.deals.length - 1;
    ui.link.href = "#deal=" + deal.number + "&step=" + view.step;
    root.setAttribute("data-deal", String(deal.number));
    root.setAttribute("data-step", String(view.step));
    root.setAttribute("data-revealed", deal.hands ? "true" : "false");
    drawTrickSelect(deal);
    drawSeats(deal, state);
    drawTrick(state);
    drawAuction(state);
    drawScore(deal, state);
  }

  function drawTrickSelect(deal) {
    ui.trickSelect.textContent = "";
    var none = el("option", "", "jump to a trick");
    none.value = "";
    ui.trickSelect.appendChild(none);
    var current = "";
    deal.steps.forEach(function (step, index) {
      if (step.kind !== "trick") return;
      var option = el("option", "", "trick " + step.number);
      option.value = String(index);
      if (index === view.step) current = option.value;
      ui.trickSelect.appendChild(option);
    });
    ui.trickSelect.value = current;
  }

  function drawSeats(deal, state) {
    ui.seats.forEach(function (seat, index) {
      seat.tags.textContent = "";
      seat.hand.textContent = "";
      if (index >= players) {  // the blind (three-player): never played, shown once known
        if (deal.hands) {
          deal.blind.forEach(function (card) { seat.hand.appendChild(cardElement(card, null)); });
        } else {
          for (var b = 0; b < model.hand_size; b++) seat.hand.appendChild(backElement());
        }
        return;
      }
      if (index === deal.dealer) seat.tags.appendChild(el("span", "rp-tag", "dealer"));
      if (state.soloist === index) seat.tags.appendChild(el("span", "rp-tag rp-soloist", "soloist"));
      seat.tags.appendChild(el("span", "rp-tag rp-tricks", "tricks " + state.tricksWon[index]));
      if (state.hands) {
        state.hands[index].forEach(function (card) {
          seat.hand.appendChild(cardElement(card, state.trump));
        });
      } else {
        for (var n = 0; n < state.held[index]; n++) seat.hand.appendChild(backElement());
      }
    });
  }

  function drawTrick(state) {
    ui.slots.forEach(function (slot) { slot.textContent = ""; });
    state.trick.forEach(function (played) {
      var card = cardElement(played.card, state.trump);
      if (state.trickDone && played.seat === state.trickWinner) card.classList.add("rp-winner");
      ui.slots[played.seat].appendChild(card);
    });
    ui.info.textContent = "";
    if (state.contract) ui.info.appendChild(el("div", "rp-contract", state.contract));
    if (state.trump) {
      var big = el("div", "rp-trump-big" + (RED[state.trump] ? " rp-red" : ""), SUITS[state.trump]);
      big.title = "trump: " + SUIT_NAMES[state.trump];
      ui.info.appendChild(big);
      ui.info.appendChild(el("div", "rp-trump", "trump " + SUIT_NAMES[state.trump]));
    } else if (state.contract) {
      ui.info.appendChild(el("div", "rp-trump", "no trump"));
    }
    if (state.trickDone) {
      var won = el("div", "rp-trick-won", "trick " + state.trickNumber + " \u2192 ");
      won.appendChild(nameElement(seatName(state.trickWinner)));
      ui.info.appendChild(won);
    }
  }

  function drawAuction(state) {
    ui.auction.textContent = "";
    state.auction.forEach(function (bid, index) {
      var item = el("li", index === state.auction.length - 1 ? "rp-current" : "");
      item.appendChild(nameElement(seatName(bid.seat)));
      item.appendChild(document.createTextNode(": " + bid.bid));
      ui.auction.appendChild(item);
    });
  }

  function drawScore(deal, state) {
    ui.score.textContent = "";
    var head = el("tr");
    ["seat", "tricks", "chips", "total"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    ui.score.appendChild(head);
    for (var s = 0; s < players; s++) {
      var row = el("tr");
      row.setAttribute("data-seat", String(s));
      var who = el("td");
      who.appendChild(nameElement(seatName(s)));
      row.appendChild(who);
      row.appendChild(el("td", "rp-num", state.tricksWon[s]));
      var paid = state.settlement ? state.settlement.payments[s] : null;
      row.appendChild(el("td", "rp-num rp-payment", paid === null ? "" : (paid > 0 ? "+" : "") + paid));
      // the match totals: after this deal once settled, else those it started with
      var total = state.settlement ? state.settlement.balances[s] : totalsBefore(deal)[s];
      row.appendChild(el("td", "rp-num", total === null ? "" : total));
      ui.score.appendChild(row);
    }
  }

  function totalsBefore(deal) {
    var index = model.deals.indexOf(deal);
    for (var i = index - 1; i >= 0; i--) {
      if (model.deals[i].settlement) return model.deals[i].settlement.balances;
    }
    return model.seats.map(function () { return 0; });
  }

  // --- moving ---------------------------------------------------------------------------------
  function go(dealIndex, step, follow) {
    if (!model.deals.length) { render(); return; }
    dealIndex = Math.max(0, Math.min(model.deals.length - 1, dealIndex));
    var steps = model.deals[dealIndex].steps.length;
    view.deal = dealIndex;
    view.step = Math.max(0, Math.min(steps - 1, step));
    view.follow = Boolean(follow) ||
      (dealIndex === model.deals.length - 1 && view.step === steps - 1);
    render();
    var hash = "#deal=" + model.deals[dealIndex].number + "&step=" + view.step;
    if (window.location.hash !== hash && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", hash);
    }
  }

  function stepBy(delta) {
    var deal = currentDeal();
    if (!deal) return;
    var step = view.step + delta;
    if (step < 0 && view.deal > 0) {
      go(view.deal - 1, model.deals[view.deal - 1].steps.length - 1, false);
    } else if (step >= deal.steps.length && view.deal < model.deals.length - 1) {
      go(view.deal + 1, 0, false);
    } else {
      go(view.deal, step, false);
    }
  }

  function fromHash() {
    var params = {};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair.length === 2) params[pair[0]] = pair[1];
    });
    var number = parseInt(params.deal, 10);
    var step = parseInt(params.step, 10);
    var index = model.deals.findIndex(function (d) { return d.number === number; });
    if (index < 0) return false;
    go(index, isNaN(step) ? 0 : step, false);
    return true;
  }

  document.addEventListener("keydown", function (event) {
    var tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var handled = true;
    switch (event.key) {
      case "ArrowRight": stepBy(1); break;
      case "ArrowLeft": stepBy(-1); break;
      case "Home": go(view.deal, 0, false); break;
      case "End": go(view.deal, lastStep(), false); break;
      case "PageDown": go(view.deal + 1, 0, false); break;
      case "PageUp": go(view.deal - 1, 0, false); break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });
  window.addEventListener("hashchange", fromHash);

  // --- live mode: deals grow from server-sent events -----------------------------------------
  function dealIndexOf(number) {
    return model.deals.findIndex(function (d) { return d.number === number; });
  }

  function following() {
    return view.follow || !model.deals.length;
  }

  function startLive(live) {
    ui.live.textContent = "";
    var badge = el("span", "rp-live", "\u25cf live");
    ui.live.appendChild(badge);
    var note = el("span", "", " waiting for events");
    ui.live.appendChild(note);
    var source = new EventSource(live.events);
    source.addEventListener("deal", function (message) {
      var deal = JSON.parse(message.data);
      var follow = following();
      var index = dealIndexOf(deal.number);
      if (index < 0) model.deals.push(deal); else model.deals[index] = deal;
      fillDealSelect();
      note.textContent = " deal " + deal.number + (deal.hands ? " ended: every hand shown" : " in play");
      root.setAttribute("data-events", message.lastEventId);
      if (follow) go(model.deals.length - 1, Infinity, true); else render();
    });
    source.addEventListener("step", function (message) {
      var data = JSON.parse(message.data);
      var index = dealIndexOf(data.deal);
      if (index < 0) return;
      var follow = following();
      model.deals[index].steps.push(data.step);
      root.setAttribute("data-events", message.lastEventId);
      if (follow) go(model.deals.length - 1, Infinity, true); else render();
    });
    source.addEventListener("end", function (message) {
      var data = JSON.parse(message.data);
      source.close();
      badge.textContent = "";
      note.textContent = "the match is over (" + data.status + ")";
      root.setAttribute("data-ended", data.status);
      model.status = data.status;
    });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CONNECTING) note.textContent = " reconnecting\u2026";
      // Refused for good (the server's cap of live streams, or the match not running): the
      // browser will not retry by itself.
      else if (source.readyState === EventSource.CLOSED) note.textContent = " no live stream now: reload the page to try again";
    });
  }

  build();
  fillDealSelect();
  if (!fromHash()) go(0, 0, Boolean(model.live));
  if (model.live) startLive(model.live);
})();
