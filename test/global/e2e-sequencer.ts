/**
 * The order files start in: vitest's own (failed first, then longest or largest first) within
 * each project, then rearranged for two workers. The e2e files that run alone (e2e-lanes.ts)
 * come first, each followed by a share of the unit files: while one worker runs such a file,
 * the other runs those units and then holds the next file ready, imported, until its turn
 * (e2e-two-at-a-time.ts). The e2e files that share the machine follow, two at a time, longest
 * first. Unit files thus fill the core an e2e file running alone leaves idle.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { runsAlone } from './e2e-lanes.js';

export default class E2eInterleavingSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const e2e = sorted.filter((f) => f.project.name === 'e2e');
    const others = sorted.filter((f) => f.project.name !== 'e2e');
    if (e2e.length === 0 || others.length === 0) return sorted;
    const alone = e2e.filter((f) => runsAlone(f.moduleId));
    const shared = e2e.filter((f) => !runsAlone(f.moduleId));
    // Units go beside the files that run alone; with none in this run, beside all of them.
    const hosts = alone.length > 0 ? alone : shared;
    const rest = alone.length > 0 ? shared : [];
    const perHost = Math.ceil(others.length / hosts.length);
    const order: TestSpecification[] = [];
    for (const [i, file] of hosts.entries()) {
      order.push(file, ...others.slice(i * perHost, (i + 1) * perHost));
    }
    return [...order, ...rest];
  }
}
