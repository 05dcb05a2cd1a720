'use strict';
// One seat session: one Referee.Play stream at a time, opened again when it drops. It says
// Hello, answers every DecisionRequest with an Action, and waits in the lobby between matches.
// A stream that drops during a match is opened again with resume_match_id within the match's
// reconnect_ms; outside a match the session keeps trying for the connect timeout. The Python
// SDK's session (sample_bots/sdk/session.py) does the same; PROTOCOL.md is the contract.

const { PROTOCOL_VERSION, grpc } = require('./protocol');
const { RETRYABLE, UnreachableError, errorForStatus, statusName } = require('./errors');
const { InvalidAnswerError, resolveAnswer, wireChoice } = require('./answer');
const { Bot } = require('./bot');

const DEFAULT_RECONNECT_MS = 10000; // PROTOCOL.md: the referee keeps a dropped seat this long
const DEFAULT_BOT_VERSION = '0.1.0';
const LOG_TEXT_CAP = 4000; // characters per BotLog message; the referee caps the total per match
const TRUNCATED = ' ...[truncated]';
const BACKOFF_FIRST_MS = 100;
const BACKOFF_MAX_MS = 2000;
const RESUME_TRIES = 4; // attempts at least, within a match's reconnect_ms
const TIMED_OUT = Symbol('timed out');
const STALE = 'REJECT_CODE_STALE_REQUEST';

class Session {
  constructor(bot, settings, client, table, logger) {
    this.bot = bot;
    this.settings = settings;
    this.client = client;
    this.logger = logger;
    this.stats = {
      table, matches: 0, requests: 0, answers: 0, fallbacks: 0, rejections: 0, streams: 0,
      resumes: 0, matchIds: [],
    };
    this.context = {
      table,
      match: null, // the MatchStarted while seated, else null
      deal: null, // the DealStarted of the deal in play
      deadline: Infinity, // Date.now() by which decide() must answer, else the SDK does
      logger,
      log: (text) => this.sendLog(text),
    };
    if (bot instanceof Bot) bot.context = this.context;
    this.matchId = '';
    this.reconnectMs = DEFAULT_RECONNECT_MS;
    this.openRequest = null;
    this.fellBack = new Set(); // request ids answered again after a rejection
    this.call = null;
    this.endStream = null;
    this.done = false;
    this.wake = null;
  }

  tag() {
    return `table ${this.stats.table}`;
  }

  /** Play until the match limit (or stop()); resolves to the stats, rejects with BotKitError. */
  async run() {
    const { connectTimeoutMs, server } = this.settings;
    let failingSince = null;
    let droppedInMatchAt = null;
    let delay = BACKOFF_FIRST_MS;
    let retrying = false; // a failure was logged: the retries after it are debug lines
    try {
      while (!this.done) {
        const { welcomed, reason } = await this.oneStream(this.matchId);
        if (this.done) break;
        const now = Date.now();
        if (welcomed) {
          failingSince = null;
          droppedInMatchAt = null;
          delay = BACKOFF_FIRST_MS;
          if (retrying) this.logger.info(`${this.tag()}: reached the referee at ${server} again`);
          retrying = false;
        }
        failingSince = failingSince === null ? now : failingSince;
        if (this.matchId) {
          droppedInMatchAt = droppedInMatchAt === null ? now : droppedInMatchAt;
          if (now - droppedInMatchAt > this.reconnectMs) {
            this.logger.error(
              `${this.tag()}: could not resume match ${this.matchId} within `
                + `${this.reconnectMs} ms; it is forfeited`,
            );
            this.forgetMatch();
            droppedInMatchAt = null;
          }
        } else {
          droppedInMatchAt = null;
          if (now - failingSince > connectTimeoutMs) {
            throw new UnreachableError(
              `cannot reach the referee at ${server} (tried for ${connectTimeoutMs / 1000} s): `
                + `${reason}; is it running there? (--server / BRANDELN_SERVER, `
                + '--connect-timeout / BRANDELN_CONNECT_TIMEOUT)',
            );
          }
        }
        if (retrying) {
          this.logger.debug(`${this.tag()}: ${reason}; reconnecting in ${Math.round(delay)} ms`);
        } else {
          // One line, not one per attempt: a wrong port would print dozens.
          const forMs = this.matchId ? this.reconnectMs : connectTimeoutMs;
          this.logger.warn(`${this.tag()}: ${reason}; retrying for up to ${forMs / 1000} s`);
          retrying = true;
        }
        await this.sleep(delay * (0.5 + Math.random()));
        delay = Math.min(delay * 2, BACKOFF_MAX_MS);
        if (this.matchId) {
          // Stay well inside reconnect_ms while a match waits for this seat.
          delay = Math.min(delay, Math.max(BACKOFF_FIRST_MS, this.reconnectMs / RESUME_TRIES));
        }
      }
    } finally {
      await this.hook('close');
    }
    return this.stats;
  }

  /** End the session: its stream is closed, a wait for the next attempt cut short. */
  stop() {
    this.done = true;
    if (this.endStream) this.endStream();
    if (this.wake) this.wake();
  }

  sleep(ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One stream to its end: { welcomed, reason }; rejects with a BotKitError when final. */
  oneStream(resumeMatchId) {
    return new Promise((resolve, reject) => {
      const { handshakeTimeoutMs, server } = this.settings;
      const call = this.client.Play();
      this.call = call;
      this.stats.streams += 1;
      if (resumeMatchId) this.stats.resumes += 1;
      let welcomed = false;
      let ended = false;
      const end = (reason, error = null) => {
        if (ended) return;
        ended = true;
        clearTimeout(handshake);
        this.call = null;
        this.endStream = null;
        call.end();
        call.cancel();
        if (error) reject(error);
        else resolve({ welcomed, reason });
      };
      this.endStream = () => end('stopped');
      const handshake = setTimeout(
        () => end(`no Welcome within ${handshakeTimeoutMs} ms`),
        handshakeTimeoutMs,
      );
      call.on('data', (message) => {
        if (ended) return;
        if (message.kind === 'welcome') {
          welcomed = true;
          clearTimeout(handshake);
        }
        try {
          this.handle(message, call);
        } catch (error) {
          this.logger.error(`${this.tag()}: a ${message.kind} message failed: ${error.stack || error}`);
        }
        if (this.done) end('done');
      });
      // 'error' comes for every status but OK, before 'status'; 'status' always comes.
      call.on('error', (error) => {
        if (ended) return;
        if (!RETRYABLE.has(error.code)) end('', errorForStatus(error, server));
        else end(`stream dropped (${statusName(error.code)}: ${error.details || error.message})`);
      });
      call.on('status', (status) => {
        if (status.code === grpc.status.OK) end('the referee closed the stream');
      });
      call.write({
        hello: {
          token: this.settings.token,
          bot_name: this.settings.name || this.bot.name || '',
          bot_version: this.bot.version || DEFAULT_BOT_VERSION,
          protocol_version: PROTOCOL_VERSION,
          rulesets: Array.from(this.bot.rulesets || []),
          resume_match_id: resumeMatchId,
          snapshot_only: !this.bot.wantsEvents,
        },
      });
    });
  }

  /** One message from the referee. */
  handle(message, call) {
    const { context, stats } = this;
    switch (message.kind) {
      case 'welcome': {
        const { bot_id: botId, session_id: sessionId, server_version: version } = message.welcome;
        this.logger.info(`${this.tag()}: welcomed as bot ${botId} (session ${sessionId}, referee ${version})`);
        this.hook('onWelcome', message.welcome);
        break;
      }
      case 'match_started': {
        const started = message.match_started;
        if (started.match_id !== this.matchId) stats.matchIds.push(started.match_id);
        this.matchId = started.match_id;
        this.reconnectMs = (started.time_control && started.time_control.reconnect_ms) || DEFAULT_RECONNECT_MS;
        this.fellBack.clear();
        context.match = started;
        context.deal = null;
        this.logger.info(`${this.tag()}: match ${started.match_id}: seat ${started.seat}`);
        this.hook('onMatchStart', started);
        break;
      }
      case 'deal_started':
        context.deal = message.deal_started;
        this.hook('onDealStart', message.deal_started);
        break;
      case 'request':
        stats.requests += 1;
        this.openRequest = message.request; // a new request makes any older one stale
        this.decide(message.request, call);
        break;
      case 'event':
        this.hook('onEvent', message.event);
        break;
      case 'rejected':
        this.onRejected(message.rejected, call);
        break;
      case 'match_ended': {
        const ended = message.match_ended;
        stats.matches += 1;
        this.logger.info(`${this.tag()}: match ${ended.match_id} ended: balances ${ended.balances.join(' ')}`);
        this.hook('onMatchEnd', ended);
        this.forgetMatch();
        if (this.settings.matches !== null && stats.matches >= this.settings.matches) this.done = true;
        break;
      }
      default:
        this.logger.warn(`${this.tag()}: ignoring an unknown message kind ${JSON.stringify(message.kind)}`);
    }
  }

  forgetMatch() {
    this.matchId = '';
    this.openRequest = null;
    this.context.match = null;
    this.context.deal = null;
  }

  /** Ask the bot and answer; a failure or a late answer sends the first legal choice. */
  async decide(request, call) {
    const legal = Array.isArray(request.legal) ? request.legal : [];
    const budgetMs = Number(request.move_ms) + Number(request.bank_ms);
    const waitMs = budgetMs > 0 ? Math.max(0, budgetMs - this.settings.deadlineMarginMs) : null;
    this.context.deadline = waitMs === null ? Infinity : Date.now() + waitMs;
    let choice = null;
    let failure = null;
    try {
      const answer = await this.answerWithin(request, waitMs);
      if (answer === TIMED_OUT) {
        failure = `decide() did not answer within ${waitMs} ms (move_ms + bank_ms less `
          + `${this.settings.deadlineMarginMs} ms)`;
      } else {
        choice = resolveAnswer(request, answer);
      }
    } catch (error) {
      failure = error instanceof InvalidAnswerError ? error.message : `decide() failed: ${error && error.stack ? error.stack : String(error)}`;
    }
    if (this.openRequest !== request || this.call !== call) return; // stale by now
    if (failure !== null) {
      // A bot bug must not cost a strike: the referee's own fallback, sent in time.
      this.logger.error(`${this.tag()}: ${failure}; answering the first legal choice`);
      this.sendLog(failure);
      this.stats.fallbacks += 1;
      if (!legal.length) return;
      [choice] = legal;
    }
    this.stats.answers += 1;
    call.write({ action: { request_id: request.request_id, choice: wireChoice(choice) } });
  }

  answerWithin(request, waitMs) {
    const answer = new Promise((resolve) => {
      resolve(this.bot.decide(request, this.context));
    });
    if (waitMs === null) return answer;
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs, TIMED_OUT);
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  onRejected(rejected, call) {
    this.stats.rejections += 1;
    this.logger.warn(
      `${this.tag()}: action for request ${rejected.request_id} rejected (${rejected.code}): ${rejected.reason}`,
    );
    this.hook('onRejected', rejected);
    const request = this.openRequest;
    const id = request ? String(request.request_id) : null;
    if (request && id === String(rejected.request_id) && rejected.code !== STALE
        && !this.fellBack.has(id) && request.legal.length) {
      // The request stays open: one more try with the referee's own fallback avoids a
      // second strike for a timeout.
      this.fellBack.add(id);
      this.stats.fallbacks += 1;
      call.write({ action: { request_id: request.request_id, choice: wireChoice(request.legal[0]) } });
    }
  }

  /** Debug text to the match log (BotLog); dropped while no stream is open. */
  sendLog(text) {
    let line = String(text);
    if (line.length > LOG_TEXT_CAP) line = line.slice(0, LOG_TEXT_CAP - TRUNCATED.length) + TRUNCATED;
    if (this.call) this.call.write({ log: { text: line } });
    else this.logger.debug(`${this.tag()}: no stream open, log line dropped: ${line}`);
  }

  /** Call the bot's hook `name` if it has one; a hook that fails is logged, never fatal. */
  async hook(name, payload) {
    const method = this.bot[name];
    if (typeof method !== 'function') return;
    try {
      await method.call(this.bot, payload, this.context);
    } catch (error) {
      this.logger.error(`${this.tag()}: ${name}() failed: ${error && error.stack ? error.stack : error}`);
    }
  }
}

module.exports = { Session };
