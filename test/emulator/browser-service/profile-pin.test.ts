import { describe, expect, it } from 'vitest';
import type { SessionConfig } from '../../../src/emulator/browser-service/model.js';
import { pinFromConfig } from '../../../src/emulator/browser-service/profile-pin.js';

const base: SessionConfig = {
  protocol: 'http',
  connection_type: 'residential',
  session_type: 'sticky',
  filter_mode: 'quality',
  quality_filter_enabled: true,
  ipv4_only: false,
  profile_name: null,
  profile_id: null,
};

describe('pinFromConfig', () => {
  it('keeps what the session asked for and fills the rest from the dataset', () => {
    expect(pinFromConfig({ ...base, country: 'us', city: 'buffalo' })).toEqual({
      country: 'us',
      region: 'ny',
      city: 'buffalo',
      zip: '14201',
      isp: 'comcast',
      connection_type: 'residential',
    });
  });

  it('pins a broad exit to a full location in the default country', () => {
    expect(pinFromConfig({ ...base, connection_type: 'mobile' })).toMatchObject({
      country: 'us',
      region: 'ca',
      city: 'los_angeles',
      connection_type: 'mobile',
    });
  });

  it('leaves parts empty for a country without detailed data', () => {
    expect(pinFromConfig({ ...base, country: 'br' })).toEqual({
      country: 'br',
      region: '',
      city: '',
      zip: '',
      isp: '',
      connection_type: 'residential',
    });
  });
});
