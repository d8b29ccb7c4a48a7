import { withReceiptPoll } from "../../relay/receipt-poll.js";
import { relayAdapter } from "../../relay/relay-adapter.js";
import { type AnswerSurface, wordsOf } from "../surface.js";
import { relayLoop } from "./loop.js";

/**
 * The phone, through the relay (docs/relay.md): the relay adapter (relay/relay-adapter.ts) seals each question
 * for the phones, and the loop polls the answers back. Enrolling makes the provider, so it has no settings example
 * and its poll's state is not listed as a connection (`notify relay status` shows it).
 */
export const relaySurface: AnswerSurface = {
  kind: "relay",
  words: wordsOf("relay"),
  adapter: () => relayAdapter,
  answers: () => true,
  // The answer poll, with the receipt poll beside it (docs/relay.md, "Receipts on the broker").
  loop: withReceiptPoll(relayLoop),
  listsConnection: false,
  secretShapes: {},
};
