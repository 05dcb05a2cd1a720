'use strict';
// Why a bot cannot go on, one class per cause; each message is one line saying what to check.

const { PROTOCOL_VERSION, grpc } = require('./protocol');

class BotKitError extends Error {
  constructor(message) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** Missing or contradictory settings: no token, a bad flag or option value. */
class OptionError extends BotKitError {}

/** The referee does not know the token (UNAUTHENTICATED). */
class BadTokenError extends BotKitError {}

/** The referee does not speak this protocol version (FAILED_PRECONDITION). */
class ProtocolVersionError extends BotKitError {}

/** The referee refused a message as malformed (INVALID_ARGUMENT and the like). */
class ProtocolError extends BotKitError {}

/** The referee could not be reached (or reached again) in time. */
class UnreachableError extends BotKitError {}

// A stream that ends with one of these is worth opening again; any other status is final.
const RETRYABLE = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.CANCELLED,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.ABORTED,
  grpc.status.RESOURCE_EXHAUSTED,
]);

function statusName(code) {
  return Object.keys(grpc.status).find((name) => grpc.status[name] === code) || String(code);
}

/** The BotKitError for a status the bot cannot fix by retrying. */
function errorForStatus(error, server) {
  const details = error.details || error.message;
  if (error.code === grpc.status.UNAUTHENTICATED) {
    return new BadTokenError(
      `bad token: the referee at ${server} rejected it (${details}); check --token or `
        + 'BRANDELN_TOKEN (tokens come from `brandeln bots add` / Admin.RegisterBot)',
    );
  }
  if (error.code === grpc.status.FAILED_PRECONDITION) {
    return new ProtocolVersionError(
      `protocol version ${PROTOCOL_VERSION} refused by the referee at ${server}: ${details}`,
    );
  }
  if (error.code === grpc.status.UNIMPLEMENTED) {
    return new ProtocolError(
      `${server} does not serve brandeln.v1.Referee/Play (is it a Brandeln referee?): ${details}`,
    );
  }
  return new ProtocolError(
    `the referee at ${server} ended the session: ${statusName(error.code)}: ${details}`,
  );
}

module.exports = {
  BadTokenError,
  BotKitError,
  OptionError,
  ProtocolError,
  ProtocolVersionError,
  RETRYABLE,
  UnreachableError,
  errorForStatus,
  statusName,
};
