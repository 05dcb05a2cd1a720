// Types of the brandeln-bot package (hand-written; the package itself is plain JavaScript).
// Messages are the protocol's (proto/brandeln/v1/*.proto) as @grpc/proto-loader gives them:
// field names as in the .proto files, enums as their names ('SUIT_HEARTS'), 64-bit integers
// (request_id, balances, seq) as decimal strings so they stay exact, the set field of a oneof
// named by `kind`.

// --- cards and choices (cards.proto) ----------------------------------------------------------
export type Suit = 'SUIT_CLUBS' | 'SUIT_SPADES' | 'SUIT_HEARTS' | 'SUIT_DIAMONDS';
export type Rank =
  | 'RANK_SEVEN' | 'RANK_EIGHT' | 'RANK_NINE' | 'RANK_TEN'
  | 'RANK_JACK' | 'RANK_QUEEN' | 'RANK_KING' | 'RANK_ACE';
export type Phase = 'PHASE_BID' | 'PHASE_TRUMP' | 'PHASE_CARD';
export type RejectCode =
  | 'REJECT_CODE_ILLEGAL' | 'REJECT_CODE_STALE_REQUEST' | 'REJECT_CODE_WRONG_PHASE'
  | 'REJECT_CODE_MALFORMED';
export type SeatOutcome =
  | 'SEAT_OUTCOME_UNSPECIFIED' | 'SEAT_OUTCOME_OK' | 'SEAT_OUTCOME_TIMEOUT'
  | 'SEAT_OUTCOME_ILLEGAL' | 'SEAT_OUTCOME_MALFORMED' | 'SEAT_OUTCOME_PROTOCOL_ERROR'
  | 'SEAT_OUTCOME_DISCONNECTED' | 'SEAT_OUTCOME_FORFEITED';
export type MatchStatus =
  | 'MATCH_STATUS_UNSPECIFIED' | 'MATCH_STATUS_RUNNING' | 'MATCH_STATUS_FINISHED'
  | 'MATCH_STATUS_ABORTED';
/** A 64-bit integer, exact, as a decimal string: Number(value) where it fits. */
export type Int64 = string;

export interface Card { suit: Suit; rank: Rank }
export interface Hand { seat: number; cards: Card[] }
export interface Bid { contract: string }

/** One thing a seat may do; exactly one of bid, trump, card is set, named by `kind`. */
export type Choice =
  | { kind: 'bid'; bid: Bid }
  | { kind: 'trump'; trump: Suit }
  | { kind: 'card'; card: Card };
/** A choice as decide() may return it: `kind` may be left out. */
export type ChoiceInput = { bid: Bid } | { trump: Suit } | { card: Card } | Choice;

export interface ContractInfo {
  id: string;
  goal: 'at_least' | 'exact' | 'zero' | 'all' | string;
  tricks: number;
  trump: boolean;
  value: number;
}
export interface Ruleset {
  id: string;
  players: number;
  tricks: number;
  contracts: ContractInfo[];
  options: Record<string, string>;
}
export interface TimeControl {
  move_ms: number;
  bank_ms: number;
  max_strikes: number;
  reconnect_ms: number;
}
export interface Player { seat: number; bot_name: string; hello_name: string }

export interface BidMade { seat: number; bid: Bid }
export interface ContractSet { soloist?: number; contract: string; passed_out: boolean }
export interface TrumpNamed { suit: Suit }
export interface CardPlayed { seat: number; card: Card }
export interface TrickTaken { trick_number: number; leader: number; cards: Card[]; winner: number }
export interface DealEnded {
  deal_number: number;
  soloist?: number;
  contract: string;
  trump: Suit | 'SUIT_UNSPECIFIED';
  tricks_won: number[];
  made: boolean;
  payments: Int64[];
  balances: Int64[];
  hands: Hand[];
  pool: Int64;
  passed_out: boolean;
}
export interface SeatPenalized {
  seat: number;
  reason: string;
  code: string;
  strikes: number;
  outcome: SeatOutcome;
}
/** A public event, numbered from 1 per match (a snapshot_only seat gets only DealEnded). */
export type GameEvent = { seq: Int64; deal_number: number } & (
  | { kind: 'bid_made'; bid_made: BidMade }
  | { kind: 'contract_set'; contract_set: ContractSet }
  | { kind: 'trump_named'; trump_named: TrumpNamed }
  | { kind: 'card_played'; card_played: CardPlayed }
  | { kind: 'trick_taken'; trick_taken: TrickTaken }
  | { kind: 'deal_ended'; deal_ended: DealEnded }
  | { kind: 'seat_penalized'; seat_penalized: SeatPenalized }
);

/** Everything this seat may know at a decision; never another seat's cards. */
export interface PlayerView {
  seat: number;
  dealer: number;
  forehand: number;
  /** This seat's cards, in the order of the legal lists (by strength once trump is named). */
  hand: Card[];
  auction: BidMade[];
  soloist?: number;
  contract: string;
  trump: Suit | 'SUIT_UNSPECIFIED';
  tricks: TrickTaken[];
  current_trick_leader: number;
  current_trick: Card[];
  tricks_won: number[];
  deal_payments: Int64[];
  match_balances: Int64[];
  deal_number: number;
}

// --- the bot's side of the session (bot.proto) ------------------------------------------------
/** It is this seat's turn: answer with one of `legal`. */
export interface DecisionRequest {
  request_id: Int64;
  phase: Phase;
  /** Every legal choice in canonical order (README "The protocol in brief"). */
  legal: Choice[];
  view: PlayerView;
  move_ms: number;
  bank_ms: number;
  strikes: number;
  last_rtt_ms: number;
}
export interface Welcome {
  session_id: string;
  bot_id: string;
  protocol_version: number;
  server_version: string;
}
export interface MatchStarted {
  match_id: string;
  seat: number;
  players: Player[];
  ruleset: Ruleset;
  deals: number;
  time_control: TimeControl;
}
export interface DealStarted { deal_number: number; dealer: number; forehand: number; hand: Card[] }
export interface ActionRejected { request_id: Int64; code: RejectCode; reason: string }
export interface MatchEnded {
  match_id: string;
  balances: Int64[];
  ranks: number[];
  forfeited: number[];
  status: string;
  match_status: MatchStatus;
}

// --- writing a bot ----------------------------------------------------------------------------
/** What decide() returns: an index into request.legal, one of its choices, or its text. */
export type Answer = number | ChoiceInput | string;

export interface Logger {
  readonly level: LogLevel;
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** What the SDK hands decide() and the hooks beside the message: one per table. */
export interface Context {
  /** The table this session plays at, from 0. */
  readonly table: number;
  /** The match while seated, else null. */
  readonly match: MatchStarted | null;
  /** The deal in play, else null. */
  readonly deal: DealStarted | null;
  /** Date.now() by which decide() must have answered; then the SDK answers the first legal choice. */
  readonly deadline: number;
  /** The bot's log on stderr (the SDK's, at its level). */
  readonly logger: Logger;
  /** Debug text to the match log (a BotLog; capped per match by the referee). */
  log(text: string): void;
}

/** The bot's hooks and Hello fields, all optional but decide(). */
export interface BotShape {
  /** Sent in Hello unless --name / BRANDELN_BOT_NAME / options.name says otherwise. */
  name?: string;
  version?: string;
  /** true: every public event to onEvent; false (the default): snapshot_only. */
  wantsEvents?: boolean;
  /** Ruleset ids the bot can play; empty or absent: all. */
  rulesets?: readonly string[];
  /** The one method to write; may return a Promise (answered within the request's time). */
  decide(request: DecisionRequest, context: Context): Answer | Promise<Answer>;
  onWelcome?(welcome: Welcome, context: Context): void | Promise<void>;
  onMatchStart?(match: MatchStarted, context: Context): void | Promise<void>;
  onDealStart?(deal: DealStarted, context: Context): void | Promise<void>;
  onEvent?(event: GameEvent, context: Context): void | Promise<void>;
  onRejected?(rejected: ActionRejected, context: Context): void | Promise<void>;
  onMatchEnd?(ended: MatchEnded, context: Context): void | Promise<void>;
  /** The session is over: release what the bot holds. */
  close?(): void | Promise<void>;
}

/** A base class: one instance per table, with this.match, this.deal and this.log(). */
export class Bot implements BotShape {
  name?: string;
  version?: string;
  wantsEvents?: boolean;
  rulesets?: readonly string[];
  /** Set by the SDK when the bot's session starts. */
  context: Context | null;
  readonly match: MatchStarted | null;
  readonly deal: DealStarted | null;
  decide(request: DecisionRequest, context: Context): Answer | Promise<Answer>;
  log(text: string): void;
}

/** A bot as run() takes it: a decide function, a class (one instance per table), an object. */
export type BotLike =
  | ((request: DecisionRequest, context: Context) => Answer | Promise<Answer>)
  | (new () => BotShape)
  | BotShape;

export interface Options {
  /** The referee, HOST:PORT [--server, BRANDELN_SERVER, 127.0.0.1:50051]. */
  server?: string;
  /** The bot's token [--token, BRANDELN_TOKEN]; required. */
  token?: string;
  /** Tables to play at once, one stream each [--tables, BRANDELN_TABLES, 1]. */
  tables?: number;
  /** CA certificate file (PEM) of a TLS referee [--ca, BRANDELN_CA]. */
  ca?: string;
  /** TLS with the system's root certificates [--tls]. */
  tls?: boolean;
  /** The name sent in Hello [--name, BRANDELN_BOT_NAME, the bot's name]. */
  name?: string;
  /** Stop after this many matches per table [--matches; play until stopped]. */
  matches?: number;
  /** How long to keep trying to reach the referee [--connect-timeout SECONDS, BRANDELN_CONNECT_TIMEOUT, 120 s]. */
  connectTimeoutMs?: number;
  /** How long one attempt waits for the Welcome [10000]. */
  handshakeTimeoutMs?: number;
  /** decide() gets move_ms + bank_ms less this, then the SDK answers for it [250]. */
  deadlineMarginMs?: number;
  /** The log's level on stderr [--log-level, -v, BRANDELN_LOG_LEVEL, info]. */
  logLevel?: LogLevel;
  /** The flags to read [run(): process.argv.slice(2); play(): none]. */
  argv?: readonly string[];
  /** The environment to read [process.env]. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What one table's session did. */
export interface SessionStats {
  table: number;
  matches: number;
  requests: number;
  answers: number;
  fallbacks: number;
  rejections: number;
  streams: number;
  resumes: number;
  matchIds: string[];
}

/** The settings a run resolved (options, flags, environment, defaults). */
export interface Settings {
  help: boolean;
  server: string;
  token: string;
  tables: number;
  matches: number | null;
  ca: string | null;
  tls: boolean;
  name: string | null;
  connectTimeoutMs: number;
  handshakeTimeoutMs: number;
  deadlineMarginMs: number;
  logLevel: LogLevel;
}

/**
 * Play until options.matches are played at every table (or forever). Never rejects: an error
 * is one line on stderr and exit status 2; resolves to each table's stats, or undefined then.
 */
export function run(bot: BotLike, options?: Options): Promise<SessionStats[] | undefined>;
/** Like run(), without flags unless options.argv; rejects with a BotKitError. */
export function play(bot: BotLike, options?: Options): Promise<SessionStats[]>;
/** The settings options, flags and environment give; throws OptionError. */
export function resolveOptions(options?: Options): Settings;
/** The --help text. */
export function usage(program?: string): string;
export function createLogger(level?: LogLevel, write?: (line: string) => void): Logger;
/** The legal Choice an answer stands for; throws InvalidAnswerError. */
export function resolveAnswer(request: DecisionRequest, answer: Answer): Choice;

export const LOG_LEVELS: readonly LogLevel[];
export const PROTOCOL_VERSION: number;
/** The suits in canonical order C S H D. */
export const SUITS: readonly Suit[];
/** The ranks in natural order 7 8 9 T J Q K A. */
export const RANKS: readonly Rank[];
/** This package's version. */
export const VERSION: string;

export class BotKitError extends Error {}
export class OptionError extends BotKitError {}
export class BadTokenError extends BotKitError {}
export class ProtocolVersionError extends BotKitError {}
export class ProtocolError extends BotKitError {}
export class UnreachableError extends BotKitError {}
export class InvalidAnswerError extends Error {}

// --- notation: 'HJ' (a card), 'H' (a suit), 'pass' or 'brandle' (a bid) -----------------------
export const PASS: 'pass';
export class NotationError extends Error {}
export function cardText(card: Card): string;
export function cardsText(cards: Iterable<Card>): string[];
export function parseCard(text: string): Card;
export function suitLetter(suit: Suit): string;
export function parseSuit(text: string): Suit;
export function choiceText(choice: ChoiceInput): string;
export function parseChoice(text: string): ChoiceInput;
export function legalTexts(request: DecisionRequest): string[];
export function bidChoice(contract: string): { bid: Bid };
export function trumpChoice(suit: Suit | string): { trump: Suit };
export function cardChoice(card: Card | string): { card: Card };
