// Registers module-log-hooks.mjs with the file named by MODULE_LOG (see there).
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url, { data: { log: process.env.MODULE_LOG } });
