// `node --import ./bench/peer-register.mjs ...`: installs bench/peer-hook.mjs.
import { register } from 'node:module';

register('./peer-hook.mjs', import.meta.url);
