'use strict';
// The bot an author writes, in any of three shapes: a decide(request, context) function, a
// class with a decide method (one instance per table, so it may keep per-match state), or an
// object with one (shared by every table). Hooks, all optional: onWelcome, onMatchStart,
// onDealStart, onEvent, onRejected, onMatchEnd, close.

const { OptionError } = require('./errors');

const FUNCTION_BOT_NAME = 'function-bot';

/**
 * A base class for bots: `class MyBot extends Bot { decide(request) { return 0; } }`. It gives
 * `this.match`, `this.deal` and `this.log(text)` (to the match log) while a session runs.
 */
class Bot {
  constructor() {
    this.context = null; // set by the SDK when the bot's session starts
  }

  get match() {
    return this.context ? this.context.match : null;
  }

  get deal() {
    return this.context ? this.context.deal : null;
  }

  decide() {
    throw new Error(`${this.constructor.name} must implement decide(request)`);
  }

  log(text) {
    if (this.context) this.context.log(text);
  }
}

function isClass(value) {
  if (typeof value !== 'function') return false;
  if (/^class[\s{]/.test(Function.prototype.toString.call(value))) return true;
  return Boolean(value.prototype) && typeof value.prototype.decide === 'function';
}

/** A function making the bot of one table from whatever the author handed to run(). */
function botFactory(bot) {
  if (isClass(bot)) {
    if (typeof bot.prototype.decide !== 'function') {
      throw new OptionError(`class ${bot.name || '(anonymous)'} has no decide(request) method`);
    }
    return () => new bot(); // eslint-disable-line new-cap
  }
  if (typeof bot === 'function') return () => ({ name: FUNCTION_BOT_NAME, decide: bot });
  if (bot !== null && typeof bot === 'object' && typeof bot.decide === 'function') {
    return () => bot;
  }
  throw new OptionError(
    'run() needs a bot: a decide(request) function, a class with a decide method, or an '
      + 'object with one',
  );
}

module.exports = { Bot, botFactory };
