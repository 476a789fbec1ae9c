#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=80
/**
 * The `agent-trials` command (the program is src/main.ts). `npm start` and
 * `npm run trials` run this file from source (scripts/trials.ts).
 *
 * @since 0.1.0
 */
import "./main.ts"
