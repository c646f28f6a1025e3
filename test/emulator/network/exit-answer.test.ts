import { describe, expect, it } from 'vitest';
import { exitAnswer } from '../../../src/emulator/network/exit-answer.js';

const identity = {
  ip: '198.51.100.7',
  country: 'de',
  region: 'be',
  city: 'berlin',
  zip: '10115',
  isp: 'deutsche_telekom',
  connection_type: 'residential',
  session_type: 'sticky',
};

describe('exitAnswer', () => {
  it("adds the exit's time zone and coordinates to its identity", async () => {
    const answer = await exitAnswer(identity);
    expect(answer).toMatchObject({ ...identity, time_zone: 'Europe/Berlin' });
    expect(answer.latitude).toBeCloseTo(52.52, 1);
    expect(answer.longitude).toBeCloseTo(13.4, 1);
  });

  it('leaves them out where no dataset places the exit', async () => {
    const answer = await exitAnswer({ ...identity, country: 'bv', region: '', city: '' });
    expect(answer).toEqual({ ...identity, country: 'bv', region: '', city: '' });
  });
});
