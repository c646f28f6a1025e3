/**
 * The order files start in: vitest's own (failed first, then longest or largest first) within
 * each project, then e2e and unit files interleaved, a few unit files after each e2e file. A
 * worker picks the next file when it is free, and an e2e file waits for the previous one to end
 * (e2e-one-at-a-time.ts): so while one worker runs an e2e file, the other runs the unit files
 * queued after it and then holds the next e2e file ready, imported, until its turn. Unit files
 * thus run beside the e2e files instead of before them, and no e2e file waits behind units.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class E2eInterleavingSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const e2e = sorted.filter((f) => f.project.name === 'e2e');
    const others = sorted.filter((f) => f.project.name !== 'e2e');
    if (e2e.length === 0 || others.length === 0) return sorted;
    const perE2e = Math.ceil(others.length / e2e.length);
    const order: TestSpecification[] = [];
    for (const [i, file] of e2e.entries()) {
      order.push(file, ...others.slice(i * perE2e, (i + 1) * perE2e));
    }
    return order;
  }
}
