'use strict';
// The bot's own log: one line per event on stderr (stdout stays the bot's), with a level.

const LEVELS = ['error', 'warn', 'info', 'debug']; // each level shows those before it too
const DEFAULT_LEVEL = 'info';

/** A logger writing lines at `level` and above: `logger.info('seated')`. */
function createLogger(level = DEFAULT_LEVEL, write = (line) => process.stderr.write(line)) {
  const shownUpTo = LEVELS.indexOf(level);
  if (shownUpTo < 0) throw new RangeError(`unknown log level ${JSON.stringify(level)}`);
  const logger = { level };
  LEVELS.forEach((name, rank) => {
    logger[name] = rank > shownUpTo
      ? () => {}
      : (message) => write(`${new Date().toISOString()} brandeln-bot ${name.toUpperCase()} ${message}\n`);
  });
  return logger;
}

module.exports = { DEFAULT_LEVEL, LEVELS, createLogger };
