'use strict';
// Cards and choices as text, as every Brandeln tool writes them: a card is a suit letter
// (C S H D) and a rank letter (7 8 9 T J Q K A): 'HJ'; a suit is its letter; a bid is its
// contract id ('pass', 'brandle', ...). Cards have two characters, suits one, contract ids are
// lower-case words, so a choice's text never names two things.

const { SUITS, RANKS } = require('./protocol');

const SUIT_LETTERS = 'CSHD'; // SUITS[i] is written SUIT_LETTERS[i]
const RANK_LETTERS = '789TJQKA'; // RANKS[i] is written RANK_LETTERS[i]
const PASS = 'pass';
const CHOICE_KINDS = ['bid', 'trump', 'card'];

class NotationError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NotationError';
  }
}

function shown(value) {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function suitLetter(suit) {
  const at = SUITS.indexOf(suit);
  if (at < 0) throw new NotationError(`${shown(suit)} is not a suit (one of ${SUITS.join(' ')})`);
  return SUIT_LETTERS[at];
}

function rankLetter(rank) {
  const at = RANKS.indexOf(rank);
  if (at < 0) throw new NotationError(`${shown(rank)} is not a rank (one of ${RANKS.join(' ')})`);
  return RANK_LETTERS[at];
}

function parseSuit(text) {
  const key = String(text).trim().toUpperCase();
  if (key.length !== 1 || !SUIT_LETTERS.includes(key)) {
    throw new NotationError(`${shown(text)} is not a suit: use one of C S H D`);
  }
  return SUITS[SUIT_LETTERS.indexOf(key)];
}

function cardText(card) {
  if (!card || typeof card !== 'object') throw new NotationError(`${shown(card)} is not a card`);
  return suitLetter(card.suit) + rankLetter(card.rank);
}

function parseCard(text) {
  const key = String(text).trim().toUpperCase();
  if (key.length !== 2 || !SUIT_LETTERS.includes(key[0]) || !RANK_LETTERS.includes(key[1])) {
    throw new NotationError(
      `${shown(text)} is not a card: a suit letter (C S H D) then a rank letter `
        + '(A K Q J T 9 8 7), e.g. HJ',
    );
  }
  return { suit: SUITS[SUIT_LETTERS.indexOf(key[0])], rank: RANKS[RANK_LETTERS.indexOf(key[1])] };
}

function cardsText(cards) {
  return Array.from(cards, cardText);
}

/** Which field of a Choice is set: its `kind` as the referee sends it, else the one present. */
function choiceKind(choice) {
  if (!choice || typeof choice !== 'object') return undefined;
  if (CHOICE_KINDS.includes(choice.kind)) return choice.kind;
  return CHOICE_KINDS.find((kind) => choice[kind] !== undefined && choice[kind] !== null);
}

function choiceText(choice) {
  const kind = choiceKind(choice);
  if (kind === 'bid') return String(choice.bid.contract);
  if (kind === 'trump') return suitLetter(choice.trump);
  if (kind === 'card') return cardText(choice.card);
  throw new NotationError('the choice is empty (none of bid, trump, card is set)');
}

function parseChoice(text) {
  const key = String(text).trim();
  const upper = key.toUpperCase();
  if (key.length === 2 && SUIT_LETTERS.includes(upper[0]) && RANK_LETTERS.includes(upper[1])) {
    return cardChoice(parseCard(key));
  }
  if (key.length === 1) return trumpChoice(parseSuit(key));
  if (!key) throw new NotationError('an empty string is not a choice');
  return bidChoice(key);
}

function bidChoice(contract) {
  return { bid: { contract: String(contract) } };
}

/** The choice naming `suit` trump: an enum name ('SUIT_HEARTS') or its letter ('H'). */
function trumpChoice(suit) {
  return { trump: SUITS.includes(suit) ? suit : parseSuit(suit) };
}

/** The choice playing `card`: a Card or its text ('HJ'). */
function cardChoice(card) {
  const { suit, rank } = typeof card === 'string' ? parseCard(card) : card;
  suitLetter(suit); // a clear error for a card that is no card
  rankLetter(rank);
  return { card: { suit, rank } };
}

/** The request's legal choices as text: ['pass', 'brandle'], ['HJ', 'CA']. */
function legalTexts(request) {
  return request.legal.map(choiceText);
}

module.exports = {
  PASS,
  RANK_LETTERS,
  SUIT_LETTERS,
  NotationError,
  bidChoice,
  cardChoice,
  cardText,
  cardsText,
  choiceKind,
  choiceText,
  legalTexts,
  parseCard,
  parseChoice,
  parseSuit,
  rankLetter,
  suitLetter,
  trumpChoice,
};
