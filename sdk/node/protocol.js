'use strict';
// The protocol, loaded at run time from the .proto files shipped beside this file (proto/, a
// copy of the repository's proto/ kept by scripts/gen_proto.py): no generated code. Bundlers
// that put this file into one script must ship proto/ beside the bundle.

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOCOL_VERSION = 1;
const PROTO_DIR = path.join(__dirname, 'proto');

const definition = protoLoader.loadSync('brandeln/v1/bot.proto', {
  includeDirs: [PROTO_DIR],
  keepCase: true, // field names exactly as in the .proto files, as every language sees them
  longs: String, // 64-bit integers (request_id, balances) stay exact
  enums: String, // 'SUIT_HEARTS', 'PHASE_CARD', ...
  defaults: true, // a field the referee left at its default still reads as 0, '' or []
  oneofs: true, // message.kind names the field of a oneof that is set
});
const v1 = grpc.loadPackageDefinition(definition).brandeln.v1;

/** The names of a protocol enum by number, without its *_UNSPECIFIED = 0. */
function enumNames(name) {
  return definition[`brandeln.v1.${name}`].type.value
    .filter((value) => value.number > 0)
    .sort((a, b) => a.number - b.number)
    .map((value) => value.name);
}

module.exports = {
  PROTOCOL_VERSION,
  PROTO_DIR,
  Referee: v1.Referee,
  SUITS: enumNames('Suit'), // canonical order C S H D
  RANKS: enumNames('Rank'), // natural order 7 8 9 T J Q K A
  grpc,
};
