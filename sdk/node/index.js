'use strict';
/**
 * brandeln-bot: write a Brandeln bot as one decide(request) function; this package connects to
 * the referee, says Hello, answers every request in time, resumes a dropped stream, plays
 * several tables and logs to stderr.
 *
 *   const { run } = require('brandeln-bot');
 *   run((request) => 0); // the first legal choice, always
 *
 * Settings: run(bot, { server, token, tables, ... }), else the flags --server, --token,
 * --tables ..., else BRANDELN_SERVER, BRANDELN_TOKEN, BRANDELN_TABLES ... (`node bot.js --help`).
 */

const { PROTOCOL_VERSION, RANKS, SUITS } = require('./protocol');
const errors = require('./errors');
const notation = require('./notation');
const { InvalidAnswerError, resolveAnswer } = require('./answer');
const { Bot } = require('./bot');
const { createLogger, LEVELS } = require('./log');
const { resolveOptions, usage } = require('./options');
const { play, run } = require('./run');
const { version } = require('./package.json');

module.exports = {
  run,
  play,
  Bot,
  resolveAnswer,
  resolveOptions,
  usage,
  createLogger,
  LOG_LEVELS: LEVELS,
  PROTOCOL_VERSION,
  SUITS,
  RANKS,
  VERSION: version,
  InvalidAnswerError,
  BotKitError: errors.BotKitError,
  OptionError: errors.OptionError,
  BadTokenError: errors.BadTokenError,
  ProtocolVersionError: errors.ProtocolVersionError,
  ProtocolError: errors.ProtocolError,
  UnreachableError: errors.UnreachableError,
  PASS: notation.PASS,
  NotationError: notation.NotationError,
  bidChoice: notation.bidChoice,
  cardChoice: notation.cardChoice,
  cardText: notation.cardText,
  cardsText: notation.cardsText,
  choiceText: notation.choiceText,
  legalTexts: notation.legalTexts,
  parseCard: notation.parseCard,
  parseChoice: notation.parseChoice,
  parseSuit: notation.parseSuit,
  suitLetter: notation.suitLetter,
  trumpChoice: notation.trumpChoice,
};
