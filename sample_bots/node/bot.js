#!/usr/bin/env node
// A Brandeln sample bot in Node.js, on the brandeln-bot package (sdk/node), which connects,
// says Hello with snapshot_only, answers in time, resumes a dropped stream and plays several
// tables. It answers every DecisionRequest by a simple rule:
//   bid:   pass, unless it holds four cards of a suit including that suit's jack or seven;
//          then the lowest contract on offer;
//   trump: that suit (else its longest suit);
//   card:  leading, the last legal card; following, the first (legal choices come in
//          canonical order, low to high within a suit).
//
// Usage: node bot.js [--server HOST:PORT] [--token TOKEN] [--name NAME] [--ca FILE] [--matches N]
//                    [--tables N]   (node bot.js --help for all)
// --server, --token and --tables default to $BRANDELN_SERVER, $BRANDELN_TOKEN and
// $BRANDELN_TABLES (the ladder sets them). Each table is its own seat session (stream).
'use strict';

const { PASS, run } = require('brandeln-bot');

const STRONG_LENGTH = 4;
const STRONG_RANKS = ['RANK_JACK', 'RANK_SEVEN'];

// The suit with four cards or more including its jack or seven (the longest such), if any.
function strongSuit(hand) {
  const bySuit = {};
  for (const card of hand) (bySuit[card.suit] = bySuit[card.suit] || []).push(card.rank);
  const suits = Object.keys(bySuit).sort((a, b) => bySuit[b].length - bySuit[a].length);
  return suits.find(
    (s) => bySuit[s].length >= STRONG_LENGTH && STRONG_RANKS.some((rank) => bySuit[s].includes(rank)),
  );
}

function longestSuit(hand, suits) {
  const count = (s) => hand.filter((c) => c.suit === s).length;
  return suits.reduce((best, s) => (count(s) > count(best) ? s : best), suits[0]);
}

// Returns the index of the chosen legal choice.
function decide(request) {
  const { legal } = request;
  const { hand } = request.view;
  if (request.phase === 'PHASE_BID') {
    const bids = legal.map((c, i) => [c.bid.contract, i]).filter(([id]) => id !== PASS);
    return strongSuit(hand) && bids.length && legal[0].bid.contract === PASS ? bids[0][1] : 0;
  }
  if (request.phase === 'PHASE_TRUMP') {
    const suits = legal.map((c) => c.trump);
    const wanted = strongSuit(hand) || longestSuit(hand, suits);
    return Math.max(0, suits.indexOf(wanted));
  }
  return request.view.current_trick.length === 0 ? legal.length - 1 : 0;
}

run({ name: 'node-sample', version: '1.0', decide });
