'use strict';
// What decide() may return, and the legal choice it stands for: an index into request.legal,
// one of its choices, or a choice's text ('HJ', 'H', 'pass').

const { choiceKind, choiceText, parseChoice } = require('./notation');

class InvalidAnswerError extends Error {
  constructor(message) {
    super(message);
    this.name = 'InvalidAnswerError';
  }
}

function sameChoice(a, b) {
  const kind = choiceKind(a);
  if (kind === undefined || kind !== choiceKind(b)) return false;
  if (kind === 'bid') return String(a.bid.contract) === String(b.bid.contract);
  if (kind === 'trump') return a.trump === b.trump;
  return Boolean(a.card && b.card) && a.card.suit === b.card.suit && a.card.rank === b.card.rank;
}

function describe(answer) {
  try {
    return typeof answer === 'string' ? JSON.stringify(answer) : choiceText(answer);
  } catch {
    return 'an empty Choice';
  }
}

/** The legal Choice an answer stands for; throws InvalidAnswerError otherwise. */
function resolveAnswer(request, answer) {
  const legal = request.legal;
  if (typeof answer === 'number') {
    if (!Number.isInteger(answer) || answer < 0 || answer >= legal.length) {
      throw new InvalidAnswerError(
        `decide() returned index ${answer}, but there are ${legal.length} legal choices`,
      );
    }
    return legal[answer];
  }
  if (typeof answer !== 'string' && (answer === null || typeof answer !== 'object')) {
    throw new InvalidAnswerError(
      `decide() returned ${String(answer)}; return an index into request.legal, one of its `
        + "choices, or a choice's text ('HJ', 'H', 'pass')",
    );
  }
  let wanted = answer;
  if (typeof answer === 'string') {
    try {
      wanted = parseChoice(answer);
    } catch (error) {
      throw new InvalidAnswerError(`decide() returned ${describe(answer)}: ${error.message}`);
    }
  }
  const found = legal.find((choice) => sameChoice(choice, wanted));
  if (found === undefined) {
    throw new InvalidAnswerError(
      `decide() returned ${describe(answer)}, which is not legal here; `
        + `legal: ${legal.map(choiceText).join(' ')}`,
    );
  }
  return found;
}

/** A fresh Choice holding only the field that is set, as the Action sends it. */
function wireChoice(choice) {
  const kind = choiceKind(choice);
  if (kind === 'bid') return { bid: { contract: choice.bid.contract } };
  if (kind === 'trump') return { trump: choice.trump };
  return { card: { suit: choice.card.suit, rank: choice.card.rank } };
}

module.exports = { InvalidAnswerError, resolveAnswer, wireChoice };
