/** `POST /configurations/validate`: checks targeting with the same logic as session creation. */
import type { CallOptions } from '../../http/call-options.js';
import { parseWire } from '../../http/request-validation.js';
import { Resource } from '../../http/resource.js';
import {
  type ConfigurationParams,
  ConfigurationParamsSchema,
  type ValidationResult,
  ValidationResultSchema,
} from '../schemas/configurations.js';

export class Configurations extends Resource {
  /**
   * A bad config is a 200 with `valid: false` and `issues`, not an error. A POST, but it
   * changes nothing, so it is retried like a GET.
   */
  async validate(config: ConfigurationParams, opts: CallOptions = {}): Promise<ValidationResult> {
    const what = 'configurations.validate';
    return this.transport.request({
      ...opts,
      what,
      method: 'POST',
      path: '/configurations/validate',
      body: parseWire(what, ConfigurationParamsSchema, config, 'config'),
      idempotent: true,
      schema: ValidationResultSchema,
    });
  }
}
