#!/usr/bin/env node
// Runs `stryker run` over groups of files one after another, each with its own incremental
// file and report, so a long mutation pass yields finished scores group by group (a single run
// reports nothing until every mutant is done). Usage: node scripts/mutation-groups.mjs [group...]
// `--check` only verifies that the groups cover every file of src/http and src/launch (but
// index.ts), so a new file cannot drop out of the mutation pass unnoticed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';

const GROUPS = {
  webhook: ['src/account-api/webhook-signature.ts'],
  lease: [
    'src/launch/remote-session.ts',
    'src/launch/tracker.ts',
    'src/launch/creates.ts',
    'src/launch/reconnect-window.ts',
    'src/launch/end-reason.ts',
  ],
  retry: ['src/http/retry-policy.ts', 'src/http/retry-after.ts', 'src/http/redact.ts'],
  lifecycle: [
    'src/emulator/browser-service/session-lifecycle.ts',
    'src/emulator/browser-service/sessions.ts',
  ],
  pool: [
    'src/launch/session-pool.ts',
    'src/launch/pool-options.ts',
    'src/launch/slots.ts',
    'src/launch/create-session.ts',
  ],
  transport: [
    'src/http/transport.ts',
    'src/http/attempt.ts',
    'src/http/response-body.ts',
    'src/http/stream-to.ts',
    'src/http/call-options.ts',
    'src/http/error-mapping.ts',
  ],
  limiter: ['src/http/rate-limiter.ts', 'src/http/rate-limit-wait.ts', 'src/http/polling.ts'],
  ledger: ['src/launch/ledger.ts', 'src/launch/reap.ts'],
  usage: [
    'src/launch/usage.ts',
    'src/launch/budget.ts',
    'src/launch/metering.ts',
    'src/launch/usage-journal.ts',
  ],
  'http-config': [
    'src/http/config.ts',
    'src/http/client-options.ts',
    'src/http/request-validation.ts',
    'src/http/errors.ts',
    'src/http/budget-exceeded.ts',
    'src/http/debug.ts',
    'src/http/hidden-fields.ts',
    'src/http/hints.ts',
    'src/http/lazy-schema.ts',
    'src/http/node-builtins.ts',
    'src/http/path.ts',
    'src/http/resource.ts',
    'src/http/shared-dispatcher.ts',
    'src/http/undici.ts',
  ],
  'launch-open': [
    'src/launch/open-session.ts',
    'src/launch/opened-session.ts',
    'src/launch/attach-session.ts',
    'src/launch/connect-within.ts',
    'src/launch/adapter.ts',
    'src/launch/preflight.ts',
    'src/launch/profiles.ts',
    'src/launch/recordings.ts',
    'src/launch/session-info.ts',
    'src/launch/settle-both.ts',
    'src/launch/to-wire.ts',
    'src/launch/geo-config.ts',
    'src/launch/browser-registry.ts',
    'src/launch/errors.ts',
  ],
  'launch-options': [
    'src/launch/drop-in-options.ts',
    'src/launch/option-schemas.ts',
    'src/launch/options.ts',
    'src/launch/parse-options.ts',
  ],
  exit: [
    'src/http/process-signals.ts',
    'src/launch/exit-hooks.ts',
    'src/launch/watchdog.ts',
    'src/launch/watchdog-mirror.ts',
    'src/launch/watchdog-child.ts',
  ],
};

const grouped = new Set(Object.values(GROUPS).flat());
const missing = ['src/http', 'src/launch']
  .flatMap((dir) => readdirSync(dir).map((f) => `${dir}/${f}`))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('/index.ts') && !grouped.has(f));
if (missing.length) {
  console.error(`files in no mutation group: ${missing.join(', ')}`);
  process.exit(1);
}
if (process.argv.includes('--check')) process.exit(0);

const wanted = process.argv.slice(2);
mkdirSync('.tmp', { recursive: true });
for (const name of wanted.length ? wanted : Object.keys(GROUPS)) {
  const files = GROUPS[name];
  if (!files) throw new Error(`no group ${name}; groups: ${Object.keys(GROUPS).join(', ')}`);
  const config = `.tmp/stryker-${name}.config.mjs`;
  writeFileSync(
    config,
    `import base from '../stryker.config.mjs';
export default {
  ...base,
  mutate: ${JSON.stringify(files)},
  incrementalFile: 'reports/groups/${name}/incremental.json',
  htmlReporter: { fileName: 'reports/groups/${name}/index.html' },
  jsonReporter: { fileName: 'reports/groups/${name}/mutation.json' },
};
`,
  );
  console.log(`mutation group ${name}: ${files.join(', ')}`);
  spawnSync('npx', ['stryker', 'run', config], { stdio: 'inherit' });
}
