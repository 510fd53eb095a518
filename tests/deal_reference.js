#!/usr/bin/env node
// Reference implementation of the version-1 Klondike deal (docs/deal-codes.md),
// written independently of the Python engine and checked against it by
// tests/test_deal_codes.py::test_javascript_reference_matches_engine.
//
// Usage: node tests/deal_reference.js 0 6 KL1-D3V-7777777 ...
//   Each argument is a decimal deal number or a deal code. Prints a JSON array with,
//   for each argument: {"input", "number", "deck", "tableau", "stock"} (card names;
//   tableau columns bottom -> top; stock next drawn first).
//
// The block between the BEGIN/END markers is copied verbatim into
// docs/deal-codes.md; a test checks that the two stay identical.
"use strict";

// BEGIN REFERENCE IMPLEMENTATION
const MASK = (1n << 64n) - 1n;
function* splitmix64(state) {                 // state: BigInt, the deal number
  for (;;) {
    state = (state + 0x9E3779B97F4A7C15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & MASK;
    yield z ^ (z >> 31n);
  }
}
function shuffledDeck(number) {               // number: 0 … 2^35−1
  const deck = Array.from({ length: 52 }, (_, c) => c);  // c = suit*13 + rank−1
  const rng = splitmix64(BigInt(number));
  for (let i = 51; i >= 1; i--) {
    const n = BigInt(i + 1), limit = (1n << 64n) - (1n << 64n) % n;
    let x;
    do x = rng.next().value; while (x >= limit);           // unbiased: reject the tail
    const j = Number(x % n);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}
function layout(deck) {                       // columns bottom→top, stock next drawn first
  const columns = [[], [], [], [], [], [], []];
  let p = 0;
  for (let row = 0; row < 7; row++)
    for (let col = row; col < 7; col++) columns[col].push(deck[p++]);
  return { columns, stock: deck.slice(p) };
}
const cardName = (c) => "A23456789TJQK"[c % 13] + "SHDC"[Math.floor(c / 13)];
const dealNumber = (code) =>                  // "KL1-D1N-AAAAAAG" → 6 (no validation)
  [...code.trim().toUpperCase().split("-")[2]].reduce(
    (n, ch) => n * 32 + "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".indexOf(ch), 0);
// END REFERENCE IMPLEMENTATION

const results = process.argv.slice(2).map((input) => {
  const number = /^\d+$/.test(input) ? Number(input) : dealNumber(input);
  const deck = shuffledDeck(number);
  const { columns, stock } = layout(deck);
  return {
    input,
    number,
    deck: deck.map(cardName),
    tableau: columns.map((col) => col.map(cardName)),
    stock: stock.map(cardName),
  };
});
process.stdout.write(JSON.stringify(results) + "\n");
