#!/usr/bin/env node
'use strict';
// xtermjs.js: xterm.js (@xterm/headless) as a test oracle for pbwrap's
// output filter. It reads requests from standard input, one JSON line
// each, and answers each with one JSON line on standard output, in order.
//
// Request: {"chunks": ["<base64>", ...]}
//   A new terminal (80x24) reads the chunks in turn, as raw bytes; after
//   each, the oracle takes a snapshot of every mode the terminal keeps.
// Answer: {"fresh": snap, "after": [snap, ...], "reads": n, "error": "..."}
//   fresh is a new terminal's snapshot (the defaults); reads counts the
//   clipboard reads (OSC 52 whose data is "?") that reached the terminal.
//
// NODE_PATH, or PBWRAP_XTERM_HEADLESS (a node_modules directory), says
// where @xterm/headless is.
const path = require('path');
const readline = require('readline');
const where = process.env.PBWRAP_XTERM_HEADLESS;
const { Terminal } = require(where ? path.join(where, '@xterm/headless') : '@xterm/headless');

// newTerminal returns a terminal and the count of clipboard reads it sees.
function newTerminal() {
  const term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true, logLevel: 'off' });
  const seen = { reads: 0 };
  term.parser.registerOscHandler(52, (data) => {
    const i = data.indexOf(';');
    if (data.slice(i + 1) === '?' || data.slice(0, i).includes('?')) seen.reads++;
    return false; // xterm.js goes on as it would.
  });
  term.parser.registerOscHandler(5522, (data) => {
    if (data.split(';')[0].split(':').includes('type=read')) seen.reads++; // Its metadata.
    return false;
  });
  // Mode 5522 (kitty's paste events), which xterm.js does not have: its
  // parser still reads the sequence, and the oracle keeps the mode.
  seen.clipMode = false;
  for (const final of ['h', 'l']) {
    term.parser.registerCsiHandler({ prefix: '?', final }, (params) => {
      if (params.some((p) => p === 5522)) seen.clipMode = final === 'h';
      return false;
    });
  }
  term._pbwrapSeen = seen;
  return { term, seen };
}

// snapshot is every mode the terminal keeps, by the number of the sequence
// that sets it where there is one.
function snapshot(term) {
  const core = term._core;
  const cs = core.coreService;
  const dm = cs.decPrivateModes;
  const ms = core.coreMouseService;
  const buf = core.buffers.active;
  const cset = core._charsetService;
  return {
    'dec1': dm.applicationCursorKeys,
    'dec6': dm.origin,
    'dec7': dm.wraparound,
    'dec12': core.optionsService.rawOptions.cursorBlink,
    'dec25': !cs.isCursorHidden,
    'dec45': dm.reverseWraparound,
    'dec66': dm.applicationKeypad,
    'mouse': ms.activeProtocol,
    'mouseEncoding': ms.activeEncoding,
    'dec1004': dm.sendFocus,
    'dec2004': dm.bracketedPasteMode,
    'dec2026': dm.synchronizedOutput,
    'altScreen': buf === core.buffers.alt,
    'ansi4': cs.modes.insertMode,
    'ansi20': core.optionsService.rawOptions.convertEol,
    'cursorStyle': dm.cursorStyle === undefined ? 'default' : dm.cursorStyle,
    'cursorBlink': dm.cursorBlink === undefined ? 'default' : dm.cursorBlink,
    'scrollRegion': buf.scrollTop + '-' + buf.scrollBottom,
    'glevel': cset.glevel,
    'charsets': [0, 1, 2, 3].map((g) => (cset._charsets[g] ? 'other' + Object.keys(cset._charsets[g]).length : 'B')).join(','),
    'dec5522': term._pbwrapSeen ? term._pbwrapSeen.clipMode : false,
  };
}

function answer(req) {
  const fresh = snapshot(newTerminal().term);
  const { term, seen } = newTerminal();
  const after = [];
  for (const c of req.chunks) {
    term._core.writeSync(Buffer.from(c, 'base64'));
    after.push(snapshot(term));
  }
  term.dispose();
  return { fresh, after, reads: seen.reads };
}

const rl = readline.createInterface({ input: process.stdin, terminal: false, crlfDelay: Infinity });
rl.on('line', (line) => {
  let res;
  try {
    res = answer(JSON.parse(line));
  } catch (e) {
    res = { error: String((e && e.stack) || e) };
  }
  process.stdout.write(JSON.stringify(res) + '\n');
});
