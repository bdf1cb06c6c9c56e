#!/usr/bin/env node
// Independent grammar check: runs every line read on stdin through table-master-parser (the
// third-party Blue Chip grammar bridge-player is built on) and prints one JSON object per input
// line, in order: {"line": ..., "ok": true, "value": <parse result>} or {"line": ..., "ok": false,
// "error": "..."}. Driven by tests/grammar_check.py.
'use strict';

let parser;
try {
    parser = require('table-master-parser');
} catch (e) {
    process.stdout.write(JSON.stringify({ fatal: 'table-master-parser is not installed: ' + e.message }) + '\n');
    process.exit(2);
}

function parseOne(line) {
    return new Promise((resolve) => {
        let settled = false;
        const done = (result) => {
            if (!settled) {
                settled = true;
                resolve(result);
            }
        };
        try {
            parser.parse(line, (err, value) => {
                if (err) {
                    done({ line: line, ok: false, error: String(err.message || err) });
                } else {
                    done({ line: line, ok: true, value: value === undefined ? null : value });
                }
            });
        } catch (e) {
            done({ line: line, ok: false, error: 'threw: ' + String(e && e.message ? e.message : e) });
        }
    });
}

async function main() {
    const chunks = [];
    for await (const chunk of process.stdin) {
        chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
    if (lines.length && lines[lines.length - 1] === '') {
        lines.pop();
    }
    for (const line of lines) {
        const result = await parseOne(line);
        process.stdout.write(JSON.stringify(result) + '\n');
    }
}

main().catch((e) => {
    process.stdout.write(JSON.stringify({ fatal: String(e && e.stack ? e.stack : e) }) + '\n');
    process.exit(3);
});
