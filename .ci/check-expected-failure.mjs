#!/usr/bin/env node
// CI: the example suite's expected-failure project must fail in exactly one way: its one test,
// failing its assertion, with the remote session's recording attached. A crashed global setup,
// a config error or a different failing test also exits non-zero, and must not pass as "expected".
// Usage: node .ci/check-expected-failure.mjs <exit code> <json report file>
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

const EXPECTED_FILE = 'checkout.fail.spec.ts';
const EXPECTED_TITLE = 'checkout offers free shipping (it does not: this test fails)';
const EXPECTED_ERROR = /Free shipping/;

const [exitCode, reportFile] = process.argv.slice(2);
const problems = [];
const fail = (why) => problems.push(why);

if (exitCode !== '1') fail(`the run exited with ${exitCode}, expected 1 (tests failed)`);

let report = {};
try {
  report = JSON.parse(readFileSync(reportFile, 'utf8'));
} catch (error) {
  fail(`no JSON report at ${reportFile} (${error.message}): the run ended before reporting`);
}

for (const error of report.errors ?? []) fail(`run-level error: ${error.message ?? error.value}`);

const tests = [];
const walk = (suite) => {
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) tests.push({ spec, test });
  }
  for (const child of suite.suites ?? []) walk(child);
};
for (const suite of report.suites ?? []) walk(suite);

const stats = report.stats ?? {};
if (stats.unexpected !== 1 || stats.expected !== 0 || stats.flaky !== 0) {
  fail(`stats: expected 1 unexpected, 0 expected, 0 flaky; got ${JSON.stringify(stats)}`);
}
if (tests.length !== 1) {
  fail(
    `expected exactly 1 test, got ${tests.length}: ${tests.map((t) => t.spec.title).join('; ')}`,
  );
} else {
  const [{ spec, test }] = tests;
  const result = test.results?.at(-1);
  if (spec.title !== EXPECTED_TITLE || !spec.file?.endsWith(EXPECTED_FILE)) {
    fail(`the failing test is "${spec.title}" in ${spec.file}, expected "${EXPECTED_TITLE}"`);
  }
  if (result?.status !== 'failed') fail(`its status is ${result?.status}, expected failed`);
  const message = (result?.errors ?? []).map((e) => e.message ?? '').join('\n');
  if (!EXPECTED_ERROR.test(message)) {
    fail(`it failed for another reason than its assertion: ${message.slice(0, 300)}`);
  }
  const video = (result?.attachments ?? []).find((a) => a.contentType === 'video/webm');
  if (!video?.path) fail('no video/webm recording is attached to its result');
  else if (!isWebm(video.path)) fail(`the attached recording ${video.path} is not a WebM file`);
}

function isWebm(path) {
  try {
    const fd = openSync(path, 'r');
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    closeSync(fd);
    return head.toString('hex') === '1a45dfa3';
  } catch {
    return false;
  }
}

if (problems.length > 0) {
  console.error('ci: the expected-failure project did not fail the expected way:');
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
console.log(`ci: expected-failure failed as expected: "${EXPECTED_TITLE}", recording attached`);
