/**
 * Ask two assistants two questions from two places and print the answers grouped by location.
 * Uses the real account service when REMOTE_BROWSER_ACCOUNT_URL is set, else the embedded
 * emulator (no Chromium is launched: the account service needs none).
 * Run: npx tsx examples/ask-assistants.ts
 */
import { AccountApi, groupByLocation } from 'remote-browser/account';
import { startEmulator } from 'remote-browser/emulator';

let stopEmulator = async () => {};
if (!process.env.REMOTE_BROWSER_ACCOUNT_URL) {
  const emulator = await startEmulator();
  process.env.REMOTE_BROWSER_ACCOUNT_URL = emulator.accountUrl;
  process.env.REMOTE_BROWSER_API_KEY = emulator.apiKey;
  stopEmulator = () => emulator.close();
}

const api = new AccountApi();
try {
  const params = {
    questions: ['What is the best time of year to visit?', 'Where can I find good coffee nearby?'],
    platforms: ['assistant_a', 'assistant_b'] as const,
    locations: [
      { country: 'us', region: 'NY', city: 'new york' },
      { country: 'gb', region: 'England', city: 'london' },
    ],
  };
  const cost = api.estimateCost(params);
  console.log(
    `balance: ${(await api.balance()).balance} credits; this costs at least ${cost.credits}`,
  );

  const batch = await api.queries.run(
    { ...params, platforms: [...params.platforms] },
    {
      intervalMs: 1000,
      onProgress: (b) => {
        const done = b.results.filter((r) => r.status !== 'pending').length;
        console.log(`  ${done}/${b.results.length} rows settled`);
      },
    },
  );

  for (const group of groupByLocation(batch.results)) {
    console.log(`\n== ${[group.city, group.region, group.country].filter(Boolean).join(', ')}`);
    for (const row of group.rows) {
      const answer =
        row.status === 'success'
          ? (row.raw_response?.text.split('\n')[0] ?? '')
          : 'failed (its credit was refunded)';
      const sources = row.raw_response?.sources.length ?? 0;
      console.log(`- [${row.platform}] ${row.question}\n    ${answer} (${sources} sources)`);
    }
  }
  if (batch.results.length !== 8) throw new Error(`expected 8 rows, got ${batch.results.length}`);
} finally {
  await api.close();
  await stopEmulator();
}
