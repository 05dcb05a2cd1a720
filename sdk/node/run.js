'use strict';
// The entry points: play() (a promise, for programs that manage their own errors) and run()
// (the usual last line of a bot: settings from flags and the environment too, one error line
// and exit status 2 when the bot cannot go on).

const { Referee, grpc } = require('./protocol');
const { BotKitError } = require('./errors');
const { botFactory } = require('./bot');
const { createLogger } = require('./log');
const { resolveOptions, usage } = require('./options');
const { Session } = require('./session');

const EXIT_BOT_KIT_ERROR = 2; // as the Python bots': settings, token, protocol, unreachable
const EXIT_CRASH = 1;

function credentials(settings) {
  if (settings.caPem !== null) return grpc.credentials.createSsl(settings.caPem);
  if (settings.tls) return grpc.credentials.createSsl();
  return grpc.credentials.createInsecure();
}

/** Every table's session, to their end; the first to fail stops the others and is thrown. */
async function playSettled(bot, settings) {
  const makeBot = botFactory(bot);
  const logger = createLogger(settings.logLevel);
  const client = new Referee(settings.server, credentials(settings));
  try {
    const sessions = [];
    for (let table = 0; table < settings.tables; table += 1) {
      sessions.push(new Session(makeBot(), settings, client, table, logger));
    }
    let failure = null;
    const stats = await Promise.all(sessions.map((session) => session.run().catch((error) => {
      if (failure === null) {
        failure = error;
        sessions.forEach((other) => other.stop());
      }
      return null;
    })));
    if (failure !== null) throw failure;
    return stats;
  } finally {
    client.close();
  }
}

/**
 * Play with `bot` at options.tables tables until options.matches are played (or forever).
 * Settings come from `options`, else the environment (BRANDELN_SERVER, BRANDELN_TOKEN, ...);
 * flags only when options.argv is given. Rejects with a BotKitError saying what to fix.
 */
async function play(bot, options = {}) {
  return playSettled(bot, resolveOptions(options));
}

/**
 * play(), with the flags of the command line too (options.argv, by default
 * process.argv.slice(2)); never rejects: an error is one line on stderr and exit status 2.
 * Resolves to each table's stats, or undefined when the bot could not play.
 */
async function run(bot, options = {}) {
  try {
    const settings = resolveOptions({ argv: process.argv.slice(2), ...options });
    if (settings.help) {
      process.stdout.write(usage());
      return undefined;
    }
    return await playSettled(bot, settings);
  } catch (error) {
    if (error instanceof BotKitError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = EXIT_BOT_KIT_ERROR;
    } else {
      process.stderr.write(`error: ${error && error.stack ? error.stack : error}\n`);
      process.exitCode = EXIT_CRASH;
    }
    return undefined;
  }
}

module.exports = { play, run };
