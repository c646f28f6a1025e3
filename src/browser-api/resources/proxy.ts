/** `GET /proxy/options`: the targeting vocabulary with its defaults. */
import type { CallOptions } from '../../http/call-options.js';
import { Resource } from '../../http/resource.js';
import { type ProxyOptions, ProxyOptionsSchema } from '../schemas/proxy.js';

export class ProxyResource extends Resource {
  async options(opts: CallOptions = {}): Promise<ProxyOptions> {
    return this.transport.request({
      ...opts,
      what: 'proxy.options',
      method: 'GET',
      path: '/proxy/options',
      schema: ProxyOptionsSchema,
    });
  }
}
