#!/usr/bin/env node
// Runs `stryker run` over groups of files one after another, each with its own incremental
// file and report, so a long mutation pass yields finished scores group by group (a single run
// reports nothing until every mutant is done). Usage: node scripts/mutation-groups.mjs [group...]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const GROUPS = {
  webhook: ['src/account-api/webhook-signature.ts'],
  lease: [
    'src/launch/session-lease.ts',
    'src/launch/creates-in-flight.ts',
    'src/launch/exit-cleanup.ts',
  ],
  retry: ['src/http/retry-policy.ts', 'src/http/retry-after.ts', 'src/http/redact.ts'],
  lifecycle: [
    'src/emulator/browser-service/session-lifecycle.ts',
    'src/emulator/browser-service/sessions.ts',
  ],
  pool: ['src/launch/session-pool.ts', 'src/launch/slot-wait.ts', 'src/launch/create-session.ts'],
  transport: ['src/http/transport.ts', 'src/http/call-options.ts', 'src/http/error-mapping.ts'],
  limiter: ['src/http/rate-limiter.ts', 'src/http/rate-limit-wait.ts', 'src/http/polling.ts'],
  ledger: [
    'src/launch/ledger.ts',
    'src/launch/reap.ts',
    'src/launch/lost-create.ts',
    'src/launch/orphan-match.ts',
  ],
};

const wanted = process.argv.slice(2);
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
