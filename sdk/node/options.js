'use strict';
// Where a bot's settings come from, first found wins: the options given to run() in code, the
// command-line flags, the environment the ladder sets, the defaults. The flags and variables
// are the Python SDK's and the stdio bridge's (README "Run them with").

const fs = require('fs');
const path = require('path');
const { OptionError } = require('./errors');
const { DEFAULT_LEVEL, LEVELS } = require('./log');

const DEFAULT_SERVER = '127.0.0.1:50051';
const DEFAULT_CONNECT_TIMEOUT_MS = 120000; // long enough to start the referee after the bots
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10000; // a server that accepts but never welcomes
// decide() gets the request's move_ms + bank_ms less this; then the SDK answers the first
// legal choice itself, before the referee's clock runs out and counts a strike.
const DEFAULT_DEADLINE_MARGIN_MS = 250;
const MS_PER_S = 1000;

// One row per setting that a flag or a variable may give; `value` names a flag's argument.
const FLAGS = [
  { flag: '--server', key: 'server', env: 'BRANDELN_SERVER', value: 'HOST:PORT', help: `the referee [${DEFAULT_SERVER}]` },
  { flag: '--token', key: 'token', env: 'BRANDELN_TOKEN', value: 'TOKEN', help: "the bot's token (from `brandeln bots add`)" },
  { flag: '--tables', key: 'tables', env: 'BRANDELN_TABLES', value: 'N', help: 'tables to play at once, one stream each [1]' },
  { flag: '--ca', key: 'ca', env: 'BRANDELN_CA', value: 'FILE', help: 'CA certificate (PEM) of a TLS referee' },
  { flag: '--tls', key: 'tls', help: "TLS with the system's root certificates" },
  { flag: '--name', aliases: ['--bot-name'], key: 'name', env: 'BRANDELN_BOT_NAME', value: 'NAME', help: 'the name sent in Hello' },
  { flag: '--matches', key: 'matches', value: 'N', help: 'stop after N matches per table [play until stopped]' },
  { flag: '--connect-timeout', key: 'connectTimeoutMs', env: 'BRANDELN_CONNECT_TIMEOUT', value: 'SECONDS', seconds: true, help: `seconds to keep trying to reach the referee [${DEFAULT_CONNECT_TIMEOUT_MS / MS_PER_S}]` },
  { flag: '--log-level', key: 'logLevel', env: 'BRANDELN_LOG_LEVEL', value: 'LEVEL', help: `${LEVELS.join(' | ')} [${DEFAULT_LEVEL}]` },
  { flag: '--verbose', aliases: ['-v'], key: 'logLevel', constant: 'debug', help: 'the same as --log-level debug' },
  { flag: '--help', aliases: ['-h'], key: 'help', constant: true, help: 'print this and exit' },
];
const CODE_ONLY = ['handshakeTimeoutMs', 'deadlineMarginMs', 'argv', 'env'];
const KNOWN_KEYS = new Set([...FLAGS.map((row) => row.key), ...CODE_ONLY]);

function usage(program = `node ${path.basename(process.argv[1] || 'bot.js')}`) {
  const rows = FLAGS.map((row) => {
    const names = [...(row.aliases || []), row.flag].join(', ');
    const left = row.value ? `${names} ${row.value}` : names;
    return `  ${left.padEnd(32)} ${row.help}${row.env ? ` [env ${row.env}]` : ''}`;
  });
  return `usage: ${program} [options]\n\n${rows.join('\n')}\n`;
}

/** The flags in argv as { key: { value, label } }; any word it does not know is an error. */
function readFlags(argv) {
  const found = {};
  for (let at = 0; at < argv.length; at += 1) {
    const word = String(argv[at]);
    const equals = word.startsWith('--') ? word.indexOf('=') : -1;
    const name = equals > 0 ? word.slice(0, equals) : word;
    const row = FLAGS.find((r) => r.flag === name || (r.aliases || []).includes(name));
    if (row === undefined) {
      throw new OptionError(
        name.startsWith('-')
          ? `unknown option ${name} (try --help)`
          : `unexpected argument ${JSON.stringify(word)}: every setting is a --flag (try --help)`,
      );
    }
    let value = row.constant;
    if (row.value) {
      // The next word even when it starts with a dash: tokens may.
      value = equals > 0 ? word.slice(equals + 1) : argv[(at += 1)];
      if (value === undefined) throw new OptionError(`${name} needs a value (${row.value})`);
    } else if (equals > 0) {
      throw new OptionError(`${name} takes no value`);
    }
    found[row.key] = { value, label: name };
  }
  return found;
}

function shown(value) {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function wholeNumber(value, label, least) {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (!Number.isSafeInteger(number) || number < least) {
    throw new OptionError(`${label} must be a whole number of at least ${least}, not ${shown(value)}`);
  }
  return number;
}

function milliseconds(value, label, { seconds = false, positive = false } = {}) {
  const text = typeof value === 'string' ? value.trim() : null;
  const number = text !== null && text !== '' ? Number(text) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || (positive && number === 0)) {
    const unit = seconds ? 'seconds' : 'milliseconds';
    throw new OptionError(`${label} must be a ${positive ? 'positive' : 'non-negative'} number of ${unit}, not ${shown(value)}`);
  }
  return seconds ? number * MS_PER_S : number;
}

function nonEmptyText(value, label) {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new OptionError(`${label} must be a non-empty string, not ${shown(value)}`);
  }
  return value;
}

/**
 * The settings of a run, from `options` (in code; `argv` and `env` say where flags and
 * variables are read, by default none and process.env). Throws OptionError, one line.
 */
function resolveOptions(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new OptionError(`the options must be an object, not ${shown(options)}`);
  }
  const unknown = Object.keys(options).filter((key) => !KNOWN_KEYS.has(key));
  if (unknown.length) {
    throw new OptionError(`unknown option ${unknown[0]}; known: ${[...KNOWN_KEYS].join(', ')}`);
  }
  const flags = readFlags(options.argv || []);
  if (flags.help) return { help: true };
  const env = options.env || process.env;

  // The value of `key` and the label naming where it came from, for the error messages.
  const pick = (key) => {
    if (options[key] !== undefined && options[key] !== null) return [options[key], `options.${key}`, false];
    if (flags[key]) return [flags[key].value, flags[key].label, true];
    const row = FLAGS.find((r) => r.key === key && r.env);
    if (row && env[row.env]) return [env[row.env], row.env, true];
    return [undefined, key, false];
  };

  const [token, tokenFrom] = pick('token');
  if (token === undefined || token === '') throw new OptionError('no token: pass --token or set BRANDELN_TOKEN');
  const [server, serverFrom] = pick('server');
  const [tables, tablesFrom] = pick('tables');
  const [matches, matchesFrom] = pick('matches');
  const [ca, caFrom] = pick('ca');
  const [tls] = pick('tls');
  const [name, nameFrom] = pick('name');
  const [connect, connectFrom, connectFromText] = pick('connectTimeoutMs');
  const [logLevel, logLevelFrom] = pick('logLevel');
  const settings = {
    help: false,
    token: nonEmptyText(token, tokenFrom),
    server: server === undefined ? DEFAULT_SERVER : nonEmptyText(server, serverFrom),
    tables: tables === undefined ? 1 : wholeNumber(tables, tablesFrom, 1),
    matches: matches === undefined ? null : wholeNumber(matches, matchesFrom, 1),
    ca: ca === undefined ? null : nonEmptyText(ca, caFrom),
    caPem: null,
    tls: Boolean(tls),
    name: name === undefined ? null : nonEmptyText(name, nameFrom),
    connectTimeoutMs: connect === undefined
      ? DEFAULT_CONNECT_TIMEOUT_MS
      : milliseconds(connect, connectFrom, { seconds: connectFromText, positive: true }),
    handshakeTimeoutMs: options.handshakeTimeoutMs === undefined
      ? DEFAULT_HANDSHAKE_TIMEOUT_MS
      : milliseconds(options.handshakeTimeoutMs, 'options.handshakeTimeoutMs', { positive: true }),
    deadlineMarginMs: options.deadlineMarginMs === undefined
      ? DEFAULT_DEADLINE_MARGIN_MS
      : milliseconds(options.deadlineMarginMs, 'options.deadlineMarginMs'),
    logLevel: logLevel === undefined ? DEFAULT_LEVEL : logLevel,
  };
  if (!LEVELS.includes(settings.logLevel)) {
    throw new OptionError(`${logLevelFrom} must be one of ${LEVELS.join(', ')}, not ${shown(logLevel)}`);
  }
  if (settings.ca !== null) {
    try {
      settings.caPem = fs.readFileSync(settings.ca);
    } catch (error) {
      throw new OptionError(`${caFrom} ${settings.ca}: cannot read it (${error.code || error.message})`);
    }
  }
  return settings;
}

module.exports = {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MARGIN_MS,
  DEFAULT_SERVER,
  resolveOptions,
  usage,
};
