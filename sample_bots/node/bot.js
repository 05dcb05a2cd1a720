#!/usr/bin/env node
// A Brandeln sample bot in Node.js. It loads the protocol from ../../proto at run time
// (no generated code, no copy), dials the referee, says Hello with snapshot_only, and answers
// every DecisionRequest by a simple rule:
//   bid:   pass, unless it holds four cards of a suit including that suit's jack or seven;
//          then the lowest contract on offer;
//   trump: that suit (else its longest suit);
//   card:  leading, the last legal card; following, the first (legal choices come in
//          canonical order, low to high within a suit).
//
// Usage: node bot.js [--server HOST:PORT] [--token TOKEN] [--name NAME] [--ca FILE] [--matches N]
//                    [--tables N]
// --server, --token and --tables default to $BRANDELN_SERVER, $BRANDELN_TOKEN and
// $BRANDELN_TABLES (the ladder sets them). Each table is its own seat session (stream).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const definition = protoLoader.loadSync('brandeln/v1/bot.proto', {
  includeDirs: [PROTO_ROOT],
  keepCase: true, // field names exactly as in the .proto files
  longs: String, // uint64 request ids stay exact
  enums: String, // 'SUIT_HEARTS', 'PHASE_CARD', ...
  defaults: true,
  oneofs: true, // message.kind names the field that is set
});
const v1 = grpc.loadPackageDefinition(definition).brandeln.v1;

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const server = option('server', process.env.BRANDELN_SERVER || '127.0.0.1:50051');
const token = option('token', process.env.BRANDELN_TOKEN || '');
const botName = option('name', process.env.BRANDELN_BOT_NAME || 'node-sample');
const caFile = option('ca', '');
const maxMatches = Number(option('matches', '0')); // 0: play until stopped (per table)
const tables = Math.max(1, Number(option('tables', process.env.BRANDELN_TABLES || '1')) || 1);
const RETRY_FOR_MS = 30000;

if (!token) {
  console.error('error: no token: pass --token or set BRANDELN_TOKEN');
  process.exit(2);
}

const credentials = caFile
  ? grpc.credentials.createSsl(fs.readFileSync(caFile))
  : grpc.credentials.createInsecure();
const client = new v1.Referee(server, credentials);

// --- the rule ------------------------------------------------------------------------------
function strongSuit(hand) {
  const bySuit = {};
  for (const card of hand) (bySuit[card.suit] = bySuit[card.suit] || []).push(card.rank);
  const suits = Object.keys(bySuit).sort((a, b) => bySuit[b].length - bySuit[a].length);
  return suits.find(
    (s) => bySuit[s].length >= 4 && (bySuit[s].includes('RANK_JACK') || bySuit[s].includes('RANK_SEVEN')),
  );
}

function longestSuit(hand, suits) {
  const count = (s) => hand.filter((c) => c.suit === s).length;
  return suits.reduce((best, s) => (count(s) > count(best) ? s : best), suits[0]);
}

// Returns the index of the chosen legal choice.
function decide(request) {
  const legal = request.legal;
  const hand = request.view.hand;
  if (request.phase === 'PHASE_BID') {
    const bids = legal.map((c, i) => [c.bid.contract, i]).filter(([id]) => id !== 'pass');
    return strongSuit(hand) && bids.length && legal[0].bid.contract === 'pass' ? bids[0][1] : 0;
  }
  if (request.phase === 'PHASE_TRUMP') {
    const suits = legal.map((c) => c.trump);
    const wanted = strongSuit(hand) || longestSuit(hand, suits);
    return Math.max(0, suits.indexOf(wanted));
  }
  return request.view.current_trick.length === 0 ? legal.length - 1 : 0;
}

// A fresh Choice holding only the field that is set.
function copyChoice(choice) {
  if (choice.kind === 'bid') return { bid: { contract: choice.bid.contract } };
  if (choice.kind === 'trump') return { trump: choice.trump };
  return { card: { suit: choice.card.suit, rank: choice.card.rank } };
}

// --- the session ---------------------------------------------------------------------------
// One seat session per table; `table` keeps what a resume needs.
let tablesOpen = tables;

function newTable(number) {
  return {
    number, matchId: '', matchesPlayed: 0, failingSince: 0, delayMs: 100, openRequest: null,
    retried: 0,
  };
}

function connect(table) {
  const call = client.Play();
  let finished = false;
  call.write({
    hello: {
      token,
      bot_name: botName,
      bot_version: '1.0',
      protocol_version: 1,
      resume_match_id: table.matchId,
      snapshot_only: true,
    },
  });

  call.on('data', (message) => {
    switch (message.kind) {
      case 'welcome':
        table.failingSince = 0;
        table.delayMs = 100;
        console.error(`welcomed as ${message.welcome.bot_id} by ${message.welcome.server_version}`);
        break;
      case 'match_started':
        table.matchId = message.match_started.match_id;
        console.error(`match ${table.matchId}: seat ${message.match_started.seat}`);
        break;
      case 'request': {
        const request = message.request;
        table.openRequest = request;
        const choice = copyChoice(request.legal[decide(request)]);
        call.write({ action: { request_id: request.request_id, choice } });
        break;
      }
      case 'rejected': {
        const rejected = message.rejected;
        console.error(`rejected: ${rejected.code} ${rejected.reason}`);
        // The request stays open (PROTOCOL.md): answer it once more with the first legal
        // choice, which the referee always accepts; a stale request needs no answer.
        const open = table.openRequest;
        if (open && String(open.request_id) === String(rejected.request_id)
            && rejected.code !== 'REJECT_CODE_STALE_REQUEST'
            && table.retried !== open.request_id) {
          table.retried = open.request_id;
          call.write({ action: { request_id: open.request_id, choice: copyChoice(open.legal[0]) } });
        }
        break;
      }
      case 'match_ended':
        table.matchesPlayed += 1;
        console.error(`match ${table.matchId} ended: balances ${message.match_ended.balances.join(' ')}`);
        table.matchId = '';
        table.openRequest = null;
        if (maxMatches && table.matchesPlayed >= maxMatches) {
          finished = true;
          call.end();
          call.cancel();
          tablesOpen -= 1;
          if (tablesOpen === 0) client.close();
        }
        break;
      default: // deal_started, events: nothing to do for this bot
    }
  });

  call.on('error', (error) => {
    if (finished) return;
    finished = true;
    if (error.code === grpc.status.UNAUTHENTICATED) {
      console.error(`error: bad token: the referee at ${server} rejected it (${error.details})`);
      process.exit(2);
    }
    if (error.code === grpc.status.FAILED_PRECONDITION || error.code === grpc.status.INVALID_ARGUMENT) {
      console.error(`error: the referee refused the session: ${error.details}`);
      process.exit(2);
    }
    retry(table, `stream dropped: ${error.details || error.message}`);
  });

  call.on('end', () => {
    if (!finished) {
      finished = true;
      retry(table, 'the referee closed the stream');
    }
  });
}

function retry(table, reason) {
  const now = Date.now();
  table.failingSince = table.failingSince || now;
  if (!table.matchId && now - table.failingSince > RETRY_FOR_MS) {
    console.error(`error: cannot reach the referee at ${server}: ${reason}`);
    process.exit(1);
  }
  console.error(`table ${table.number}: ${reason}; reconnecting in ${table.delayMs} ms`);
  setTimeout(() => connect(table), table.delayMs);
  table.delayMs = Math.min(table.delayMs * 2, 2000);
}

for (let number = 0; number < tables; number += 1) connect(newTable(number));
