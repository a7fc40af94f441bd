// Registers module-log-hooks.mjs with the file named by MODULE_LOG (see there).
import { register } from 'node:module';
import process from 'node:process';

register('./module-log-hooks.mjs', import.meta.url, { data: { log: process.env.MODULE_LOG } });
